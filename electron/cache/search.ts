import type { CacheDb } from './db';
import { FEATURE_ID_SPAN } from './migrations';
import { parse, summary, SUMMARY_COLUMNS, type QueryRow } from './rows';
import type { BBox } from './spatial';
import type { FeatureHit, QueryRecord, StoredError, UploadInput } from './types';

// Reading the cache back: one query, its uploads and features, and features by words or box
// (history lists are in history-filter.ts).

/**
 * Turns a search box text into an FTS5 expression: every word must match. A word written with a
 * trailing `*` matches as a prefix; plain words match whole tokens, which FTS5 reads lazily and
 * so stays fast with LIMIT over millions of rows (prefix terms merge every matching doclist).
 * Words are split as the unicode61 tokenizer splits them, and quoted, so user input never becomes
 * a phrase or FTS syntax.
 */
export function ftsExpression(text: string): string | null {
  const terms = ftsTerms(text);
  return terms.length ? terms.join(' ') : null;
}

/** The quoted terms of ftsExpression, one per word. */
export function ftsTerms(text: string): string[] {
  const terms: string[] = [];
  for (const chunk of text.split(/\s+/)) {
    const tokens = chunk.split(/[^\p{L}\p{N}\p{M}]+/u).filter(Boolean);
    tokens.forEach((t, i) => terms.push(i === tokens.length - 1 && chunk.endsWith('*') ? `"${t}"*` : `"${t}"`));
  }
  return terms;
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
