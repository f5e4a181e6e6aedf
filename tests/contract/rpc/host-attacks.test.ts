import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { AppServices } from '../../../electron/root/app-services';
import { createMemoryLogger } from '../../../electron/ground/logger';
import { startBrowserHost, type BrowserHost } from '../../../electron/host/browser-host';
import { bootTestApp } from '../../support/app';
import { methods } from '../../../shared/rpc/contract';
import { ATTACHMENT_MAX_FILES, RPC_MAX_BASE64, WS_MAX_FRAME_BYTES } from '../../../shared/rpc/limits';
import { QUERY_MAX_CHARS } from '../../../shared/service/compute';
import { createWsTransport, type WebSocketLike } from '../../../shared/rpc/ws-protocol';

/**
 * One request written byte for byte on a socket: no client library normalises the path, fills
 * in the Host or drops a header. Resolves with the status and the body as text.
 */
function raw(port: number, target: string, headers: Record<string, string | undefined>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const s = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const text = () => Buffer.concat(chunks).toString('latin1');
    const done = () => {
      clearTimeout(timer);
      const t = text();
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(t)?.[1] ?? 0);
      resolve({ status, body: t.slice(t.indexOf('\r\n\r\n') + 4) });
    };
    // An upgraded socket stays open: its status line is the whole answer.
    s.on('data', (c: Buffer) => {
      chunks.push(c);
      if (/^HTTP\/1\.1 101 /.test(text()) && text().includes('\r\n\r\n')) s.destroy();
    });
    s.on('error', reject);
    s.on('close', done);
    const timer = setTimeout(() => s.destroy(), 5000);
    const lines = [`GET ${target} HTTP/1.1`, ...Object.entries(headers).filter(([, v]) => v !== undefined).map(([k, v]) => `${k}: ${v}`)];
    if (!headers['Connection']) lines.push('Connection: close');
    // Written, not ended: a half-closed socket makes the server drop it before it answers.
    s.write([...lines, '', ''].join('\r\n'));
  });
}

const UPGRADE = { Upgrade: 'websocket', Connection: 'Upgrade', 'Sec-WebSocket-Version': '13', 'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==' };
// A file beside the served folder and one far outside it: neither may ever be read through the host.
const SECRET = 'fieldlens-secret-marker-7f3a';

