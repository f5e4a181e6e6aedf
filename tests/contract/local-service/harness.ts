import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { createMemoryLogger } from '../../../electron/ground/logger';
import { defaultCatalogDir, loadCatalog, type Catalog } from '../../../electron/local-service/catalog/catalog';
import { createLocalService, type LocalService, type LocalServiceOptions } from '../../../electron/local-service/server';
import { DATABASE_FILE } from '../../../electron/local-service/store';
import { afterAll } from 'vitest';
import { ComputeResponseExact, type ComputeResponse } from '../../../shared/service/compute';
import { Problem } from '../../../shared/service/problem';
import type { QuestionReading } from '../../../shared/service/reading';
import { startPgCluster, type PgCluster } from '../../support/pg-cluster';

export const KEYS = { bearer: 'test-bearer-key-0001', search: 'test-search-key-0001' };

let shared: Catalog | null = null;
/** One catalog per test file: loading it takes about half a second. */
export function catalog(): Catalog {
  return (shared ??= loadCatalog(defaultCatalogDir()));
}

/**
 * The storage backend the suites run against: the embedded SQLite default, or PostGIS with
 * FIELDLENS_TEST_BACKEND=postgis (a throwaway cluster per test file, a database per data folder,
 * so a restart on the same folder finds the same saved results).
 */
export const BACKEND: 'sqlite' | 'postgis' = process.env['FIELDLENS_TEST_BACKEND'] === 'postgis' ? 'postgis' : 'sqlite';
let cluster: PgCluster | null = null;
const databases = new Map<string, string>();
if (BACKEND === 'postgis') afterAll(() => cluster?.stop());

/** The database URL of a data folder on the PostGIS backend (made on first use); undefined on SQLite. */
export async function databaseFor(dataDir: string): Promise<string | undefined> {
  if (BACKEND !== 'postgis') return undefined;
  cluster ??= startPgCluster();
  let url = databases.get(dataDir);
  if (!url) databases.set(dataDir, (url = await cluster.createDatabase()));
  return url;
}

export interface Running {
  service: LocalService;
  baseUrl: string;
  searchBaseUrl: string;
  dataDir: string;
  logger: ReturnType<typeof createMemoryLogger>;
}

export async function startService(
  opts: { dataDir?: string; answerFault?: boolean; catalog?: Catalog; clock?: () => Date; options?: Partial<LocalServiceOptions> } = {},
): Promise<Running> {
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'fieldlens-svc-'));
  const logger = createMemoryLogger();
  const service = createLocalService({
    dataDir,
    keys: KEYS,
    logger,
    clock: opts.clock ?? (() => new Date('2026-01-02T03:04:05Z')),
    answerFault: opts.answerFault,
    catalog: opts.catalog ?? catalog(),
    database: await databaseFor(dataDir),
    ...opts.options,
  });
  const urls = await service.start();
  return { service, dataDir, logger, ...urls };
}

export async function stopService(r: Running, removeData = true): Promise<void> {
  await r.service.close();
  if (removeData) rmSync(r.dataDir, { recursive: true, force: true });
}

export interface Reply<T> {
  status: number;
  contentType: string;
  body: T;
}

export async function postJson<T = unknown>(r: Running, body: unknown, headers: Record<string, string> = {}): Promise<Reply<T>> {
  const res = await fetch(`${r.baseUrl}/v1/compute`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEYS.bearer}`, 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, contentType: res.headers.get('content-type') ?? '', body: (await res.json()) as T };
}

export async function postForm<T = unknown>(r: Running, form: FormData, headers: Record<string, string> = {}): Promise<Reply<T>> {
  const res = await fetch(`${r.baseUrl}/v1/compute`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEYS.bearer}`, ...headers },
    body: form,
  });
  return { status: res.status, contentType: res.headers.get('content-type') ?? '', body: (await res.json()) as T };
}

/** A 200 compute response, checked against the exact spec schema. */
export async function compute(r: Running, body: Record<string, unknown>, headers?: Record<string, string>): Promise<ComputeResponse> {
  const res = await postJson(r, body, headers);
  if (res.status !== 200) throw new Error(`compute ${res.status}: ${JSON.stringify(res.body)}`);
  return ComputeResponseExact.parse(res.body);
}

