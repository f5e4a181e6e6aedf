import { statSync } from 'node:fs';
import type { CacheDb } from './db';
import { FEATURE_ID_SPAN } from './migrations';
import { RUN } from './store-response';
import type { CacheStats, QueryKind } from './types';
import { indexPendingWords } from './words';

// Deleting queries, figures about the cache, and compacting it.

export function deleteQuery(c: CacheDb, id: number): boolean {
  const deleted = c.db.transaction(() => {
    const row = c.stmt('SELECT id, query_text, feature_count FROM queries WHERE id = ?').get(id) as
      | { id: number; query_text: string; feature_count: number }
      | undefined;
    if (!row) return false;
    const lo = id * FEATURE_ID_SPAN;
    const hi = lo + FEATURE_ID_SPAN - 1;
    // Words not yet indexed have nothing in the text indexes to take out: a 'delete' of rows
    // the index never held would corrupt it.
    const indexed = c.stmt('DELETE FROM words_pending WHERE query_id = ?').run(id).changes === 0;
    if (indexed)
      c.stmt(
        `INSERT INTO features_fts (features_fts, rowid, name, address)
         SELECT 'delete', id, name, address FROM features WHERE id BETWEEN ? AND ?`,
      ).run(lo, hi);
    // R*Tree lookups are by exact id only (a range would scan the whole tree): one per run.
    const delRun = c.stmt('DELETE FROM features_rtree WHERE id = ?');
    for (let start = 0; start < row.feature_count; start += RUN) delRun.run(lo + start);
    c.stmt('DELETE FROM feature_runs WHERE id BETWEEN ? AND ?').run(lo, hi);
    c.stmt('DELETE FROM queries_rtree WHERE id = ?').run(id);
    if (indexed) c.stmt('DELETE FROM entry_words WHERE rowid = ?').run(id);
    c.stmt('DELETE FROM observations WHERE id BETWEEN ? AND ?').run(lo, hi);
    c.stmt('DELETE FROM imagery_records WHERE id BETWEEN ? AND ?').run(lo, hi);
    c.stmt('DELETE FROM features WHERE id BETWEEN ? AND ?').run(lo, hi);
    if (indexed)
      c.stmt(`INSERT INTO queries_fts (queries_fts, rowid, query_text) VALUES ('delete', ?, ?)`).run(
        id,
        row.query_text,
      );
    const uploadIds = c.stmt('SELECT upload_id FROM query_uploads WHERE query_id = ?').pluck().all(id);
    c.stmt('DELETE FROM query_uploads WHERE query_id = ?').run(id);
    const orphan = c.stmt(
      'DELETE FROM uploads WHERE id = ? AND NOT EXISTS (SELECT 1 FROM query_uploads WHERE upload_id = ?)',
    );
    for (const u of uploadIds) orphan.run(u, u);
    c.stmt('UPDATE queries SET rerun_of = NULL WHERE rerun_of = ?').run(id);
    c.stmt('DELETE FROM queries WHERE id = ?').run(id);
    return true;
  })();
  if (deleted && !c.db.inTransaction) c.afterWrite();
  return deleted;
}

export function stats(c: CacheDb): CacheStats {
  const kinds = c.stmt('SELECT kind, count(*) AS n FROM queries GROUP BY kind').all() as {
    kind: QueryKind;
    n: number;
  }[];
  const queries: Record<QueryKind, number> = { compute: 0, stream: 0, imagery: 0 };
  for (const k of kinds) queries[k.kind] = k.n;
  const agg = (table: string, col: string) =>
    c.stmt(`SELECT count(*) AS count, coalesce(sum(${col}), 0) AS bytes FROM ${table}`).get() as {
      count: number;
      bytes: number;
    };
  const size = (f: string) => {
    try {
      return statSync(f).size;
    } catch {
      return 0;
    }
  };
  return {
    schemaVersion: c.db.pragma('user_version', { simple: true }) as number,
    queries,
    features: (c.stmt('SELECT count(*) FROM features').pluck().get() as number) ?? 0,
    uploads: agg('uploads', 'size'),
    media: agg('media', 'size'),
    dbBytes: size(c.file),
    walBytes: size(c.file + '-wal'),
  };
}

/** Merges the FTS segments, rebuilds the file without free pages and truncates the WAL. */
export function vacuum(c: CacheDb): { bytesBefore: number; bytesAfter: number } {
  const before = stats(c);
  indexPendingWords(c);
  c.db.exec(`INSERT INTO features_fts (features_fts) VALUES ('optimize');
    INSERT INTO queries_fts (queries_fts) VALUES ('optimize');
    INSERT INTO entry_words (entry_words) VALUES ('optimize');`);
  c.db.exec('VACUUM');
  c.db.pragma('wal_checkpoint(TRUNCATE)');
  const after = stats(c);
  return { bytesBefore: before.dbBytes + before.walBytes, bytesAfter: after.dbBytes + after.walBytes };
}
