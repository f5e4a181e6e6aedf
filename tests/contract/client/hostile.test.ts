import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppServices } from '../../../electron/root/app-services';
import type { RpcClient } from '../../../shared/rpc/client';
import { ErrorCode } from '../../../shared/rpc/errors';
import { bootTestApp, value } from '../../support/app';
import { computeResponse, imageryResponse, streamResponse } from '../../node/cache/fixtures';
import { HostileServer, cutAfter, drip, endless, send, silent, type Behaviour } from './hostile-server';

/** Short limits so that faults which run to a limit end quickly; the client's own defaults are far larger. */
const TIMEOUT_MS = 1500;
const MAX_BYTES = 4 * 2 ** 20;
/** Allowed past the timeout for the error to travel back (a probe, the cache write, the RPC hop). */
const SLACK_MS = 1500;

type Op = 'compute' | 'stream' | 'imagery';
interface Case {
  name: string;
  op: Op;
  /** 'ok': stored whole; otherwise the error codes that are right for it. */
  expect: 'ok' | ErrorCode[];
  behaviour: Behaviour;
  /** Items of the body when it is answered (to check that all of them were stored). */
  items?: number;
}

// Bodies are edited as untyped JSON: any member may be set to anything.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>;

const N = 25;
const valid: Record<Op, Record<string, unknown>> = {
  compute: computeResponse(N, 3).body as unknown as Record<string, unknown>,
  stream: streamResponse(N, 4).body as unknown as Record<string, unknown>,
  imagery: imageryResponse(N).body as unknown as Record<string, unknown>,
};
const json = (v: unknown) => JSON.stringify(v);
/** A deep copy of the valid body of `op` with `f` applied. */
const edited = (op: Op, f: (b: Json) => void) => {
  const b = structuredClone(valid[op]);
  f(b);
  return json(b);
};
const firstItem = (op: Op, b: Json) =>
  op === 'compute' ? b.results.features[0] : op === 'stream' ? b.data.geojson.features[0] : b.data[0];

