import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import Fastify, { type FastifyInstance } from 'fastify';
import { createMemoryLogger } from '../../../electron/ground/logger';
import { createImageryPlugin, type ImageryPluginOptions, type ImageryPlugin } from '../../../electron/local-service/imagery';
import type { ServiceContext } from '../../../electron/local-service/imagery/plugin-types';

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
  db: Database.Database;
  dataDir: string;
  stream(body: unknown): Promise<{ status: number; json: unknown }>;
  searchReq(body: unknown): Promise<{ status: number; json: unknown }>;
  /** GET a media URL from a response on the host that issued it. */
  media(url: string): Promise<{ status: number; type: string | undefined; body: Buffer }>;
  close(): Promise<void>;
}

export async function startHarness(
  opts: Partial<ImageryPluginOptions> & { photoDirs: string[] },
  prepareDb?: (db: Database.Database) => void,
  catalog?: ServiceContext['catalog'],
): Promise<Harness> {
  const dataDir = mkdtempSync(join(tmpdir(), 'fl-imagery-data-'));
  const db = new Database(join(dataDir, 'service.sqlite'));
  db.pragma('journal_mode = WAL');
  prepareDb?.(db);
  const ctx: ServiceContext = {
    dataDir,
    db,
    logger: createMemoryLogger(),
    clock: () => new Date(),
    baseUrl: () => BASE_URL,
    searchBaseUrl: () => SEARCH_URL,
    catalog,
  };
  const plugin = createImageryPlugin({ watch: false, ...opts });
  const base = Fastify();
  const search = Fastify();
  authHook(base, 'base');
  authHook(search, 'search');
  await plugin.registerBase!(base, ctx);
  await plugin.registerSearch!(search, ctx);
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
      db.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
