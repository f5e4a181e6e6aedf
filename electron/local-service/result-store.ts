import { statSync } from 'node:fs';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Database } from 'better-sqlite3';
import type { RetentionRow, RetentionStore } from './retention';
import type { PackedItems, SavedSearch, SearchStore } from './store';

/**
 * What the compute routes keep, whatever the backend: saved result sets for `search_id`
 * continuation and the uploaded files they were computed from. Saves are written behind (a
 * saved set is readable at once, from memory until written); reads are asynchronous so a
 * networked database (PostgreSQL) implements it as well as the embedded SQLite file.
 */
export interface ResultStore extends RetentionStore {
  save(s: SavedSearch & { parentId?: string | null }, packed?: PackedItems): void;
  get(id: string): Promise<SavedSearch | null>;
  keepUpload(hash: string, bytes: Buffer): Promise<void>;
  readUpload(hash: string): Promise<Buffer | null>;
  /**
   * Resolves once every save made so far is written where another process reads it: a
   * `search_id` answered by one worker or replica can be continued on any other at once.
   */
  settled(): Promise<void>;
  /** How many result sets are saved (the status route). */
  count(): Promise<number>;
  /** Writes pending saves, then lets go of the database. */
  close(): Promise<void>;
}

/** Saved searches deleted per statement (and per transaction): other requests are answered between them. */
export const DELETE_BATCH = 500;

/**
 * Each saved search's bytes: its row, and its share of each file it links (the file's stored
 * bytes divided by the searches linking it).
 */
const SQLITE_RETENTION_ROWS = `
  WITH files AS (
    SELECT u.hash, (SELECT total(length(c.data)) FROM upload_chunks c WHERE c.hash = u.hash)
                   / (SELECT count(*) FROM search_uploads x WHERE x.hash = u.hash) AS share
      FROM uploads u),
  linked AS (SELECT l.search_id, total(f.share) AS b FROM search_uploads l JOIN files f ON f.hash = l.hash GROUP BY l.search_id)
  SELECT s.id, s.parent_id AS parentId, s.created_at AS createdAt,
         length(s.query) + length(s.items) + ifnull(length(s.items_bin), 0) + length(s.uploads) + ifnull(linked.b, 0) AS bytes
    FROM searches s LEFT JOIN linked ON linked.search_id = s.id`;

/** The embedded SQLite store (store.ts) as a ResultStore. */
export function sqliteResultStore(s: SearchStore): ResultStore {
  const countSaved = s.db.prepare('SELECT count(*) AS n FROM searches');
  const rows = s.db.prepare(SQLITE_RETENTION_ROWS);
  const remove = s.db.transaction((ids: string[]) => {
    // Links and files without links go by the triggers of migration 3.
    const stmt = s.db.prepare(`DELETE FROM searches WHERE id IN (${ids.map(() => '?').join(',')})`);
    return stmt.run(...ids).changes;
  });
  return {
    retentionRows: async () => rows.all() as RetentionRow[],
    reclaim: async () => reclaim(s.db),
    async deleteSearches(ids) {
      let n = 0;
      for (let at = 0; at < ids.length; at += DELETE_BATCH) {
        n += remove(ids.slice(at, at + DELETE_BATCH));
        await nextTurn();
      }
      return n;
    },
    save: (x, packed) => s.save(x, packed),
    get: async (id) => s.get(id),
    keepUpload: (hash, bytes) => s.keepUpload(hash, bytes),
    readUpload: (hash) => s.readUpload(hash),
    // One process reads this file, and it reads pending saves from memory.
    settled: async () => {},
    count: async () => (countSaved.get() as { n: number }).n,
    close: async () => s.close(),
  };
}

/** PRAGMA auto_vacuum's value for INCREMENTAL. */
const INCREMENTAL = 2;

/**
 * Gives free pages back to the file system and returns the file's bytes on disk with its WAL.
 * A file from before migration 4 of the compute scope is switched to incremental vacuum by one
 * VACUUM (it rewrites the file, so it runs once, at the first prune).
 */
function reclaim(db: Database): number {
  if (db.pragma('auto_vacuum', { simple: true }) !== INCREMENTAL) {
    db.pragma('auto_vacuum = INCREMENTAL');
    db.exec('VACUUM');
  } else db.pragma('incremental_vacuum');
  // The freed pages leave the file when the WAL is copied back; TRUNCATE then empties the WAL.
  db.pragma('wal_checkpoint(TRUNCATE)');
  const size = (f: string) => {
    try {
      return statSync(f).size;
    } catch {
      return 0;
    }
  };
  return size(db.name) + size(db.name + '-wal');
}
