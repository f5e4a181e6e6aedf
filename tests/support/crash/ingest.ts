import { join } from 'node:path';
import { Cache, FEATURE_ID_SPAN } from '../../../electron/cache';
import { runAndKill } from './kill';

export interface IngestFigures {
  rounds: number;
  killedInWrite: number;
  corrupt: string[];
  /** Stored queries whose items are not all there (or that hold items of a missing query). */
  partial: string[];
  queriesSeen: number;
}

const CHILD = join(import.meta.dirname, '../../node/cache/crash-child.ts');

/**
 * SIGKILLs the ingesting child (crash-child.ts: 2,000-feature responses stored and deleted in a
 * loop) `rounds` times at random moments, reopening the same database after each kill.
 */
export async function ingestRounds(file: string, rounds: number, random = Math.random): Promise<IngestFigures> {
  const f: IngestFigures = { rounds, killedInWrite: 0, corrupt: [], partial: [], queriesSeen: 0 };
  for (let round = 0; round < rounds; round++) {
    // A random moment in the next few ingests (each takes several ms on this machine).
    const run = await runAndKill(CHILD, [file, String(round + 1)], Math.floor(random() * 120));
    if (run.inWrite) f.killedInWrite++;
    const cache = Cache.open(file);
    try {
      const integrity = cache.db.pragma('integrity_check', { simple: true });
      if (integrity !== 'ok') f.corrupt.push(`round ${round}: ${String(integrity)}`);
      // The index structures agree with their content too (the FTS check throws when not).
      try {
        cache.db.exec(`INSERT INTO features_fts (features_fts) VALUES ('integrity-check')`);
      } catch (e) {
        f.corrupt.push(`round ${round}: features_fts ${(e as Error).message}`);
      }
      const rtree = cache.db.prepare(`SELECT rtreecheck('features_rtree')`).pluck().get();
      if (rtree !== 'ok') f.corrupt.push(`round ${round}: rtree ${String(rtree)}`);
      const rows = cache.db
        .prepare(
          `SELECT q.id, q.feature_count AS stored,
             (SELECT count(*) FROM features f WHERE f.id BETWEEN q.id * @span AND q.id * @span + @span - 1) AS actual,
             length(q.raw_response) AS rawLength
           FROM queries q`,
        )
        .all({ span: FEATURE_ID_SPAN }) as { id: number; stored: number; actual: number; rawLength: number }[];
      if (!rows.length) f.partial.push(`round ${round}: no query stored at all`);
      for (const r of rows)
        if (r.actual !== r.stored || r.stored !== 2000 || !(r.rawLength > 0)) f.partial.push(`round ${round}: query ${r.id} ${JSON.stringify(r)}`);
      const orphans = cache.db.prepare('SELECT count(*) FROM features WHERE query_id NOT IN (SELECT id FROM queries)').pluck().get() as number;
      if (orphans) f.partial.push(`round ${round}: ${orphans} feature(s) of no query`);
      f.queriesSeen += rows.length;
    } finally {
      cache.close();
    }
  }
  return f;
}
