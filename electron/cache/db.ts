import type { Database as Db, Statement } from 'better-sqlite3';

/** What each job of the cache (storing, search, threads, maintenance, media) works on. */
export interface CacheDb {
  readonly db: Db;
  readonly file: string;
  /** A prepared statement, cached by its SQL. */
  stmt(sql: string): Statement;
  /** Tell after a write outside a caller's transaction: schedules the WAL checkpoint. */
  afterWrite(): void;
}
