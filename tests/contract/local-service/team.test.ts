import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../../../electron/ground/logger';
import type { LocalServicePlugin } from '../../../electron/local-service/plugin';
import { createLocalService, type LocalService } from '../../../electron/local-service/server';
import { createKeyring, newKey, parseUsersFile } from '../../../electron/local-service/team/keyring';
import { startPgCluster, type PgCluster } from '../../support/pg-cluster';
import { catalog } from './harness';

/**
 * The service as a team runs it: PostGIS, keys mapped to users (hashes only), per-key rate
 * limits, request logs, health routes and a drain on shutdown.
 */

let cluster: PgCluster;
let dataDir: string;
let database: string;
let service: LocalService;
let urls: { baseUrl: string; searchBaseUrl: string };
const logger = createMemoryLogger();
const keys: Record<'alice' | 'bob' | 'carol', string> = { alice: '', bob: '', carol: '' };
/** Everything the service sent back: bodies and headers, for the leak sweep. */
const seen: string[] = [];
let release: () => void = () => {};

// A route that waits until released: a request in flight at shutdown.
const slow: LocalServicePlugin = {
  name: 'slow',
  registerBase(app) {
    app.get('/v1/slow', async () => {
      await new Promise<void>((ok) => (release = ok));
      return { finished: true };
    });
  },
};

