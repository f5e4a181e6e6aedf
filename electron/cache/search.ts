import type { CacheDb } from './db';
import { FEATURE_ID_SPAN } from './migrations';
import { parse, summary, SUMMARY_COLUMNS, type QueryRow } from './rows';
import type { BBox } from './spatial';
import type { FeatureHit, ListFilter, QueryRecord, QuerySummary, StoredError, UploadInput } from './types';

// Reading the cache back: one query, lists by words, kind, date and area, and features.

/**
 * Turns a search box text into an FTS5 expression: every word must match. A word written with a
 * trailing `*` matches as a prefix; plain words match whole tokens, which FTS5 reads lazily and
 * so stays fast with LIMIT over millions of rows (prefix terms merge every matching doclist).
 * Words are split as the unicode61 tokenizer splits them, and quoted, so user input never becomes
 * a phrase or FTS syntax.
 */
export function ftsExpression(text: string): string | null {
  const terms: string[] = [];
  for (const chunk of text.split(/\s+/)) {
    const tokens = chunk.split(/[^\p{L}\p{N}\p{M}]+/u).filter(Boolean);
    tokens.forEach((t, i) => terms.push(i === tokens.length - 1 && chunk.endsWith('*') ? `"${t}"*` : `"${t}"`));
  }
  return terms.length ? terms.join(' ') : null;
}


export function get(c: CacheDb, id: number): QueryRecord | null {
  const r = c.stmt(`SELECT ${SUMMARY_COLUMNS}, raw_response FROM queries WHERE id = ?`).get(id) as
    | QueryRow
    | undefined;
  if (!r) return null;
  const uploads = c.stmt(
    `SELECT qu.field, qu.name, u.size, u.sha256 FROM query_uploads qu JOIN uploads u ON u.id = qu.upload_id
     WHERE qu.query_id = ? ORDER BY qu.field, qu.position`,
  ).all(id) as QueryRecord['uploads'];
  return {
    ...summary(r),
    request: parse(r.request_json),
    answerError: parse(r.answer_error_json),
    warnings: (parse(r.warnings_json) as unknown[] | null) ?? [],
    usage: parse(r.usage_json),
    error: parse(r.error_json) as StoredError | null,
    uploads,
    raw: r.raw_response == null ? null : typeof r.raw_response === 'string' ? r.raw_response : r.raw_response.toString('utf8'),
  };
}

/** The response body's bytes exactly as stored (text bodies as UTF-8); null when none was kept. */
export function rawResponse(c: CacheDb, id: number): Buffer | null {
  const r = c.stmt('SELECT raw_response FROM queries WHERE id = ?').get(id) as { raw_response: Buffer | string | null } | undefined;
  if (!r || r.raw_response == null) return null;
  return typeof r.raw_response === 'string' ? Buffer.from(r.raw_response, 'utf8') : r.raw_response;
}

/** The upload bytes kept with a query (for re-sending on rerun). */
export function uploadsOf(c: CacheDb, queryId: number): UploadInput[] {
  const rows = c.stmt(
    `SELECT qu.field, qu.name, u.content_type, u.content FROM query_uploads qu JOIN uploads u ON u.id = qu.upload_id
     WHERE qu.query_id = ? ORDER BY qu.field, qu.position`,
  ).all(queryId) as { field: 'files' | 'images'; name: string; content_type: string | null; content: Buffer }[];
  return rows.map((r) => ({
    field: r.field,
    name: r.name,
    content: r.content,
    ...(r.content_type ? { contentType: r.content_type } : {}),
  }));
}

export function list(c: CacheDb, filter: ListFilter = {}): { items: QuerySummary[]; hasMore: boolean } {
  const where: string[] = [];
  // The span is written into the SQL: a bound JS number is a REAL and would make '/' inexact.
  const params: Record<string, unknown> = {};
  if (filter.kind) {
    where.push('q.kind = @kind');
    params['kind'] = filter.kind;
  }
  if (filter.profileId) {
    where.push('q.profile_id = @profile');
    params['profile'] = filter.profileId;
  }
  if (filter.from !== undefined) {
    where.push('q.started_at >= @from');
    params['from'] = filter.from;
  }
  if (filter.to !== undefined) {
    where.push('q.started_at <= @to');
    params['to'] = filter.to;
  }
  // A map extent and a drawn area: the R*Tree names the entries with a run of features near the
  // box (cheap: no feature is read), then each of those entries is checked in its own features
  // (one rowid range) for one inside the box and, for a drawn area, inside its ring.
  const box = areaBox(filter.bbox, filter.polygon);
  if (box) {
    const inArea = filter.polygon ? 'AND fl_in_area((f.minx + f.maxx) / 2, (f.miny + f.maxy) / 2)' : '';
    where.push(`q.id IN (SELECT r.id / ${FEATURE_ID_SPAN} FROM features_rtree r
      WHERE r.maxx >= @minx AND r.minx <= @maxx AND r.maxy >= @miny AND r.miny <= @maxy)`);
    where.push(`EXISTS (SELECT 1 FROM features f
      WHERE f.id BETWEEN q.id * ${FEATURE_ID_SPAN} AND q.id * ${FEATURE_ID_SPAN} + ${FEATURE_ID_SPAN - 1}
        AND f.maxx >= @minx AND f.minx <= @maxx AND f.maxy >= @miny AND f.miny <= @maxy ${inArea})`);
    [params['minx'], params['miny'], params['maxx'], params['maxy']] = box;
  }
  const fts = filter.text ? ftsExpression(filter.text) : null;
  if (fts) {
    // Per entry: its own text, else any of its features (one rowid range of the index, which
    // FTS5 seeks), so a common word costs a seek per entry, not a pass over every matching feature.
    where.push(`(q.id IN (SELECT rowid FROM queries_fts WHERE queries_fts MATCH @fts)
      OR EXISTS (SELECT 1 FROM features_fts WHERE features_fts MATCH @fts
        AND features_fts.rowid BETWEEN q.id * ${FEATURE_ID_SPAN} AND q.id * ${FEATURE_ID_SPAN} + ${FEATURE_ID_SPAN - 1}))`);
    params['fts'] = fts;
  }
  const limit = filter.limit ?? 50;
  params['limit'] = limit + 1;
  params['offset'] = filter.offset ?? 0;
  const sql = `SELECT ${SUMMARY_COLUMNS} FROM queries q ${where.length ? 'WHERE ' + where.join(' AND ') : ''}
    ORDER BY q.started_at DESC, q.id DESC LIMIT @limit OFFSET @offset`;
  // Filter combinations are few; the statement cache keeps one prepared statement per shape.
  const run = () => c.stmt(sql).all(params) as QueryRow[];
  const rows = filter.polygon ? c.withArea(filter.polygon, run) : run();
  return { items: rows.slice(0, limit).map(summary), hasMore: rows.length > limit };
}

