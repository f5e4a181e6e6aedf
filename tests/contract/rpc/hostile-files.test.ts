import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createRpcClient, type RpcClient } from '../../../shared/rpc/client';
import { createWsTransport, type WebSocketLike } from '../../../shared/rpc/ws-protocol';
import { ok, type Result } from '../../../shared/rpc/errors';
import type { AppServices } from '../../../electron/root/app-services';
import { createMemoryLogger } from '../../../electron/ground/logger';
import { startBrowserHost, type BrowserHost } from '../../../electron/host/browser-host';
import { EventBus } from '../../../electron/rpc/events';
import type { Router } from '../../../electron/rpc/router';
import { bootTestApp, value } from '../../support/app';
import { deepPropertiesGeoJson, deepValue } from '../../support/deep-json';

async function connect(host: BrowserHost): Promise<{ client: RpcClient; close: () => void }> {
  const ws = new WebSocket(`ws://127.0.0.1:${host.port}/rpc`, {
    headers: { Cookie: `fieldlens_token=${host.token}`, Origin: `http://127.0.0.1:${host.port}` },
  });
  const transport = createWsTransport(ws as unknown as WebSocketLike);
  await transport.ready;
  return { client: createRpcClient(transport), close: () => transport.close() };
}

describe('the browser host and a file nested 5,000 levels deep', () => {
  let dir: string;
  let services: AppServices;
  let host: BrowserHost;
  let conn: { client: RpcClient; close: () => void };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fl-hostile-'));
    ({ services } = await bootTestApp(dir, { startLocalService: false }));
    host = await startBrowserHost({ router: services.router, bus: services.bus, logger: createMemoryLogger() });
    conn = await connect(host);
  });
  afterAll(async () => {
    conn.close();
    await host.close();
    await services.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('previews it as a refused file naming the depth, and keeps answering', async () => {
    const text = deepPropertiesGeoJson(5000);
    expect(text.length).toBeGreaterThan(10_000);
    expect(text.length).toBeLessThan(10_300);
    const preview = value(await conn.client.call('uploads.preview', { name: 'deep.geojson', dataBase64: Buffer.from(text).toString('base64') }));
    expect(preview.featureCount).toBe(0);
    expect(preview.error?.code).toBe('too_deep');
    expect(preview.error?.message).toMatch(/^deep\.geojson: JSON nested too deeply: .*more than 100 levels/);
    // Same socket, next request: the host is still there.
    const info = value(await conn.client.call('app.info', {}));
    expect(info.name).toBe('Fieldlens');
  });

  it('refuses a frame whose input nests 5,000 levels deep, as a validation error', async () => {
    // Written by hand: the client's own JSON.stringify could not write such a request.
    const frame = `{"id":7,"method":"uploads.preview","input":{"name":"x.csv","dataBase64":"eA==","extra":${'['.repeat(5000)}${']'.repeat(5000)}}}`;
    const ws = new WebSocket(`ws://127.0.0.1:${host.port}/rpc`, {
      headers: { Cookie: `fieldlens_token=${host.token}`, Origin: `http://127.0.0.1:${host.port}` },
    });
    const reply = await new Promise<{ id: number; result: Result<unknown> }>((resolve, reject) => {
      ws.on('open', () => ws.send(frame));
      ws.on('message', (data) => resolve(JSON.parse(String(data)) as { id: number; result: Result<unknown> }));
      ws.on('error', reject);
    });
    ws.close();
    expect(reply.id).toBe(7);
    expect(reply.result.ok).toBe(false);
    if (!reply.result.ok) {
      expect(reply.result.error.code).toBe('VALIDATION');
      expect(reply.result.error.message).toMatch(/nested deeper than 100 levels/);
    }
    expect(value(await conn.client.call('app.info', {})).name).toBe('Fieldlens');
  });

  it('reads the same file nested 50 levels deep', async () => {
    const preview = value(await conn.client.call('uploads.preview', { name: 'ok.geojson', dataBase64: Buffer.from(deepPropertiesGeoJson(50)).toString('base64') }));
    expect(preview.error).toBeNull();
    expect(preview.featureCount).toBe(1);
  });
});

describe('the browser host with a router whose answer cannot be serialised', () => {
  it('sends an INTERNAL error envelope for that call and answers the next one', async () => {
    const deep = deepValue(20_000);
    // Proves the premise: this value is one JSON.stringify cannot write.
    expect(() => JSON.stringify(deep)).toThrow(RangeError);
    const router: Router = {
      async dispatch(method) {
        if (method === 'app.info') return ok({ name: 'Fieldlens', version: '1', shell: 'test', dataDir: '/tmp' });
        return ok(deep) as Result<unknown>;
      },
    };
    const logger = createMemoryLogger();
    const host = await startBrowserHost({ router, bus: new EventBus(), logger });
    const conn = await connect(host);
    try {
      const r = await conn.client.call('connection.active', {});
      expect(r.ok).toBe(false);
      if (!r.ok) {
        expect(r.error.code).toBe('INTERNAL');
        expect(r.error.message).toMatch(/could not be sent/);
      }
      expect(value(await conn.client.call('app.info', {})).name).toBe('Fieldlens');
      expect(logger.lines.join('\n')).toMatch(/could not be answered/);
    } finally {
      conn.close();
      await host.close();
    }
  });
});
