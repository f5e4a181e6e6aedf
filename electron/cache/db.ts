import type { Database as Db, Statement } from 'better-sqlite3';

/** What each job of the cache (storing, search, threads, maintenance, media) works on. */
export interface CacheDb {
  readonly db: Db;
  readonly file: string;
  /** A prepared statement, cached by its SQL. */
  stmt(sql: string): Statement;
  /** Tell after a write outside a caller's transaction: schedules the WAL checkpoint. */
  afterWrite(): void;
  /**
   * Runs `fn` with `fl_in_area(x, y)` answering for this ring (SQLite calls back into JS per
   * candidate feature; only features the R*Tree and box test left are asked).
   */
  withArea<T>(ring: [number, number][], fn: () => T): T;
}