describe('browser host under attack', () => {
  let dir: string;
  let services: AppServices;
  let host: BrowserHost;
  let cookie: string;
  let self: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fieldlens-host-attack-'));
    const rendererDir = join(dir, 'renderer');
    mkdirSync(rendererDir);
    writeFileSync(join(rendererDir, 'index.html'), '<!doctype html><title>Fieldlens</title>');
    writeFileSync(join(dir, 'secret.txt'), SECRET);
    ({ services } = await bootTestApp(join(dir, 'data'), { startLocalService: false }));
    host = await startBrowserHost({ router: services.router, bus: services.bus, logger: createMemoryLogger(), rendererDir, downloads: services.exports });
    cookie = `fieldlens_token=${host.token}`;
    self = `127.0.0.1:${host.port}`;
  });
  afterAll(async () => {
    await host.close();
    await services.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves the app to its own page (the control for every refusal below)', async () => {
    const page = await raw(host.port, '/index.html', { Host: self, Cookie: cookie });
    expect([page.status, page.body]).toEqual([200, '<!doctype html><title>Fieldlens</title>']);
    expect((await raw(host.port, '/rpc', { Host: self, Cookie: cookie, Origin: `http://${self}`, ...UPGRADE })).status).toBe(101);
  });

  it('refuses every attack: token, Origin, Host (DNS rebinding), cross-site WebSocket, path traversal', async () => {
    const wrongTokens = ['', 'wrong', host.token.toUpperCase(), host.token.slice(0, -1), host.token + 'x', host.token.replace(/^./, 'ǃ'), encodeURIComponent(host.token) + '%00'];
    const foreignOrigins = ['http://evil.example', 'null', `http://127.0.0.1:${host.port + 1}`, `https://${self}`, `http://localhost.evil.example:${host.port}`, `http://${self}.evil.example`, `http://127.0.0.1:${host.port}@evil.example`, 'file://'];
    const rebindingHosts = ['evil.example', `evil.example:${host.port}`, '127.0.0.1', `127.0.0.1:${host.port + 1}`, 'localhost', `127.0.0.1.nip.io:${host.port}`, `[::1]:${host.port}`, `0.0.0.0:${host.port}`, `2130706433:${host.port}`, `${self}.evil.example`, `${self} evil.example`];
    const traversals = [
      '/../secret.txt', '/../../../../../../etc/passwd', '/%2e%2e/secret.txt', '/%2e%2e%2fsecret.txt', '/..%2fsecret.txt', '/%2E%2E%2Fsecret.txt',
      '/%252e%252e%252fsecret.txt', '/..%5csecret.txt', '/%2e%2e%5csecret.txt', '/.%2e/secret.txt', '/%c0%ae%c0%ae/secret.txt', '/..;/secret.txt',
      '/index.html/../../secret.txt', '/index.html%00../../secret.txt', '//..//..//secret.txt', '/assets/../../secret.txt', '/%2e%2e/%2e%2e/%2e%2e/etc/passwd',
      '/exports/..%2f..%2fsecret.txt', '/exports/%2e%2e', `/exports/..%2f..%2f${'..%2f'.repeat(8)}etc%2fpasswd`, '/file:///etc/passwd', '/\\..\\secret.txt',
    ];
    type Case = { what: string; target: string; headers: Record<string, string | undefined>; refused: (status: number, body: string) => boolean };
    const denied = (codes: number[]) => (status: number, body: string) => codes.includes(status) && !body.includes(SECRET) && !body.includes('root:x:0');
    const cases: Case[] = [];
    for (const path of ['/', '/index.html', '/rpc', '/exports/anything', '/secret.txt'])
      cases.push({ what: `no token ${path}`, target: path, headers: { Host: self }, refused: denied([401]) });
    for (const t of wrongTokens) {
      cases.push({ what: `wrong token in cookie "${t}"`, target: '/', headers: { Host: self, Cookie: `fieldlens_token=${t}` }, refused: denied([401]) });
      cases.push({ what: `wrong token in query "${t}"`, target: `/?token=${encodeURIComponent(t)}`, headers: { Host: self }, refused: denied([401]) });
      cases.push({ what: `wrong token on the socket "${t}"`, target: '/rpc', headers: { Host: self, Origin: `http://${self}`, Cookie: `fieldlens_token=${t}`, ...UPGRADE }, refused: denied([401]) });
    }
    for (const o of foreignOrigins) {
      cases.push({ what: `Origin ${o}`, target: '/', headers: { Host: self, Cookie: cookie, Origin: o }, refused: denied([403]) });
      // Cross-site WebSocket hijacking: the browser sends the cookie, the Origin gives the site away.
      cases.push({ what: `cross-site socket from ${o}`, target: '/rpc', headers: { Host: self, Cookie: cookie, Origin: o, ...UPGRADE }, refused: denied([403]) });
      cases.push({ what: `cross-site socket with the token in the query from ${o}`, target: `/rpc?token=${host.token}`, headers: { Host: self, Origin: o, ...UPGRADE }, refused: denied([403]) });
    }
    for (const h of rebindingHosts) {
      cases.push({ what: `Host ${h}`, target: '/', headers: { Host: h, Cookie: cookie }, refused: denied([400, 403]) });
      cases.push({ what: `Host ${h} on the socket`, target: '/rpc', headers: { Host: h, Cookie: cookie, ...UPGRADE }, refused: denied([400, 403]) });
      cases.push({ what: `Host ${h} with the token in the query`, target: `/?token=${host.token}`, headers: { Host: h }, refused: denied([400, 403]) });
    }
    cases.push({ what: 'no Host at all', target: '/', headers: { Cookie: cookie }, refused: denied([400, 403]) });
    for (const t of traversals) {
      // With a valid token: the path alone must not reach outside the served folder.
      cases.push({ what: `traversal ${t}`, target: t, headers: { Host: self, Cookie: cookie }, refused: denied([400, 403, 404]) });
      cases.push({ what: `traversal without token ${t}`, target: t, headers: { Host: self }, refused: denied([400, 401, 403, 404]) });
    }

    const accepted: string[] = [];
    const byKind = new Map<string, { tried: number; refused: number }>();
    for (const c of cases) {
      const r = await raw(host.port, c.target, c.headers);
      const kind = ['no token', 'wrong token', 'Origin', 'cross-site socket', 'Host', 'no Host', 'traversal'].find((k) => c.what.startsWith(k))!;
      const k = byKind.get(kind) ?? { tried: 0, refused: 0 };
      byKind.set(kind, k);
      k.tried++;
      if (c.refused(r.status, r.body)) k.refused++;
      else accepted.push(`${c.what} -> ${r.status} ${r.body.slice(0, 80)}`);
    }
    const refusedCount = cases.length - accepted.length;
    console.log(`browser host attacks: ${cases.length} tried, ${refusedCount} refused (${((refusedCount / cases.length) * 100).toFixed(1)} %); ${[...byKind].map(([k, v]) => `${k} ${v.refused}/${v.tried}`).join(', ')}`);
    expect(cases.length).toBeGreaterThan(100);
    expect(accepted).toEqual([]);
    // Still serving its own page afterwards.
    expect((await raw(host.port, '/', { Host: self, Cookie: cookie })).status).toBe(200);
  });

  it('an authenticated socket survives frames that are not requests, and keeps answering', async () => {
    const ws = new WebSocket(`ws://${self}/rpc`, { headers: { Cookie: cookie, Origin: `http://${self}` } });
    await new Promise((ok, fail) => (ws.once('open', ok), ws.once('error', fail)));
    const replies: unknown[] = [];
    ws.on('message', (d: Buffer) => replies.push(JSON.parse(d.toString())));
    const frames = ['null', '[]', '42', '"x"', 'true', '{}', '{"id":"1"}', '{"method":"app.info"}', '{"id":null,"method":"app.info"}', '{', '\u0000', '{"id":1e400}', Buffer.from([0xff, 0xfe, 0x00])];
    for (const f of frames) ws.send(f);
    // Odd but answerable: an id with an unknown method, or junk input.
    ws.send(JSON.stringify({ id: 7, method: { toString: 1 }, input: null }));
    ws.send(JSON.stringify({ id: 8, method: 'app.info', input: [1, 2] }));
    ws.send(JSON.stringify({ id: 9, method: 'app.info', input: {} }));
    await expect.poll(() => replies.length).toBe(3);
    expect(replies).toEqual([
      { id: 7, result: { ok: false, error: expect.objectContaining({ code: 'NOT_FOUND' }) } },
      { id: 8, result: { ok: false, error: expect.objectContaining({ code: 'VALIDATION' }) } },
      { id: 9, result: { ok: true, value: expect.objectContaining({ name: 'Fieldlens' }) } },
    ]);
    ws.close();
  });

  /** An authenticated socket, open. */
  const socket = async () => {
    const ws = new WebSocket(`ws://${self}/rpc`, { headers: { Cookie: cookie, Origin: `http://${self}` } });
    await new Promise((ok, fail) => (ws.once('open', ok), ws.once('error', fail)));
    return ws;
  };
  const call = (ws: WebSocket, id: number, method: string, input: unknown) =>
    new Promise<{ id: number; result: { ok: boolean } }>((ok) => {
      const onMessage = (d: Buffer) => {
        const m = JSON.parse(d.toString()) as { id?: number; result: { ok: boolean } };
        if (m.id !== id) return;
        ws.off('message', onMessage);
        ok(m as { id: number; result: { ok: boolean } });
      };
      ws.on('message', onMessage);
      ws.send(JSON.stringify({ id, method, input }));
    });

  it('a frame past the limit closes its socket (1009) unread; the host answers other sockets, and the largest call fits', async () => {
    const bystander = await socket();
    const attacker = await socket();
    const closed = new Promise<number>((ok) => attacker.once('close', (code: number) => ok(code)));
    // One byte past the limit, of a valid request's shape: refused by its size alone.
    const head = JSON.stringify({ id: 1, method: 'uploads.preview', input: { name: 'a.csv', dataBase64: '' } });
    const over = head.replace('"dataBase64":""', `"dataBase64":"${'A'.repeat(WS_MAX_FRAME_BYTES + 1 - head.length)}"`);
    expect(Buffer.byteLength(over)).toBe(WS_MAX_FRAME_BYTES + 1);
    attacker.send(over);
    expect(await closed).toBe(1009);
    // The other socket is still served, and so is a new one.
    expect((await call(bystander, 2, 'app.info', {})).result.ok).toBe(true);
    const next = await socket();
    expect((await call(next, 3, 'app.info', {})).result.ok).toBe(true);
    // The largest input the contract takes (a bundle of RPC_MAX_BASE64 to verify) is read and answered.
    const largest = await call(next, 4, 'evidence.verify', { dataBase64: 'A'.repeat(RPC_MAX_BASE64) });
    expect(largest.id).toBe(4);
    expect(next.readyState).toBe(WebSocket.OPEN);
    // The page's transport refuses a call past the limit itself, and keeps its socket.
    const transport = createWsTransport(next as unknown as WebSocketLike);
    const refused = await transport.invoke('uploads.preview', { name: 'a.csv', dataBase64: 'A'.repeat(WS_MAX_FRAME_BYTES) });
    expect(!refused.ok && refused.error.code).toBe('VALIDATION');
    expect((await transport.invoke('app.info', {})).ok).toBe(true);
    for (const ws of [bystander, next]) ws.close();
  });

  it('the contract takes no base64 input that would not fit a frame', () => {
    const base64 = (n: number) => 'A'.repeat(n);
    const name = 'n'.repeat(255);
    // ATTACHMENT_MAX_FILES attachments with the longest names, sharing RPC_MAX_BASE64, with the longest question.
    const attachments = (total: number) =>
      Array.from({ length: ATTACHMENT_MAX_FILES }, (_, i) => ({ field: 'files' as const, name, contentType: 'text/csv', dataBase64: base64(Math.floor(total / ATTACHMENT_MAX_FILES) + (i < total % ATTACHMENT_MAX_FILES ? 1 : 0)) }));
    const request = { query: 'q'.repeat(QUERY_MAX_CHARS), limit: 2000, search_id: '00000000-0000-4000-8000-000000000000' };
    const inputs: [keyof typeof methods, (n: number) => unknown][] = [
      ['compute.run', (n) => ({ request, attachments: attachments(n), runId: 'r'.repeat(100) })],
      ['queue.add', (n) => ({ request, attachments: attachments(n) })],
      ['uploads.preview', (n) => ({ name, dataBase64: base64(n) })],
      ['evidence.verify', (n) => ({ dataBase64: base64(n) })],
    ];
    for (const [method, input] of inputs) {
      const schema = methods[method].input;
      expect(schema.safeParse(input(RPC_MAX_BASE64)).success, method).toBe(true);
      expect(schema.safeParse(input(RPC_MAX_BASE64 + 1)).success, method).toBe(false);
      const frame = JSON.stringify({ id: Number.MAX_SAFE_INTEGER, method, input: input(RPC_MAX_BASE64) });
      expect(Buffer.byteLength(frame), method).toBeLessThanOrEqual(WS_MAX_FRAME_BYTES);
    }
  });
});
