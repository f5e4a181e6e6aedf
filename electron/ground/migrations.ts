import type { Database } from 'better-sqlite3';

/** One numbered migration: SQL to run, or a function for what SQL alone cannot say. Step i is version i + 1. */
export type MigrationStep = string | ((db: Database) => void);

/** Where a database keeps the version its schema is at. */
export interface VersionStore {
  read(db: Database): number;
  write(db: Database, version: number): void;
}

/** PRAGMA user_version: one version for the whole file (the query cache). */
export const userVersion: VersionStore = {
  read: (db) => db.pragma('user_version', { simple: true }) as number,
  write: (db, version) => void db.pragma(`user_version = ${Math.trunc(version)}`),
};

/**
 * A row per scope in a `migrations` table: parts that share one database (the local service and
 * each of its plugins) number their migrations on their own without stepping on each other.
 */
export function scopeVersion(scope: string): VersionStore {
  const ensure = (db: Database) =>
    db.exec('CREATE TABLE IF NOT EXISTS migrations (scope TEXT PRIMARY KEY, version INTEGER NOT NULL)');
  return {
    read(db) {
      ensure(db);
      const row = db.prepare('SELECT version FROM migrations WHERE scope = ?').get(scope) as { version: number } | undefined;
      return row?.version ?? 0;
    },
    write(db, version) {
      db.prepare(
        'INSERT INTO migrations (scope, version) VALUES (?, ?) ON CONFLICT(scope) DO UPDATE SET version = excluded.version',
      ).run(scope, version);
    },
  };
}

export interface RunOptions {
  /** Named in errors. */
  label: string;
  /**
   * A database newer than this build: 'throw' refuses it; 'accept' leaves it as it is (a cache
   * whose later migrations only add what an older build does not read).
   */
  onNewer: 'throw' | 'accept';
}

/**
 * The one migration runner of both SQLite databases: applies every pending step and the new
 * version in one IMMEDIATE transaction, so a failing step leaves nothing half done.
 */
export function runMigrations(
  db: Database,
  steps: readonly MigrationStep[],
  where: VersionStore,
  opts: RunOptions,
): { from: number; to: number } {
  const from = where.read(db);
  if (from > steps.length) {
    if (opts.onNewer === 'throw')
      throw new Error(`database of ${opts.label} is newer (v${from}) than this build (v${steps.length})`);
    return { from, to: from };
  }
  if (from === steps.length) return { from, to: from };
  db.transaction(() => {
    for (let v = from; v < steps.length; v++) {
      const step = steps[v]!;
      if (typeof step === 'string') db.exec(step);
      else step(db);
    }
    where.write(db, steps.length);
  }).immediate();
  return { from, to: steps.length };
}

/**
 * Applies numbered migrations for one scope ("compute", or a plugin's name) of the local
 * service's database; returns the version it is at. A database newer than the steps is refused.
 */
export function applyMigrations(db: Database, scope: string, migrations: readonly MigrationStep[]): number {
  return runMigrations(db, migrations, scopeVersion(scope), { label: `scope "${scope}"`, onNewer: 'throw' }).to;
}
