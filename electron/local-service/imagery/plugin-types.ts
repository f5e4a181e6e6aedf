import type BetterSqlite3 from 'better-sqlite3';

export type { LocalServicePlugin, ServiceContext } from '../plugin';
export type Database = BetterSqlite3.Database;
