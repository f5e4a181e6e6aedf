import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createAppServices } from '../../../electron/core/app-services';
import { createMemoryLogger } from '../../../electron/core/logger';
import { createMemorySecretStore } from '../../../electron/keys/memory-store';
import { keychainError, type SecretStore } from '../../../electron/keys/secret-store';
import { createMemoryTransport } from '../../../electron/rpc/memory-transport';
import { createRpcClient } from '../../../shared/rpc/client';
import { ComputeResponseExact } from '../../../shared/service/compute';

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

async function boot(dataDir: string, secretStore: SecretStore) {
  const services = await createAppServices({
    dataDir,
    logger: createMemoryLogger(),
    shell: 'test',
    version: '0.0.0',
    clock: () => new Date(),
    secretStore,
    watchPhotos: false,
  });
  return { services, rpc: createRpcClient(createMemoryTransport(services.router, services.bus)) };
}

describe('app services start the bundled service as the default connection', () => {
  it('publishes its URLs, answers with keychain keys through the client, and stops on close', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'fieldlens-app-'));
    const store = createMemorySecretStore();
    const { services, rpc } = await boot(dataDir, store);
    try {
      const conn = await rpc.call('connection.active', {});
      if (!conn.ok) throw new Error(conn.error.message);
      expect(conn.value.kind).toBe('local');
      expect(conn.value.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(conn.value.searchBaseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(conn.value.searchBaseUrl).not.toBe(conn.value.baseUrl);

      // Keys were generated on first run and kept in the (here: in-memory) keychain.
      const bearer = await store.get('local:bearer');
      expect(bearer).toMatch(/^fl_bearer_/);
      const direct = await fetch(`${conn.value.baseUrl}/v1/compute`, {
        method: 'POST',
        headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
        body: JSON.stringify({ query: 'airports in Malta' }),
      });
      expect(direct.status).toBe(200);
      expect(ComputeResponseExact.safeParse(await direct.json()).success).toBe(true);

      const viaRpc = await rpc.call('compute.run', { request: { query: 'airports in Malta', answer: false } });
      expect(viaRpc.ok && viaRpc.value.response.results.numberMatched).toBeGreaterThan(0);
      const search = await rpc.call('imagery.search', { request: { query: 'Paris' } });
      expect(search.ok && search.value.response.isSuccess && search.value.response.data.length).toBeGreaterThan(0);

      await services.close();
      await expect(fetch(`${conn.value.baseUrl}/v1/compute`, { method: 'POST' })).rejects.toThrow();
    } finally {
      await services.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('still answers without a keychain, on keys held in memory for this run only', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'fieldlens-nokeychain-'));
    const refuse = async (): Promise<never> => {
      throw keychainError('no Secret Service on the session bus');
    };
    const store: SecretStore = { get: refuse, set: refuse, delete: refuse, list: refuse };
    const { services, rpc } = await boot(dataDir, store);
    try {
      const r = await rpc.call('compute.run', { request: { query: 'capital of Portugal', answer: false } });
      expect(r.ok).toBe(true);
      if (r.ok) expect(r.value.response.results.features[0]?.properties.name).toBe('Lisbon');
      // The held keys never reach a file of the data folder.
      const held = [...services.secretValues()];
      expect(held.length).toBe(2);
      for (const file of filesUnder(dataDir)) {
        const bytes = readFileSync(file);
        for (const key of held) expect(bytes.includes(Buffer.from(key)), file).toBe(false);
      }
    } finally {
      await services.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
