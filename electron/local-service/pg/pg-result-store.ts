import { promisify } from 'node:util';
import { gunzip, gzip } from 'node:zlib';
import type pg from 'pg';
import { BUILTIN_CODES, type KindCodes } from '../catalog/kinds/registry';
import type { ResultStore } from '../result-store';
import { packItems, savedSearchFromRow, unpackItems, type SavedSearch, type SearchRowHead, type StoredFile } from '../store';
import { applyPgMigrations } from './migrations';

/**
 * Saved result sets and uploads in PostgreSQL, the same rows as the SQLite store (store.ts):
 * result sets packed (packItems) in BYTEA, each uploaded file once per content hash, gzipped,
 * linked to the saved sets that use it.
 */
const PG_COMPUTE_MIGRATIONS: readonly string[] = [
  `CREATE TABLE searches (
     id TEXT PRIMARY KEY,
     created_at TEXT NOT NULL,
     user_id TEXT,
     query TEXT NOT NULL,
     parent_id TEXT,
     catalog_version TEXT NOT NULL,
     subject TEXT NOT NULL,
     figures TEXT NOT NULL,
     items_bin BYTEA NOT NULL,
     uploads TEXT NOT NULL
   );
   CREATE INDEX searches_user ON searches (user_id, created_at);
   CREATE TABLE uploads (
     hash TEXT PRIMARY KEY,
     size BIGINT NOT NULL,
     kept_at TIMESTAMPTZ NOT NULL DEFAULT now(),
     data BYTEA NOT NULL
   );
   CREATE TABLE search_uploads (
     search_id TEXT NOT NULL REFERENCES searches (id) ON DELETE CASCADE,
     position INTEGER NOT NULL,
     hash TEXT NOT NULL,
     name TEXT NOT NULL,
     PRIMARY KEY (search_id, position)
   );
   CREATE INDEX search_uploads_hash ON search_uploads (hash);`,
];

const gzipAsync = promisify(gzip);
const gunzipAsync = promisify(gunzip);

export interface PgResultStoreOptions {
  pool: pg.Pool;
  onError?: (e: unknown) => void;
  codes?: KindCodes;
}

interface SearchRow extends SearchRowHead {
  figures: string;
  items_bin: Buffer;
}

export async function openPgResultStore({ pool, onError = () => {}, codes = BUILTIN_CODES }: PgResultStoreOptions): Promise<ResultStore> {
  await applyPgMigrations(pool, 'compute', PG_COMPUTE_MIGRATIONS);
  // Files no saved set links: left by a run that stopped between keeping and linking them. Only
  // older ones, so a file another replica has just kept for a request in flight stays.
  await pool.query(`DELETE FROM uploads u WHERE kept_at < now() - interval '1 hour' AND NOT EXISTS (SELECT 1 FROM search_uploads l WHERE l.hash = u.hash)`);

  const pending = new Map<string, { s: SavedSearch & { parentId?: string | null }; bin: Buffer; figures: string }>();
  let scheduled: NodeJS.Immediate | null = null;
  let writing: Promise<void> = Promise.resolve();
  /** Saves being written now: a later flush leaves them to the write under way. */
  const inFlight = new Set<unknown>();

  /**
   * Pending saves of this moment in one transaction. On failure they stay readable from memory
   * and are tried again with the next save's batch.
   */
  const writeBatch = async (batch: [string, { s: SavedSearch & { parentId?: string | null }; bin: Buffer; figures: string }][]) => {
    const c = await pool.connect();
    try {
      await c.query('BEGIN');
      for (const [, { s, bin, figures }] of batch) {
        const files = s.files ?? [];
        await c.query(
          `INSERT INTO searches (id, created_at, user_id, query, parent_id, catalog_version, subject, figures, items_bin, uploads)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT (id) DO NOTHING`,
          [s.id, s.createdAt, s.userId, s.query, s.parentId ?? null, s.catalogVersion, s.set.subject, figures, bin, files.length ? '[]' : JSON.stringify(s.set.uploads)],
        );
        for (let i = 0; i < files.length; i++)
          await c.query('INSERT INTO search_uploads (search_id, position, hash, name) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING', [s.id, i, files[i]!.hash, files[i]!.name]);
      }
      await c.query('COMMIT');
      for (const [id] of batch) pending.delete(id);
    } catch (e) {
      await c.query('ROLLBACK').catch(() => {});
      onError(e);
    } finally {
      c.release();
    }
  };

  const flush = () => {
    scheduled = null;
    const batch = [...pending].filter(([, p]) => !inFlight.has(p));
    if (!batch.length) return;
    for (const [, p] of batch) inFlight.add(p);
    writing = writing.then(() => writeBatch(batch)).finally(() => batch.forEach(([, p]) => inFlight.delete(p)));
  };

  return {
    save(s, packed = packItems(s.set.items, codes)) {
      pending.set(s.id.toLowerCase(), { s, bin: packed.bin, figures: packed.figures });
      scheduled ??= setImmediate(flush);
    },

    async get(id) {
      const key = id.toLowerCase();
      const p = pending.get(key);
      if (p) return p.s;
      const row = (await pool.query<SearchRow>('SELECT * FROM searches WHERE id = $1', [key])).rows[0];
      if (!row) return null;
      const files = (await pool.query<StoredFile>('SELECT hash, name FROM search_uploads WHERE search_id = $1 ORDER BY position', [key])).rows;
      return savedSearchFromRow(row, files, unpackItems(row.items_bin, row.figures, codes));
    },

    async keepUpload(hash, bytes) {
      const known = await pool.query('UPDATE uploads SET kept_at = now() WHERE hash = $1', [hash]);
      if (known.rowCount) return;
      // Compressed on the thread pool: a 10 MB CSV takes about half a second at level 1.
      const data = await gzipAsync(bytes, { level: 1 });
      await pool.query('INSERT INTO uploads (hash, size, data) VALUES ($1, $2, $3) ON CONFLICT (hash) DO NOTHING', [hash, bytes.length, data]);
    },

    async readUpload(hash) {
      const r = (await pool.query<{ data: Buffer }>('SELECT data FROM uploads WHERE hash = $1', [hash])).rows[0];
      return r ? gunzipAsync(r.data) : null;
    },

    async count() {
      return Number((await pool.query<{ n: string }>('SELECT count(*) AS n FROM searches')).rows[0]!.n);
    },

    async close() {
      if (scheduled) clearImmediate(scheduled);
      flush();
      await writing;
    },
  };
}
