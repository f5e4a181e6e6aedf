import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../../../electron/ground/logger';
import type { LocalServicePlugin, ServiceContext } from '../../../electron/local-service/plugin';
import { createLocalService, type LocalService } from '../../../electron/local-service/server';
import { PROBLEM_CONTENT_TYPE } from '../../../shared/service/problem';
import { BACKEND, catalog, databaseFor, KEYS } from './harness';

let service: LocalService;
let urls: { baseUrl: string; searchBaseUrl: string };
let seen: ServiceContext | null = null;
let closed = false;
const dataDir = mkdtempSync(join(tmpdir(), 'fieldlens-plugin-'));
const logger = createMemoryLogger();

const plugin: LocalServicePlugin = {
  name: 'probe',
  registerBase(app, ctx) {
    seen = ctx;
    app.post('/v1/echo', async (req) => ({ got: req.body, base: ctx.baseUrl(), search: ctx.searchBaseUrl() }));
    app.get('/media/:name', { config: { auth: false } }, async (req) => ({ name: (req.params as { name: string }).name }));
    app.get('/v1/boom', async () => {
      throw new Error('plugin failure');
    });
  },
  registerSearch(app) {
    app.post('/search', async () => ({ isSuccess: true }));
  },
  close() {
    closed = true;
  },
};

beforeAll(async () => {
  service = createLocalService({ dataDir, keys: KEYS, logger, clock: () => new Date(), catalog: catalog(), plugins: [plugin] });
  urls = await service.start();
});
afterAll(async () => {
  await service.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const bearer = { authorization: `Bearer ${KEYS.bearer}` };

describe('plugins', () => {
  it('get the context: data folder, the migrated database, and both addresses once listening', async () => {
    expect(seen!.dataDir).toBe(dataDir);
    expect(seen!.db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(seen!.db.prepare("SELECT version FROM migrations WHERE scope = 'compute'").pluck().get()).toBe(4);
    const res = await fetch(`${urls.baseUrl}/v1/echo`, { method: 'POST', headers: { ...bearer, 'content-type': 'application/json' }, body: '{"a":1}' });
    expect(await res.json()).toEqual({ got: { a: 1 }, base: urls.baseUrl, search: urls.searchBaseUrl });
  });

  it('routes get the host auth unless they opt out', async () => {
    expect((await fetch(`${urls.baseUrl}/v1/echo`, { method: 'POST' })).status).toBe(401);
    expect((await fetch(`${urls.baseUrl}/media/x.jpg`)).status).toBe(200);
    expect((await fetch(`${urls.searchBaseUrl}/search`, { method: 'POST', headers: bearer })).status).toBe(401);
    expect((await fetch(`${urls.searchBaseUrl}/search`, { method: 'POST', headers: { 'x-api-key': KEYS.search } })).status).toBe(200);
  });

  it('errors in plugin routes become problem+json 500, logged, and the server keeps serving', async () => {
    const res = await fetch(`${urls.baseUrl}/v1/boom`, { headers: bearer });
    expect(res.status).toBe(500);
    expect(res.headers.get('content-type')).toContain(PROBLEM_CONTENT_TYPE);
    expect(JSON.stringify(await res.json())).not.toContain('plugin failure');
    expect(logger.lines.some((l) => l.includes('plugin failure'))).toBe(true);
    expect((await fetch(`${urls.baseUrl}/health`)).status).toBe(200);
  });

  it('415 and 400 apply to plugin routes too', async () => {
    const t = await fetch(`${urls.baseUrl}/v1/echo`, { method: 'POST', headers: { ...bearer, 'content-type': 'text/plain' }, body: 'x' });
    expect(t.status).toBe(415);
    const j = await fetch(`${urls.baseUrl}/v1/echo`, { method: 'POST', headers: { ...bearer, 'content-type': 'application/json' }, body: '{' });
    expect(j.status).toBe(400);
  });

  it('are closed with the service', async () => {
    const other = createLocalService({ dataDir, keys: KEYS, logger, clock: () => new Date(), catalog: catalog(), plugins: [{ ...plugin, name: 'p2' }] });
    closed = false;
    await other.start();
    await other.close();
    expect(closed).toBe(true);
  });
});

describe('plugins of a service on PostgreSQL', () => {
  it.skipIf(BACKEND !== 'postgis')('get the service\'s pool on its database, open until the plugins have closed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fieldlens-plugin-pg-'));
    const url = (await databaseFor(dir))!;
    let ctx: ServiceContext | null = null;
    let atClose: unknown = null;
    const onPg = createLocalService({
      dataDir: dir, keys: KEYS, logger, clock: () => new Date(), catalog: catalog(), database: url,
      plugins: [
        {
          name: 'pg-probe',
          registerBase(_app, c) {
            ctx = c;
          },
          async close() {
            atClose = (await ctx!.pool!.query('SELECT 1 AS one')).rows;
          },
        },
      ],
    });
    try {
      await onPg.start();
      const db = (await ctx!.pool!.query<{ db: string }>('SELECT current_database() AS db')).rows[0]!.db;
      expect(db).toBe(new URL(url).pathname.slice(1));
    } finally {
      await onPg.close();
      rmSync(dir, { recursive: true, force: true });
    }
    expect(atClose).toEqual([{ one: 1 }]);
  });

  it('get no pool on the embedded backend', () => {
    expect(seen!.pool).toBeUndefined();
  });
});
