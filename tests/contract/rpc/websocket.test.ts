import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createRpcClient, type RpcClient } from '../../../shared/rpc/client';
import { createWsTransport, type WebSocketLike } from '../../../shared/rpc/ws-protocol';
import type { AppServices } from '../../../electron/root/app-services';
import { bootTestApp } from '../../support/app';
import { createMemoryLogger } from '../../../electron/ground/logger';
import { startBrowserHost, type BrowserHost } from '../../../electron/host/browser-host';
import { rpcContractSuite } from './suite';

function socket(host: BrowserHost, headers: Record<string, string>): WebSocket {
  return new WebSocket(`ws://127.0.0.1:${host.port}/rpc`, { headers });
}

/** Resolves with the HTTP status the upgrade was refused with, or 101 when it opened. */
function upgradeStatus(ws: WebSocket): Promise<number> {
  return new Promise((resolve) => {
    ws.on('open', () => {
      ws.close();
      resolve(101);
    });
    ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
    ws.on('error', () => undefined);
  });
}

describe('RPC contract over the browser host WebSocket', () => {
  let services: AppServices;
  let host: BrowserHost;
  let client: RpcClient;
  let close: () => void;

  beforeAll(async () => {
    ({ services } = await bootTestApp(mkdtempSync(join(tmpdir(), 'fl-ws-'))));
    host = await startBrowserHost({ router: services.router, bus: services.bus, logger: createMemoryLogger() });
    const ws = socket(host, {
      Cookie: `fieldlens_token=${host.token}`,
      Origin: `http://127.0.0.1:${host.port}`,
    });
    const transport = createWsTransport(ws as unknown as WebSocketLike);
    await transport.ready;
    close = () => transport.close();
    client = createRpcClient(transport);
  });

  afterAll(async () => {
    close();
    await host.close();
    await services.close();
  });

  rpcContractSuite({ client: () => client, bus: () => services.bus });

  it('listens on 127.0.0.1 only', () => {
    expect(host.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
  });

  it('refuses the socket without the token (401)', async () => {
    expect(await upgradeStatus(socket(host, { Origin: `http://127.0.0.1:${host.port}` }))).toBe(401);
    expect(await upgradeStatus(socket(host, { Cookie: 'fieldlens_token=wrong' }))).toBe(401);
  });

  it('refuses a foreign Origin or Host even with the token (403)', async () => {
    const cookie = `fieldlens_token=${host.token}`;
    expect(await upgradeStatus(socket(host, { Cookie: cookie, Origin: 'http://evil.example' }))).toBe(403);
    expect(await upgradeStatus(socket(host, { Cookie: cookie, Host: `attacker.example:${host.port}` }))).toBe(403);
    expect(await upgradeStatus(socket(host, { Cookie: cookie, Origin: `http://127.0.0.1:${host.port}` }))).toBe(101);
  });

  it('answers plain HTTP the same way', async () => {
    const base = `http://127.0.0.1:${host.port}/rpc`;
    expect((await fetch(base)).status).toBe(401);
    expect((await fetch(base, { headers: { Origin: 'http://evil.example' } })).status).toBe(403);
    const viaQuery = await fetch(`http://127.0.0.1:${host.port}/?token=${host.token}`, { redirect: 'manual' });
    expect(viaQuery.status).toBe(302);
    expect(viaQuery.headers.get('set-cookie')).toMatch(/fieldlens_token=.*HttpOnly.*SameSite=Strict/i);
    expect(viaQuery.headers.get('location')).toBe('/');
  });

  it('tells a page whether its token holds (/session), and a person with an old token how to reopen', async () => {
    const session = `http://127.0.0.1:${host.port}/session`;
    expect((await fetch(session, { headers: { Cookie: `fieldlens_token=${host.token}` } })).status).toBe(204);
    expect((await fetch(session, { headers: { Cookie: 'fieldlens_token=old' } })).status).toBe(401);
    const page = await fetch(`http://127.0.0.1:${host.port}/`, { headers: { Cookie: 'fieldlens_token=old', Accept: 'text/html,*/*' } });
    expect(page.status).toBe(401);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const text = await page.text();
    expect(text).toContain('?token=');
    expect(text).not.toContain(host.token);
    // Programs still read JSON.
    const json = await fetch(`http://127.0.0.1:${host.port}/`, { headers: { Cookie: 'fieldlens_token=old' } });
    expect(await json.json()).toEqual({ error: expect.stringMatching(/token/) });
  });
});
