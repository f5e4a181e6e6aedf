import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe } from 'vitest';
import { createRpcClient, type RpcClient } from '../../../shared/rpc/client';
import { createAppServices, type AppServices } from '../../../electron/core/app-services';
import { createMemoryLogger } from '../../../electron/core/logger';
import { createMemorySecretStore } from '../../../electron/keys/memory-store';
import { createMemoryTransport } from '../../../electron/rpc/memory-transport';
import { rpcContractSuite } from './suite';
import { readFileSync } from 'node:fs';

const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };

describe('RPC contract over the in-memory transport', () => {
  let services: AppServices;
  let client: RpcClient;
  beforeAll(async () => {
    services = await createAppServices({
      dataDir: mkdtempSync(join(tmpdir(), 'fl-mem-')),
      logger: createMemoryLogger(),
      shell: 'test',
      version: pkg.version,
      clock: () => new Date(),
      secretStore: createMemorySecretStore(),
    });
    client = createRpcClient(createMemoryTransport(services.router, services.bus));
  });
  afterAll(() => services.close());
  rpcContractSuite({ client: () => client, bus: () => services.bus });
});