export async function computeForm(r: Running, form: FormData): Promise<ComputeResponse> {
  const res = await postForm(r, form);
  if (res.status !== 200) throw new Error(`compute ${res.status}: ${JSON.stringify(res.body)}`);
  return ComputeResponseExact.parse(res.body);
}

/** A problem+json error, checked against the shared Problem schema. */
export function problem(res: Reply<unknown>) {
  const p = Problem.parse(res.body);
  return { ...p, contentType: res.contentType };
}

/** The refusal of a question not read in full: a 422 problem+json naming what was not read. */
export interface UnreadProblem {
  status: number;
  contentType: string;
  detail: string;
  code: string;
  unread: { words: string; why: string; step?: string }[];
  reading: string;
  plan: QuestionReading;
  holds?: { subject: string; columns: string[] };
  layers?: string[];
}

/** Posts a question (JSON, or a form with files) that must be refused; fails on any other answer. */
export async function refused(r: Running, body: Record<string, unknown> | FormData): Promise<UnreadProblem> {
  const res = body instanceof FormData ? await postForm(r, body) : await postJson(r, body);
  if (res.status !== 422) throw new Error(`expected a 422 refusal, got ${res.status}: ${JSON.stringify(res.body).slice(0, 600)}`);
  const p = problem(res) as ReturnType<typeof problem> & Omit<UnreadProblem, 'status' | 'contentType'>;
  return { ...p, status: res.status, detail: p.detail ?? '' };
}

export function fileForm(fields: Record<string, string>, files: { name: string; text: string; field?: string }[]): FormData {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  for (const f of files) form.append(f.field ?? 'files', new Blob([f.text]), f.name);
  return form;
}

/** A saved result row written straight into the backend's database (an empty set of cities), as an older build left it. */
export async function insertSavedRow(r: Running, id: string, catalogVersion: string): Promise<void> {
  const url = await databaseFor(r.dataDir);
  if (!url) {
    const db = new Database(join(r.dataDir, DATABASE_FILE));
    db.prepare(
      `INSERT INTO searches (id, created_at, user_id, query, parent_id, catalog_version, subject, items, uploads)
       VALUES (?, '2020-01-01', NULL, 'old', NULL, ?, 'city', '[]', '[]')`,
    ).run(id, catalogVersion);
    db.close();
    return;
  }
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query(
      `INSERT INTO searches (id, created_at, user_id, query, parent_id, catalog_version, subject, figures, items_bin, uploads)
       VALUES ($1, '2020-01-01', NULL, 'old', NULL, $2, 'city', '{}', $3, '[]')`,
      [id, catalogVersion, Buffer.alloc(8)],
    );
  } finally {
    await c.end();
  }
}

/** A query's first column of its first row, on the backend's database (a count, a size). */
export async function scalar(r: Running, sql: string): Promise<number> {
  const url = await databaseFor(r.dataDir);
  if (!url) {
    const db = new Database(join(r.dataDir, DATABASE_FILE), { readonly: true });
    try {
      return Number(db.prepare(sql).pluck().get());
    } finally {
      db.close();
    }
  }
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return Number(Object.values((await c.query(sql)).rows[0] as object)[0]);
  } finally {
    await c.end();
  }
}

/** Bytes the saved results and uploads take: the SQLite file with its WAL copied back, or the PostgreSQL tables with their TOAST and indexes. */
export async function storedBytes(r: Running): Promise<number> {
  const url = await databaseFor(r.dataDir);
  if (url) return scalar(r, `SELECT sum(pg_total_relation_size(t)) FROM unnest(ARRAY['searches', 'uploads', 'upload_chunks', 'search_uploads']) t`);
  const db = new Database(join(r.dataDir, DATABASE_FILE));
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
  return readdirSync(r.dataDir)
    .filter((f) => f.startsWith(DATABASE_FILE))
    .reduce((sum, f) => sum + statSync(join(r.dataDir, f)).size, 0);
}

/** Waits until `n` result sets are written (saves are written behind). */
export async function savedCount(r: Running, n: number): Promise<number> {
  const until = Date.now() + 10_000;
  let got = await scalar(r, 'SELECT count(*) FROM searches');
  while (got < n && Date.now() < until) {
    await new Promise((ok) => setTimeout(ok, 25));
    got = await scalar(r, 'SELECT count(*) FROM searches');
  }
  return got;
}
