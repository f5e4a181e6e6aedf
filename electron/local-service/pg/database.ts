import pg from 'pg';

/** The environment variable that selects the PostgreSQL backend (same as `--database URL`). */
export const DATABASE_URL_ENV = 'FIELDLENS_DATABASE_URL';

export interface PgOptions {
  url: string;
  /** Connections in the pool (default 16: a request holds one only for its queries). */
  max?: number;
  onError?: (e: unknown) => void;
}

export function openPgPool(opts: PgOptions): pg.Pool {
  const pool = new pg.Pool({ connectionString: opts.url, max: opts.max ?? 16, application_name: 'fieldlens-service' });
  // An idle client losing its connection (server restart) must not take the process down.
  pool.on('error', (e) => opts.onError?.(e));
  return pool;
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