/** The box both filters allow: the extent, the ring's box, or their overlap (empty: nothing). */
function areaBox(bbox: BBox | undefined, ring: [number, number][] | undefined): BBox | null {
  let box: BBox | null = bbox ? [...bbox] : null;
  if (ring?.length) {
    const r: BBox = [Infinity, Infinity, -Infinity, -Infinity];
    for (const [x, y] of ring) {
      r[0] = Math.min(r[0], x);
      r[1] = Math.min(r[1], y);
      r[2] = Math.max(r[2], x);
      r[3] = Math.max(r[3], y);
    }
    box = box ? [Math.max(box[0], r[0]), Math.max(box[1], r[1]), Math.min(box[2], r[2]), Math.min(box[3], r[3])] : r;
  }
  // Disjoint extent and area: a box no feature can overlap (the query still runs, and finds none).
  if (box && (box[0] > box[2] || box[1] > box[3])) return [1, 1, 0, 0];
  return box;
}

/** Features of one query in response order. */
export function features(c: CacheDb, queryId: number): FeatureHit[] {
  const base = queryId * FEATURE_ID_SPAN;
  return hits(
    c.stmt(
      `SELECT id, query_id, seq, feature_id, name, address, minx, miny, maxx, maxy FROM features
       WHERE id BETWEEN ? AND ? ORDER BY seq`,
    ).all(base, base + FEATURE_ID_SPAN - 1),
  );
}

/** Features across all cached queries matching words and/or lying in a box. */
export function searchFeatures(c: CacheDb, opts: { text?: string; bbox?: BBox; limit?: number }): FeatureHit[] {
  const limit = opts.limit ?? 100;
  const fts = opts.text ? ftsExpression(opts.text) : null;
  const cols = 'f.id, f.query_id, f.seq, f.feature_id, f.name, f.address, f.minx, f.miny, f.maxx, f.maxy';
  const inBox = 'f.maxx >= ? AND f.minx <= ? AND f.maxy >= ? AND f.miny <= ?';
  const b = opts.bbox;
  const boxArgs = b ? [b[0], b[2], b[1], b[3]] : [];
  if (fts && b)
    return hits(
      c.stmt(
        `SELECT ${cols} FROM features_fts JOIN features f ON f.id = features_fts.rowid
         WHERE features_fts MATCH ? AND ${inBox} LIMIT ?`,
      ).all(fts, ...boxArgs, limit),
    );
  if (fts)
    return hits(
      c.stmt(
        `SELECT ${cols} FROM features_fts JOIN features f ON f.id = features_fts.rowid
         WHERE features_fts MATCH ? LIMIT ?`,
      ).all(fts, limit),
    );
  if (b)
    return hits(
      c.stmt(
        `SELECT ${cols} FROM features_rtree r JOIN features f ON f.id BETWEEN r.id AND r.last_id
         WHERE r.maxx >= ? AND r.minx <= ? AND r.maxy >= ? AND r.miny <= ? AND ${inBox} LIMIT ?`,
      ).all(b[0], b[2], b[1], b[3], ...boxArgs, limit),
    );
  return [];
}

function hits(rows: unknown[]): FeatureHit[] {
  return (rows as Record<string, number | string | null>[]).map((r) => ({
    rowId: r['id'] as number,
    queryId: r['query_id'] as number,
    seq: r['seq'] as number,
    featureId: r['feature_id'] as string,
    name: r['name'] as string | null,
    address: r['address'] as string | null,
    bbox: r['minx'] === null ? null : [r['minx'] as number, r['miny'] as number, r['maxx'] as number, r['maxy'] as number],
  }));
}