async function call(path: string, key: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${urls.baseUrl}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  seen.push(text, JSON.stringify([...res.headers]));
  return { status: res.status, headers: res.headers, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

beforeAll(async () => {
  cluster = startPgCluster();
  database = await cluster.createDatabase();
  dataDir = mkdtempSync(join(tmpdir(), 'fieldlens-team-'));
  const made = await Promise.all((['alice', 'bob', 'carol'] as const).map(async (u) => [u, await newKey(u)] as const));
  for (const [u, k] of made) keys[u] = k.key;
  service = createLocalService({
    dataDir,
    keys: { bearer: '', search: '' },
    keyring: createKeyring(parseUsersFile(made.map(([, k]) => k.line).join('\n'))),
    rateLimitPerMinute: 30,
    accessLog: true,
    database,
    logger,
    clock: () => new Date('2026-01-02T03:04:05Z'),
    catalog: catalog(),
    plugins: [slow],
    drainMs: 10_000,
  });
  urls = await service.start();
});
afterAll(async () => {
  await service?.close();
  cluster?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('a team service on PostGIS', () => {
  let aliceId = '';

  it('answers each user with their own key, on both hosts; other keys get 401', async () => {
    const res = await call('/v1/compute', keys.alice, { query: 'airports in Iceland' });
    expect(res.status).toBe(200);
    aliceId = res.body['id'] as string;
    expect(res.headers.get('x-request-id')).toMatch(/^[\w.:-]+$/);
    // Past the key check, the search host has no such route here (no imagery plugin): 404, not 401.
    expect((await fetch(`${urls.searchBaseUrl}/v1/none`, { headers: { 'x-api-key': keys.bob } })).status).toBe(404);
    expect((await fetch(`${urls.searchBaseUrl}/v1/none`, { headers: { 'x-api-key': 'wrong' } })).status).toBe(401);
    expect((await call('/v1/compute', 'fl_000000000000_notakeynotakeynotakey', { query: 'airports' })).status).toBe(401);
  });

  it("keeps saved queries per user: another user's search_id is 404, as an unknown one", async () => {
    const mine = await call('/v1/compute', keys.alice, { query: 'only large ones', search_id: aliceId });
    expect(mine.status).toBe(200);
    const theirs = await call('/v1/compute', keys.bob, { query: 'only large ones', search_id: aliceId });
    const unknown = await call('/v1/compute', keys.bob, { query: 'only large ones', search_id: '00000000-0000-4000-8000-000000000000' });
    expect(theirs.status).toBe(404);
    expect(unknown.status).toBe(404);
    expect(theirs.body['errors']).toEqual(unknown.body['errors']);
    expect(theirs.body['title']).toBe(unknown.body['title']);
    // Written under the key's user, in the database.
    const owner = execFileSync('psql', [database, '-Atc', `SELECT user_id FROM searches WHERE id = '${aliceId}'`], { encoding: 'utf8' }).trim();
    expect(owner).toBe('alice');
  });

  it('keeps a layer question under the key’s user too: its owner continues it, another user gets 404', async () => {
    const file = join(dataDir, 'pharmacies.geojson');
    const at = (lon: number, lat: number, name: string) => ({ type: 'Feature', geometry: { type: 'Point', coordinates: [lon, lat] }, properties: { amenity: 'pharmacy', name } });
    writeFileSync(file, JSON.stringify({ type: 'FeatureCollection', features: [at(-21.94, 64.14, 'Lyf Vesturbær'), at(-21.9, 64.13, 'Lyf Austur')] }));
    await service.layers.startImport(file).done;
    const asked = await call('/v1/compute', keys.alice, { query: 'pharmacies' });
    expect(asked.status).toBe(200);
    expect((asked.body['results'] as { numberMatched: number }).numberMatched).toBe(2);
    const id = asked.body['id'] as string;
    const owner = execFileSync('psql', [database, '-Atc', `SELECT user_id FROM searches WHERE id = '${id}'`], { encoding: 'utf8' }).trim();
    expect(owner).toBe('alice');
    const mine = await call('/v1/compute', keys.alice, { query: 'sort by distance to Reykjavik', search_id: id });
    expect(mine.status).toBe(200);
    expect((mine.body['results'] as { numberMatched: number }).numberMatched).toBe(2);
    expect((await call('/v1/compute', keys.bob, { query: 'sort by distance to Reykjavik', search_id: id })).status).toBe(404);
  });

  it('refuses a user_id other than the key’s user (403) and accepts the same one', async () => {
    const other = await call('/v1/compute', keys.alice, { query: 'airports in Iceland', user_id: 'bob' });
    expect(other.status).toBe(403);
    expect(other.body['errors']).toEqual([{ field: 'user_id', message: 'not the user of this key' }]);
    expect((await call('/v1/compute', keys.alice, { query: 'airports in Iceland', user_id: 'alice' })).status).toBe(200);
  });

  it('limits requests per key with 429 and Retry-After, leaving other keys alone', async () => {
    let limited: Awaited<ReturnType<typeof call>> | null = null;
    for (let i = 0; i < 40 && !limited; i++) {
      const r = await call('/v1/status', keys.carol);
      if (r.status === 429) limited = r;
      else expect(r.status).toBe(200);
    }
    expect(limited).not.toBeNull();
    // 30 a minute: the next token is at most 2 s away.
    const wait = Number(limited!.headers.get('retry-after'));
    expect(wait).toBeGreaterThanOrEqual(1);
    expect(wait).toBeLessThanOrEqual(2);
    expect((await call('/v1/status', keys.bob)).status).toBe(200);
  });

  it('answers /healthz and /readyz without a key', async () => {
    for (const base of [urls.baseUrl, urls.searchBaseUrl]) {
      expect((await fetch(`${base}/healthz`)).status).toBe(200);
      const ready = await fetch(`${base}/readyz`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toEqual({ status: 'ready' });
    }
  });

  it('logs one JSON line per request with its id, route, status and user, and neither keys nor questions', async () => {
    const r = await call('/v1/compute', keys.bob, { query: 'cities in Portugal over 100000 people' }, { 'x-request-id': 'trace-42' });
    expect(r.headers.get('x-request-id')).toBe('trace-42');
    const line = logger.lines.map((l) => JSON.parse(l) as { msg: string; detail: Record<string, unknown> }).find((l) => l.detail?.['request_id'] === 'trace-42');
    expect(line).toMatchObject({ msg: 'request', detail: { method: 'POST', route: '/v1/compute', status: 200, user: 'bob' } });
    expect(logger.lines.join('\n')).not.toContain('Portugal');
  });

  it('finds no key in the database, the logs or the responses', () => {
    const dump = execFileSync('pg_dump', ['--data-only', database], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
    expect(dump).toContain(aliceId);
    const haystacks = { database: dump, logs: logger.lines.join('\n'), responses: seen.join('\n') };
    for (const key of Object.values(keys)) {
      const secret = key.split('_').slice(2).join('_');
      for (const [where, text] of Object.entries(haystacks)) {
        expect(text.includes(key), `key in ${where}`).toBe(false);
        expect(text.includes(secret), `secret in ${where}`).toBe(false);
      }
    }
  });

  it('on shutdown finishes the request in flight, refuses new ones with 503 and reports not ready', async () => {
    const inFlight = call('/v1/slow', keys.bob);
    await new Promise((ok) => setTimeout(ok, 200));
    const closing = service.close();
    await new Promise((ok) => setTimeout(ok, 100));
    const ready = await fetch(`${urls.baseUrl}/readyz`);
    expect(ready.status).toBe(503);
    expect((await call('/v1/status', keys.bob)).status).toBe(503);
    release();
    const done = await inFlight;
    expect(done.status).toBe(200);
    expect(done.body).toEqual({ finished: true });
    await closing;
    await expect(fetch(`${urls.baseUrl}/healthz`)).rejects.toThrow();
  });
});

describe('readiness follows the database', () => {
  it('/readyz is 503 once the database is gone, while /healthz still answers', async () => {
    const url = await cluster.createDatabase();
    const dir = mkdtempSync(join(tmpdir(), 'fieldlens-team-ready-'));
    const svc = createLocalService({ dataDir: dir, keys: { bearer: 'k-0001', search: 's-0001' }, database: url, logger: createMemoryLogger(), clock: () => new Date(), catalog: catalog() });
    const { baseUrl } = await svc.start();
    try {
      expect((await fetch(`${baseUrl}/readyz`)).status).toBe(200);
      const name = new URL(url).pathname.slice(1);
      execFileSync('psql', [`postgres://postgres@127.0.0.1:${cluster.port}/postgres`, '-qc', `DROP DATABASE ${name} WITH (FORCE)`]);
      const res = await fetch(`${baseUrl}/readyz`);
      expect(res.status).toBe(503);
      expect(await res.json()).toEqual({ status: 'database unavailable' });
      expect((await fetch(`${baseUrl}/healthz`)).status).toBe(200);
    } finally {
      await svc.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
