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