function cases(other: HostileServer): Case[] {
  const out: Case[] = [];
  const ops: Op[] = ['compute', 'stream', 'imagery'];
  for (const op of ops) {
    const body = json(valid[op]);
    const fail = (name: string, behaviour: Behaviour, codes: ErrorCode[] = ['HTTP']) => out.push({ name: `${op}: ${name}`, op, expect: codes, behaviour });
    const pass = (name: string, behaviour: Behaviour, items = N) => out.push({ name: `${op}: ${name}`, op, expect: 'ok', behaviour, items });

    // Not JSON at all, or JSON cut short.
    for (const [label, text] of [
      ['empty body', ''], ['blank body', '  \n '], ['open brace', '{'], ['cut key', '{"id":'], ['bare word', 'nul'],
      ['first half', body.slice(0, body.length >> 1)], ['all but one byte', body.slice(0, -1)], ['trailing brace', body + '}'],
      ['comma after brace', body.replace('{', '{,')], ['NUL bytes', '\u0000'.repeat(64)], ['JSON with comments', `/* x */ ${body}`],
    ] as const)
      fail(`invalid JSON (${label})`, send(200, text));
    // JSON, but not an answer of this operation.
    for (const [label, text] of [['null', 'null'], ['array', '[]'], ['string', '"ok"'], ['number', '42'], ['empty object', '{}']] as const)
      fail(`a JSON ${label}`, send(200, text));
    // Every top-level member that the interface requires, one at a time.
    const required: Record<Op, string[]> = {
      compute: ['id', 'query', 'answer', 'results', 'usage'],
      stream: ['isSuccess', 'data'],
      imagery: ['isSuccess', 'data'],
    };
    for (const key of required[op]) fail(`missing "${key}"`, send(200, edited(op, (b) => delete b[key])));
    // Members of the wrong type.
    const wrong: Record<Op, [string, (b: Json) => void][]> = {
      compute: [
        ['results a string', (b) => (b.results = 'none')],
        ['features an object', (b) => (b.results.features = {})],
        ['answer an array', (b) => (b.answer = [])],
        ['numberMatched text', (b) => (b.results.numberMatched = 'many')],
      ],
      stream: [
        ['isSuccess a string', (b) => (b.isSuccess = 'true')],
        ['data a string', (b) => (b.data = 'none')],
        ['features an object', (b) => (b.data.geojson.features = {})],
      ],
      imagery: [
        ['isSuccess a number', (b) => (b.isSuccess = 1)],
        ['data an object', (b) => (b.data = {})],
        ['page text', (b) => (b.page = 'one')],
      ],
    };
    for (const [label, f] of wrong[op]) fail(label, send(200, edited(op, f)));
    fail('an item with coordinates as text', send(200, edited(op, (b) => (firstItem(op, b).geometry = { type: 'Point', coordinates: ['2.3', '48.8'] }))));
    fail('an item with a latitude of 900', send(200, edited(op, (b) => (firstItem(op, b).geometry = { type: 'Point', coordinates: [2.3, 900] }))));

    // Extra members are kept: the interface may grow.
    pass('an extra top-level member', send(200, edited(op, (b) => (b.extra_member = { nested: [1, 2, 3] }))));
    pass('an extra member in an item', send(200, edited(op, (b) => (firstItem(op, b).extra = 'kept'))));
    // The wrong content type on a good body: the body decides.
    for (const type of ['text/html', 'text/plain; charset=latin1', 'application/octet-stream'])
      pass(`content-type ${type}`, send(200, body, { 'content-type': type }));
    pass('no content-type', send(200, body, {}));

    // Bodies past the size limit: refused without reading on.
    fail('a body past the size limit', send(200, JSON.stringify({ ...valid[op], padding: 'x'.repeat(MAX_BYTES) })));
    fail('an endless body', endless(' '.repeat(64 * 1024)));
    pass('a long but allowed value', send(200, edited(op, (b) => (b.note = 'y'.repeat(MAX_BYTES >> 1)))));

    // Slow answers end at the timeout.
    fail('no answer at all', silent, ['TIMEOUT']);
    fail('a slow drip of spaces', drip(null, 100), ['TIMEOUT']);
    fail('a valid body dripped slower than the timeout', drip(body, 5), ['TIMEOUT']);

    // The connection breaks part-way.
    for (const share of [0, 0.1, 0.5, 0.99]) fail(`connection closed after ${share * 100} % of the body`, cutAfter(body, share), ['NETWORK']);
    fail('connection reset mid-body', cutAfter(body, 0.5, true), ['NETWORK']);
    fail('connection closed before any answer', (res) => res.socket?.destroy(), ['NETWORK']);

    // Redirects, to another host (which must never see the request) and to this one.
    for (const status of [301, 302, 303, 307, 308])
      fail(`HTTP ${status} to another host`, send(status, '', { location: `${other.url}/v1/compute` }));
    fail('HTTP 302 to this host', send(302, '', { location: '/elsewhere' }));
    fail('HTTP 302 with a broken Location', send(302, '', { location: 'http://[::1' }));

    // HTML error pages (a proxy, a captive portal), each status with its own code.
    const html = (title: string) => `<!doctype html><html><head><title>${title}</title></head><body><h1>${title}</h1></body></html>`;
    for (const [status, codes] of [
      [200, ['HTTP']], [401, ['AUTH']], [403, ['AUTH']], [404, ['NOT_FOUND']], [500, ['HTTP']], [502, ['HTTP']], [503, ['HTTP']], [504, ['TIMEOUT']],
    ] as [number, ErrorCode[]][])
      fail(`an HTML page with HTTP ${status}`, send(status, html(`Error ${status}`), { 'content-type': 'text/html' }), codes);
    fail('gzip declared, plain bytes sent', send(200, body, { 'content-type': 'application/json', 'content-encoding': 'gzip' }), ['NETWORK', 'HTTP']);
    fail('HTTP 204 with no body', (res) => res.writeHead(204).end(), ['HTTP']);
  }
  return out;
}

const RUN: Record<Op, (rpc: RpcClient) => ReturnType<RpcClient['call']>> = {
  compute: (rpc) => rpc.call('compute.run', { request: { query: 'airports in Malta', limit: 30 } }),
  stream: (rpc) => rpc.call('stream.run', { request: { query: 'crosswalks' } }),
  imagery: (rpc) => rpc.call('imagery.search', { request: { query: 'Lisboa' } }),
};

