import pg from 'pg';

/** The environment variable that selects the PostgreSQL backend (same as `--database URL`). */
export const DATABASE_URL_ENV = 'FIELDLENS_DATABASE_URL';

/** Connections in a service's pool: a request holds one only for its queries. */
export const DEFAULT_POOL_SIZE = 16;

export interface PgOptions {
  url: string;
  /** Connections in the pool (DEFAULT_POOL_SIZE unless given). */
  max?: number;
  onError?: (e: unknown) => void;
}

export function openPgPool(opts: PgOptions): pg.Pool {
  const pool = new pg.Pool({ connectionString: opts.url, max: opts.max ?? DEFAULT_POOL_SIZE, application_name: 'fieldlens-service' });
  // An idle client losing its connection (server restart) must not take the process down.
  pool.on('error', (e) => opts.onError?.(e));
  return pool;
}

/**
 * A connection the pool can hand over at once (an idle one, or room for a new one, and nobody
 * queued before), else null. For work that already holds a connection of the same pool and would
 * like a second: waiting for it could wait for ever once every connection is held that way.
 * pg-pool takes the decision in this same tick, so two callers cannot both count on one slot.
 */
export function connectNow(pool: pg.Pool): Promise<pg.PoolClient> | null {
  const max = pool.options.max ?? 10;
  if (pool.waitingCount > 0 || (pool.idleCount === 0 && pool.totalCount >= max)) return null;
  return pool.connect();
}

/** The URL with any password blanked, for logs and messages. */
export function safeUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'postgres://(unparsable URL)';
  }
}

/**
 * Runs `work` on one pooled connection inside BEGIN … COMMIT: a failure rolls back what it
 * wrote and is thrown on; the connection goes back to the pool either way.
 */
export async function inTransaction<T>(pool: pg.Pool, work: (c: pg.PoolClient) => Promise<T>): Promise<T> {
  const c = await pool.connect();
  try {
    await c.query('BEGIN');
    const out = await work(c);
    await c.query('COMMIT');
    return out;
  } catch (e) {
    await c.query('ROLLBACK').catch(() => {});
    throw e;
  } finally {
    c.release();
  }
}

/**
 * Appends a row's values to a statement's parameters; returns the row's `($n, …)`, each with
 * its type when given (a VALUES list outside an INSERT has no column types to take).
 */
export function placeholders(values: unknown[], row: unknown[], types: readonly string[] = []): string {
  const at = values.length;
  values.push(...row);
  return `(${row.map((_, i) => `$${at + i + 1}${types[i] ? `::${types[i]}` : ''}`).join(', ')})`;
}
