import type { PackedItems, SavedSearch, SearchStore } from './store';

/**
 * What the compute routes keep, whatever the backend: saved result sets for `search_id`
 * continuation and the uploaded files they were computed from. Saves are written behind (a
 * saved set is readable at once, from memory until written); reads are asynchronous so a
 * networked database (PostgreSQL) implements it as well as the embedded SQLite file.
 */
export interface ResultStore {
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

/** The embedded SQLite store (store.ts) as a ResultStore. */
export function sqliteResultStore(s: SearchStore): ResultStore {
  const countSaved = s.db.prepare('SELECT count(*) AS n FROM searches');
  return {
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
