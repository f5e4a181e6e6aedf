import { readFileSync } from 'node:fs';
import { createAppServices, type AppDeps, type AppServices } from '../../electron/root/app-services';
import { createMemoryLogger } from '../../electron/ground/logger';
import { createMemorySecretStore } from '../../electron/keys/memory-store';
import { createMemoryTransport } from '../../electron/rpc/memory-transport';
import { createRpcClient, type RpcClient } from '../../shared/rpc/client';
import type { Result } from '../../shared/rpc/errors';

export const packageVersion = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

/**
 * The app's services as a shell builds them, for tests: an in-memory keychain unless one is
 * given, no photo-folder watching, and an RPC client over the in-memory transport.
 */
export async function bootTestApp(
  dataDir: string,
  extra: Partial<AppDeps> = {},
): Promise<{ services: AppServices; rpc: RpcClient }> {
  const services = await createAppServices({
    dataDir,
    logger: createMemoryLogger(),
    shell: 'test',
    version: packageVersion,
    clock: () => new Date(),
    secretStore: createMemorySecretStore(),
    watchPhotos: false,
    ...extra,
  });
  return { services, rpc: createRpcClient(createMemoryTransport(services.router, services.bus)) };
}

/** The value of an ok envelope; a failed one throws with its code, so tests read plainly. */
export function value<T>(r: Result<T>): T {
  if (!r.ok) throw new Error(`${r.error.code}: ${r.error.message}`);
  return r.value;
}
