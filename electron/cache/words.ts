import type { CacheDb } from './db';
import { FEATURE_ID_SPAN } from './migrations';

/**
 * The text indexes of history (queries_fts, features_fts and the entry documents of
 * entry_words), filled a batch of entries at a time rather than inside each stored response.
 * FTS5 buffers the terms of a transaction and writes them out as one segment when it commits,
 * so indexing the words of the entries stored since the last pause costs one segment write (and
 * its share of merging) for all of them, where indexing inside each response cost one per
 * response: about as much as writing the response's rows. An entry waits in `words_pending`
 * until the cache is idle (cache.ts), a word search is made, the cache is opened or closed, or a
 * bulk load ends; every reader of the text indexes indexes what waits first, so no search
 * misses an entry.
 */

export function markWordsPending(c: CacheDb, queryId: number): void {
  c.stmt('INSERT OR IGNORE INTO words_pending (query_id) VALUES (?)').run(queryId);
}

/** Whether any entry's words wait to be indexed (one cheap read before every word search). */
export function wordsPending(c: CacheDb): boolean {
  return c.stmt('SELECT 1 FROM words_pending LIMIT 1').get() !== undefined;
}

/** Indexes the words of every waiting entry, in one transaction; returns how many entries. */
export function indexPendingWords(c: CacheDb): number {
  if (!wordsPending(c)) return 0;
  const ids = c.stmt('SELECT query_id FROM words_pending ORDER BY query_id').pluck().all() as number[];
  const text = c.stmt('SELECT query_text FROM queries WHERE id = ?').pluck();
  const insQuery = c.stmt('INSERT INTO queries_fts (rowid, query_text) VALUES (?, ?)');
  const insFeatures = c.stmt('INSERT INTO features_fts (rowid, name, address) SELECT id, name, address FROM features WHERE id BETWEEN ? AND ?');
  const names = c.stmt('SELECT name, address FROM features WHERE id BETWEEN ? AND ?').raw();
  const insEntry = c.stmt('INSERT INTO entry_words (rowid, words) VALUES (?, ?)');
  const done = c.stmt('DELETE FROM words_pending WHERE query_id = ?');
  c.db.transaction(() => {
    for (const id of ids) {
      done.run(id);
      const q = text.get(id) as string | undefined;
      if (q === undefined) continue;
      const lo = id * FEATURE_ID_SPAN;
      const hi = lo + FEATURE_ID_SPAN - 1;
      insQuery.run(id, q);
      insFeatures.run(lo, hi);
      // The entry's words in one document (its text, its items' names and addresses), so a word
      // filter over history reads one short doclist instead of seeking each entry's features.
      const words = [q];
      for (const [name, address] of names.all(lo, hi) as [string | null, string | null][]) {
        if (name) words.push(name);
        if (address) words.push(address);
      }
      insEntry.run(id, words.join('\n'));
    }
  })();
  return ids.length;
}
