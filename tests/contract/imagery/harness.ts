import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import Fastify, { type FastifyInstance } from 'fastify';
import type pg from 'pg';
import { createMemoryLogger } from '../../../electron/ground/logger';
import { createImageryPlugin, type ImageryPluginOptions, type ImageryPlugin } from '../../../electron/local-service/imagery';
import type { ServiceContext } from '../../../electron/local-service/imagery/plugin-types';
import { openPgPool } from '../../../electron/local-service/pg/database';
import { BACKEND, databaseFor } from '../local-service/harness';

export { BACKEND, databaseFor };

export const KEY = 'test-key-0123456789';
export const BASE_URL = 'http://127.0.0.1:7001';
export const SEARCH_URL = 'http://127.0.0.1:7002';

/** Test-only key check in the shape of the service's per-host hook (route config auth: false opts out). */
function authHook(app: FastifyInstance, host: 'base' | 'search') {
  app.addHook('onRequest', async (req, reply) => {
    if (req.routeOptions.config?.auth === false) return;
    const ok = host === 'base' ? req.headers.authorization === `Bearer ${KEY}` : req.headers['x-api-key'] === KEY;
    if (!ok) await reply.code(401).type('application/problem+json').send({ type: 'about:blank', title: 'Unauthorized', status: 401 });
  });
}

export interface Harness {
  base: FastifyInstance;
  search: FastifyInstance;
  plugin: ImageryPlugin;
  /** The data folder's SQLite database (the catalog's home on the embedded backend). */
  db: Database.Database;
  /** The catalog's PostgreSQL database on the PostGIS backend. */
  pool: pg.Pool | undefined;
  dataDir: string;
  stream(body: unknown): Promise<{ status: number; json: unknown }>;
  searchReq(body: unknown): Promise<{ status: number; json: unknown }>;
  /** GET a media URL from a response on the host that issued it. */
  media(url: string): Promise<{ status: number; type: string | undefined; body: Buffer }>;
  close(): Promise<void>;
}

/** Done to the catalog's database before the plugin opens it, on whichever backend the suite runs. */
export interface PrepareDb {
  sqlite?(db: Database.Database): void;
  postgis?(pool: pg.Pool): Promise<void>;
}

/**
 * A plugin on two hosts, its catalog in the data folder's SQLite or, with
 * FIELDLENS_TEST_BACKEND=postgis, in a database of the file's throwaway cluster. Harnesses given
 * the same `database` key share one database (several service processes of a team).
 */
export async function startHarness(
  opts: Partial<ImageryPluginOptions> & { photoDirs: string[]; routes?: (base: FastifyInstance) => void },
  prepareDb?: PrepareDb,
  catalog?: ServiceContext['catalog'],
  shared?: { database: string },
): Promise<Harness> {
  const dataDir = mkdtempSync(join(tmpdir(), 'fl-imagery-data-'));
  const db = new Database(join(dataDir, 'service.sqlite'));
  db.pragma('journal_mode = WAL');
  const url = await databaseFor(shared?.database ?? dataDir);
  const pool = url ? openPgPool({ url }) : undefined;
  prepareDb?.sqlite?.(db);
  if (pool) await prepareDb?.postgis?.(pool);
  const ctx: ServiceContext = {
    dataDir,
    db,
    pool,
    logger: createMemoryLogger(),
    clock: () => new Date(),
    baseUrl: () => BASE_URL,
    searchBaseUrl: () => SEARCH_URL,
    catalog,
  };
  const { routes, ...pluginOpts } = opts;
  const plugin = createImageryPlugin({ watch: false, ...pluginOpts });
  const base = Fastify();
  const search = Fastify();
  authHook(base, 'base');
  authHook(search, 'search');
  await plugin.registerBase!(base, ctx);
  await plugin.registerSearch!(search, ctx);
  routes?.(base);
  await base.ready();
  await search.ready();
  // A failing first scan is what some tests look at; they see it in the responses.
  await plugin.catalog()!.ready().catch(() => undefined);
  const post = async (app: FastifyInstance, url: string, headers: Record<string, string>, body: unknown) => {
    const res = await app.inject({ method: 'POST', url, headers, payload: body as object });
    return { status: res.statusCode, json: res.json() };
  };
  return {
    base,
    search,
    plugin,
    db,
    pool,
    dataDir,
    stream: (body) => post(base, '/v1/stream', { authorization: `Bearer ${KEY}` }, body),
    searchReq: (body) => post(search, '/search', { 'x-api-key': KEY }, body),
    async media(url) {
      const u = new URL(url);
      const app = u.origin === BASE_URL ? base : search;
      const res = await app.inject({ method: 'GET', url: u.pathname + u.search });
      return { status: res.statusCode, type: res.headers['content-type'] as string | undefined, body: res.rawPayload };
    },
    async close() {
      await plugin.close?.();
      await base.close();
      await search.close();
      await pool?.end();
      db.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