describe('hostile and broken service answers', () => {
  let dir: string;
  let services: AppServices;
  let rpc: RpcClient;
  let hostile: HostileServer;
  let other: HostileServer;
  let db: Database.Database;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fieldlens-hostile-'));
    hostile = await new HostileServer().start();
    other = await new HostileServer().start();
    other.behaviour = send(200, json(valid.compute));
    ({ services, rpc } = await bootTestApp(dir, {
      startLocalService: false,
      client: { timeouts: { compute: TIMEOUT_MS, stream: TIMEOUT_MS, search: TIMEOUT_MS }, retry: { max: 1, baseDelayMs: 10 }, probeIntervalMs: 0, maxResponseBytes: MAX_BYTES },
    }));
    const profile = value(await rpc.call('profiles.save', { label: 'Hostile', baseUrl: hostile.url, searchBaseUrl: hostile.url }));
    value(await rpc.call('profiles.select', { id: profile.id }));
    value(await rpc.call('keys.set', { profileId: profile.id, kind: 'bearer', key: 'bearer-key-for-hostile' }));
    value(await rpc.call('keys.set', { profileId: profile.id, kind: 'search', key: 'search-key-for-hostile' }));
    db = new Database(join(dir, 'cache.db'), { readonly: true });
  });
  afterAll(async () => {
    db?.close();
    await services.close();
    await hostile.stop();
    await other.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('every case ends in a typed error or a whole answer, within the timeout, with nothing partial stored', { timeout: 180_000 }, async () => {
    const all = cases(other);
    const count = () => db.prepare('SELECT (SELECT count(*) FROM queries) AS queries, (SELECT count(*) FROM features) AS features').get() as { queries: number; features: number };
    const wrong: string[] = [];
    let slowest = 0;
    let ok = 0;
    const codes = new Map<string, number>();
    for (const c of all) {
      hostile.behaviour = c.behaviour;
      const before = count();
      const t = performance.now();
      const r = await RUN[c.op](rpc);
      const ms = performance.now() - t;
      await hostile.settle();
      slowest = Math.max(slowest, ms);
      const after = count();
      const last = db.prepare('SELECT outcome, feature_count FROM queries ORDER BY id DESC LIMIT 1').get() as { outcome: string; feature_count: number };
      const got = r.ok ? 'ok' : r.error.code;
      codes.set(got, (codes.get(got) ?? 0) + 1);
      const problems: string[] = [];
      if (ms > TIMEOUT_MS + SLACK_MS) problems.push(`took ${ms.toFixed(0)} ms`);
      if (c.expect === 'ok') {
        if (!r.ok) problems.push(`failed: ${r.error.code} ${r.error.message}`);
        // Stored whole: one more query, with every item of the body.
        else if (after.queries !== before.queries + 1 || after.features - before.features !== c.items || last.outcome !== 'ok') problems.push(`stored ${JSON.stringify({ before, after, last })}`);
        else ok++;
      } else {
        if (r.ok) problems.push('answered ok');
        else {
          if (!ErrorCode.safeParse(r.error.code).success || !c.expect.includes(r.error.code)) problems.push(`${r.error.code}: ${r.error.message}`);
          // At most the error itself is kept for history: no items, nothing marked as an answer.
          if (after.features !== before.features) problems.push(`${after.features - before.features} item(s) stored`);
          if (after.queries > before.queries && !(last.outcome === 'error' && last.feature_count === 0)) problems.push(`stored as ${JSON.stringify(last)}`);
        }
      }
      if (problems.length) wrong.push(`${c.name}: ${problems.join('; ')}`);
    }
    console.log(
      `hostile answers: ${all.length} cases, ${ok} answered whole, ${all.length - ok} refused; results ${JSON.stringify(Object.fromEntries(codes))}; ` +
        `slowest ${slowest.toFixed(0)} ms (timeout ${TIMEOUT_MS} ms); wrong ${wrong.length}`,
    );
    expect(all.length).toBeGreaterThanOrEqual(100);
    expect(wrong).toEqual([]);
    // Redirects were never followed: the other host saw no request, so no key either.
    expect(other.arrivals).toEqual([]);
    // The database is sound after all of it.
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
  });

  it('media: a redirect from the service is refused, one from a third-party server (sent no key) is followed', async () => {
    const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3, 4]);
    const cdn = await new HostileServer().start();
    try {
      cdn.behaviour = (res, later, path) =>
        path === '/moved.jpg' ? send(302, '', { location: '/photo.jpg' })(res, later, path) : send(200, jpeg, { 'content-type': 'image/jpeg' })(res, later, path);
      hostile.behaviour = send(302, '', { location: `${cdn.url}/photo.jpg` });
      const own = await rpc.call('media.get', { url: `${hostile.url}/media/1.jpg` });
      expect(own.ok ? 'ok' : [own.error.code, own.error.message]).toEqual(['HTTP', expect.stringContaining(`redirect to ${cdn.url}`)]);
      expect(cdn.arrivals).toEqual([]);
      const third = value(await rpc.call('media.get', { url: `${cdn.url}/moved.jpg` }));
      expect(Buffer.from(third.dataBase64, 'base64')).toEqual(jpeg);
      expect(cdn.arrivals.map((a) => [a.path, a.headers['authorization'], a.headers['x-api-key']])).toEqual([
        ['/moved.jpg', undefined, undefined],
        ['/photo.jpg', undefined, undefined],
      ]);
    } finally {
      await cdn.stop();
    }
  });
});
