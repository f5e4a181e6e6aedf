import type pg from 'pg';
import { inTransaction } from './database';

/**
 * Numbered migrations of the PostgreSQL backend, one version per scope (as in the SQLite
 * database: "compute", "layers", a plugin's name) in a `migrations` table. Pending steps and the
 * new version are applied in one transaction under an advisory lock, so replicas starting at
 * the same moment migrate once and a failing step leaves nothing half done.
 */
export async function applyPgMigrations(pool: pg.Pool, scope: string, steps: readonly string[]): Promise<number> {
  return inTransaction(pool, async (c) => {
    // One lock for all scopes: CREATE TABLE IF NOT EXISTS itself races between sessions.
    await c.query("SELECT pg_advisory_xact_lock(hashtext('fieldlens migrations'))");
    await c.query('CREATE TABLE IF NOT EXISTS migrations (scope TEXT PRIMARY KEY, version INTEGER NOT NULL)');
    const r = await c.query<{ version: number }>('SELECT version FROM migrations WHERE scope = $1', [scope]);
    const from = r.rows[0]?.version ?? 0;
    if (from > steps.length) throw new Error(`database scope "${scope}" is newer (v${from}) than this build (v${steps.length})`);
    for (let v = from; v < steps.length; v++) await c.query(steps[v]!);
    if (from < steps.length)
      await c.query(
        'INSERT INTO migrations (scope, version) VALUES ($1, $2) ON CONFLICT (scope) DO UPDATE SET version = excluded.version',
        [scope, steps.length],
      );
    return steps.length;
  });
}
