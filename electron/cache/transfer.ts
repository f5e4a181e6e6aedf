import { createHash } from 'node:crypto';
import type { Database } from 'better-sqlite3';
import type { CacheDb } from './db';
import { FEATURE_ID_SPAN } from './migrations';
import { RUN } from './store-response';

// Moving whole cached queries between caches (offline area packs): every row of a query, keyed so
// that the same query carried twice lands once.

export type Row = Record<string, unknown>;

/** A query's item tables: their rows are keyed by rank, the row id less the query's base. */
export const ITEM_TABLES = ['features', 'observations', 'imagery_records'] as const;
export type ItemTable = (typeof ITEM_TABLES)[number];

/** Everything the cache holds of one query, with no local ids left in it. */
export interface QueryRows {
  key: string;
  /** Every column of `queries` but id; rerun_of is replaced by the key of that query (or null). */
  query: Row;
  rerunOfKey: string | null;
  /** Per item table: the rows with `rank` in place of id (and query_id). */
  items: Record<ItemTable, Row[]>;
  uploads: { field: string; position: number; name: string; sha256: string; size: number; contentType: string | null; content: Buffer; createdAt: number }[];
}

/** An upload link row (query_uploads joined with uploads, or a pack's copy of it) as carried. */
export function uploadFromRow(u: Row): QueryRows['uploads'][number] {
  return {
    field: u['field'] as string,
    position: u['position'] as number,
    name: u['name'] as string,
    sha256: u['sha256'] as string,
    size: u['size'] as number,
    contentType: u['content_type'] as string | null,
    content: u['content'] as Buffer,
    createdAt: u['created_at'] as number,
  };
}

/**
 * The stable key of a query: what was asked, by which connection, and when. None of it changes
 * when the query is carried to another cache, and two different queries never share all of it.
 */
export function queryKey(q: { kind: unknown; profile_id: unknown; started_at: unknown; finished_at: unknown; request_json: unknown }): string {
  return createHash('sha256')
    .update(JSON.stringify([q.kind, q.profile_id, q.started_at, q.finished_at, q.request_json]))
    .digest('hex');
}

/** Column names of a cache table, read from the table (its migration is the one list). */
export function columnsOf(db: Database, table: string): { name: string; type: string }[] {
  return (db.pragma(`table_info(${table})`) as { name: string; type: string }[]).map(({ name, type }) => ({ name, type }));
}

const KEY_COLUMNS = 'id, kind, profile_id, started_at, finished_at, request_json';

/** Key -> local id of every cached query. */
export function queryKeys(c: CacheDb): Map<string, number> {
  const out = new Map<string, number>();
  for (const r of c.stmt(`SELECT ${KEY_COLUMNS} FROM queries`).iterate() as Iterable<Row & { id: number }>) out.set(queryKey(r as never), r.id);
  return out;
}

export function queryRows(c: CacheDb, id: number): QueryRows | null {
  const q = c.stmt('SELECT * FROM queries WHERE id = ?').get(id) as Row | undefined;
  if (!q) return null;
  const lo = id * FEATURE_ID_SPAN;
  const hi = lo + FEATURE_ID_SPAN - 1;
  const items = {} as Record<ItemTable, Row[]>;
  for (const t of ITEM_TABLES) {
    items[t] = (c.stmt(`SELECT * FROM ${t} WHERE id BETWEEN ? AND ? ORDER BY id`).all(lo, hi) as Row[]).map(({ id: rowId, query_id: _q, ...rest }) => ({
      rank: (rowId as number) - lo,
      ...rest,
    }));
  }
  const uploads = (
    c.stmt(
      `SELECT qu.field, qu.position, qu.name, u.sha256, u.size, u.content_type, u.content, u.created_at
       FROM query_uploads qu JOIN uploads u ON u.id = qu.upload_id WHERE qu.query_id = ? ORDER BY qu.field, qu.position`,
    ).all(id) as Row[]
  ).map(uploadFromRow);
  const rerunOf = q['rerun_of'] as number | null;
  const parent = rerunOf === null ? undefined : (c.stmt(`SELECT ${KEY_COLUMNS} FROM queries WHERE id = ?`).get(rerunOf) as Row | undefined);
  const { id: _id, ...query } = q;
  return { key: queryKey(q as never), query: { ...query, rerun_of: null }, rerunOfKey: parent ? queryKey(parent as never) : null, items, uploads };
}

/**
 * Stores a carried query. A query already here (same key) keeps its id and its items (a cached
 * response never changes), and its columns are brought up to the carried ones. Runs in the
 * caller's transaction when there is one.
 */
