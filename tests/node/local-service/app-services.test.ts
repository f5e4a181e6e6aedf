import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createAppServices } from '../../../electron/core/app-services';
import { createMemoryLogger } from '../../../electron/core/logger';
import { ComputeResponseExact } from '../../../shared/service/compute';

describe('app services start the local service as the default connection', () => {
  it('publishes its URLs in connection.active, answers with the injected keys, and stops on close', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'fieldlens-app-'));
    const keys = { bearer: 'injected-bearer-1', search: 'injected-search-1' };
    const services = await createAppServices({
      dataDir,
      logger: createMemoryLogger(),
      shell: 'test',
      version: '0.0.0',
      clock: () => new Date(),
      localServiceKeys: async () => keys,
    });
    try {
      const res = await services.router.dispatch('connection.active', {});
      expect(res.ok).toBe(true);
      const conn = (res as { value: { baseUrl: string; searchBaseUrl: string; kind: string } }).value;
      expect(conn.kind).toBe('local');
      expect(conn.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(conn.searchBaseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(conn.searchBaseUrl).not.toBe(conn.baseUrl);
      const reply = await fetch(`${conn.baseUrl}/v1/compute`, {
        method: 'POST',
        headers: { authorization: `Bearer ${keys.bearer}`, 'content-type': 'application/json' },
        body: JSON.stringify({ query: 'airports in Malta' }),
      });
      expect(reply.status).toBe(200);
      expect(ComputeResponseExact.safeParse(await reply.json()).success).toBe(true);
      await services.close();
      await expect(fetch(`${conn.baseUrl}/health`)).rejects.toThrow();
    } finally {
      await services.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