export function importQuery(c: CacheDb, rows: QueryRows, keys: Map<string, number>): { id: number; added: boolean } {
  const cols = columnsOf(c.db, 'queries')
    .map((x) => x.name)
    .filter((n) => n !== 'id' && n in rows.query);
  const rerunOf = rows.rerunOfKey ? (keys.get(rows.rerunOfKey) ?? null) : null;
  const values = cols.map((n) => (n === 'rerun_of' ? rerunOf : rows.query[n]));
  const existing = keys.get(rows.key);
  if (existing !== undefined) {
    c.stmt(`UPDATE queries SET ${cols.map((n) => `${n} = ?`).join(', ')} WHERE id = ?`).run(...(values as unknown[]), existing);
    return { id: existing, added: false };
  }
  const id = Number(
    c.stmt(`INSERT INTO queries (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`).run(...(values as unknown[])).lastInsertRowid,
  );
  keys.set(rows.key, id);
  // The same history indexes storing the response made (store-response.ts): words, extent, runs.
  c.stmt('INSERT INTO queries_fts (rowid, query_text) VALUES (?, ?)').run(id, rows.query['query_text']);
  if (rows.query['minx'] != null)
    c.stmt('INSERT INTO queries_rtree (id, minx, maxx, miny, maxy) VALUES (?, ?, ?, ?, ?)').run(
      id, rows.query['minx'], rows.query['maxx'], rows.query['miny'], rows.query['maxy'],
    );
  const words = [rows.query['query_text'], ...rows.items.features.flatMap((f) => [f['name'], f['address']])].filter((w) => typeof w === 'string' && w);
  c.stmt('INSERT INTO entry_words (rowid, words) VALUES (?, ?)').run(id, words.join('\n'));
  const base = id * FEATURE_ID_SPAN;
  for (const t of ITEM_TABLES) {
    const list = rows.items[t];
    if (!list.length) continue;
    const tcols = columnsOf(c.db, t)
      .map((x) => x.name)
      .filter((n) => n !== 'id' && n !== 'query_id');
    const withQuery = t === 'features';
    const ins = c.stmt(
      `INSERT INTO ${t} (id${withQuery ? ', query_id' : ''}, ${tcols.join(', ')}) VALUES (?${withQuery ? ', ?' : ''}${', ?'.repeat(tcols.length)})`,
    );
    for (const r of list) {
      const head = withQuery ? [base + (r['rank'] as number), id] : [base + (r['rank'] as number)];
      ins.run(...head, ...tcols.map((n) => r[n] ?? null));
    }
  }
  const n = rows.items.features.length;
  if (n) {
    // The same index entries storing the response made: one R*Tree entry per run of features.
    const insRun = c.stmt('INSERT INTO features_rtree (id, minx, maxx, miny, maxy, last_id) VALUES (?, ?, ?, ?, ?, ?)');
    const insRunRow = c.stmt('INSERT INTO feature_runs (id, last_id, minx, miny, maxx, maxy) VALUES (?, ?, ?, ?, ?, ?)');
    const box = c.stmt(
      'SELECT min(minx) AS x0, max(maxx) AS x1, min(miny) AS y0, max(maxy) AS y1 FROM features WHERE id BETWEEN ? AND ?',
    );
    const last = (rows.items.features.at(-1)!['rank'] as number) + 1;
    for (let start = 0; start < last; start += RUN) {
      const end = Math.min(last, start + RUN) - 1;
      const b = box.get(base + start, base + end) as { x0: number | null; x1: number; y0: number; y1: number };
      if (b.x0 === null) continue;
      insRun.run(base + start, b.x0, b.x1, b.y0, b.y1, base + end);
      insRunRow.run(base + start, base + end, b.x0, b.y0, b.x1, b.y1);
    }
    c.stmt('INSERT INTO features_fts (rowid, name, address) SELECT id, name, address FROM features WHERE id BETWEEN ? AND ?').run(
      base,
      base + FEATURE_ID_SPAN - 1,
    );
  }
  const insUpload = c.stmt(
    `INSERT INTO uploads (sha256, name, size, content_type, content, created_at) VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT (sha256) DO NOTHING`,
  );
  const findUpload = c.stmt('SELECT id FROM uploads WHERE sha256 = ?').pluck();
  const link = c.stmt('INSERT OR REPLACE INTO query_uploads (query_id, upload_id, field, position, name) VALUES (?, ?, ?, ?, ?)');
  for (const u of rows.uploads) {
    insUpload.run(u.sha256, u.name, u.size, u.contentType, u.content, u.createdAt);
    link.run(id, findUpload.get(u.sha256) as number, u.field, u.position, u.name);
  }
  return { id, added: true };
}

/** URLs of the media the items of these queries show (images and videos), with their cached size (null: never viewed, so not cached). */
export function mediaUrlsOf(c: CacheDb, ids: readonly number[]): { url: string; size: number | null }[] {
  const stmt = c.stmt(
    `SELECT u.url, m.size FROM (
       SELECT image_url AS url FROM observations WHERE id BETWEEN @lo AND @hi
       UNION SELECT video_url FROM observations WHERE id BETWEEN @lo AND @hi
       UNION SELECT image FROM imagery_records WHERE id BETWEEN @lo AND @hi) u
     LEFT JOIN media m ON m.url = u.url WHERE u.url IS NOT NULL AND u.url != ''`,
  );
  const out = new Map<string, number | null>();
  for (const id of ids)
    for (const r of stmt.all({ lo: id * FEATURE_ID_SPAN, hi: id * FEATURE_ID_SPAN + FEATURE_ID_SPAN - 1 }) as { url: string; size: number | null }[])
      out.set(r.url, r.size);
  return [...out].map(([url, size]) => ({ url, size }));
}

/** What carrying these queries takes: items, response bytes, and distinct uploads. */
export function footprint(c: CacheDb, ids: readonly number[]): { features: number; rawBytes: number; uploads: { count: number; bytes: number } } {
  const q = c.stmt('SELECT feature_count, coalesce(length(raw_response), 0) AS raw FROM queries WHERE id = ?');
  const up = c.stmt('SELECT u.sha256, u.size FROM query_uploads qu JOIN uploads u ON u.id = qu.upload_id WHERE qu.query_id = ?');
  let features = 0;
  let rawBytes = 0;
  const uploads = new Map<string, number>();
  for (const id of ids) {
    const r = q.get(id) as { feature_count: number; raw: number } | undefined;
    if (!r) continue;
    features += r.feature_count;
    rawBytes += r.raw;
    for (const u of up.all(id) as { sha256: string; size: number }[]) uploads.set(u.sha256, u.size);
  }
  return { features, rawBytes, uploads: { count: uploads.size, bytes: [...uploads.values()].reduce((a, b) => a + b, 0) } };
}
