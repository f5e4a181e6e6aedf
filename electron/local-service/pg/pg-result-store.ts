import { promisify } from 'node:util';
import { gunzip, gzip } from 'node:zlib';
import type pg from 'pg';
import { BUILTIN_CODES, type KindCodes } from '../catalog/kinds/registry';
import { DELETE_BATCH, type ResultStore } from '../result-store';
import type { RetentionRow } from '../retention';
import { packItems, savedSearchFromRow, unpackItems, type SavedSearch, type SearchRowHead, type StoredFile } from '../store';
import { inTransaction, placeholders } from './database';
import { applyPgMigrations } from './migrations';
import type { DatabaseRouter, Lsn } from './replicas';

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
  // Uploads in chunks, as in the embedded store: a 10 MB file is written in statements of
  // UPLOAD_CHUNK, the request thread answering others between them, rather than as one value.
  // Data already compressed (gzip, packed result sets) is stored as is, not compressed again.
  `CREATE TABLE upload_chunks (
     hash TEXT NOT NULL REFERENCES uploads (hash) ON DELETE CASCADE,
     seq INTEGER NOT NULL,
     data BYTEA NOT NULL,
     PRIMARY KEY (hash, seq)
   );
   ALTER TABLE upload_chunks ALTER COLUMN data SET STORAGE EXTERNAL;
   ALTER TABLE uploads ALTER COLUMN data DROP NOT NULL;
   ALTER TABLE uploads ALTER COLUMN data SET STORAGE EXTERNAL;
   ALTER TABLE searches ALTER COLUMN items_bin SET STORAGE EXTERNAL;`,
];

/** Saves written by one INSERT (10 parameters each, well under PostgreSQL's 65,535). */
const SAVES_PER_STATEMENT = 500;
/** Saved sets kept in memory after they are written (recent): how many, items in all, items in one. */
const RECENT_SETS = 2000;
const RECENT_ITEMS = 50_000;
const RECENT_MAX_ITEMS = 1000;
/** Written sets and files whose WAL position is kept, for reads on replicas that must see them. */
const MARKS = 10_000;

/** Bytes of a stored upload per row of upload_chunks (the embedded store's chunk size). */
const UPLOAD_CHUNK = 512 * 1024;

const gzipAsync = promisify(gzip);
const gunzipAsync = promisify(gunzip);

export interface PgResultStoreOptions {
  pool: pg.Pool;
  onError?: (e: unknown) => void;
  codes?: KindCodes;
  /** Streaming replicas: reads of saved sets and files go there once they have replayed the write. */
  reads?: DatabaseRouter;
}

interface SearchRow extends SearchRowHead {
  figures: string;
  items_bin: Buffer;
}

export async function openPgResultStore({ pool, onError = () => {}, codes = BUILTIN_CODES, reads }: PgResultStoreOptions): Promise<ResultStore> {
  await applyPgMigrations(pool, 'compute', PG_COMPUTE_MIGRATIONS);
  // Files no saved set links: left by a run that stopped between keeping and linking them. Only
  // older ones, so a file another replica has just kept for a request in flight stays.
  await pool.query(`DELETE FROM uploads u WHERE kept_at < now() - interval '1 hour' AND NOT EXISTS (SELECT 1 FROM search_uploads l WHERE l.hash = u.hash)`);

  const pending = new Map<string, { s: SavedSearch & { parentId?: string | null }; bin: Buffer; figures: string }>();
  /**
   * Small sets this process wrote lately (a saved set never changes): a continuation, which
   * comes back to the process that answered the question on a kept-alive connection, is read
   * without a round trip. Sets with files or many items are read from the database.
   */
  const recent = new Map<string, SavedSearch>();
  let recentItems = 0;
  const remember = (id: string, s: SavedSearch) => {
    if (s.files?.length || s.set.uploads.length || s.set.items.length > RECENT_MAX_ITEMS || recent.has(id)) return;
    recent.set(id, s);
    recentItems += s.set.items.length;
    while (recent.size > RECENT_SETS || recentItems > RECENT_ITEMS) {
      const [oldest, o] = recent.entries().next().value!;
      recent.delete(oldest);
      recentItems -= o.set.items.length;
    }
  };
  /**
   * The primary's WAL position after each set and file this process wrote (read your own
   * writes): a replica serves the read once it has replayed that far. A set another process
   * wrote has no position here; a replica that does not have it yet is followed by the primary.
   */
  const marks = new Map<string, Lsn>();
  const markWritten = async (keys: string[]) => {
    if (!reads?.replicated) return;
    const lsn = await reads.mark();
    if (lsn === null) return;
    for (const k of keys) marks.set(k, lsn);
    for (const k of marks.keys()) {
      if (marks.size <= MARKS) break;
      marks.delete(k);
    }
  };
  const read = <R extends pg.QueryResultRow>(text: string, values: unknown[], mark: string) =>
    reads ? reads.query<R>(text, values, { after: marks.get(mark), missing: (r) => r.rows.length === 0 }) : pool.query<R>(text, values);
  let scheduled: NodeJS.Immediate | null = null;
  let writing: Promise<void> = Promise.resolve();
  /** Saves being written now: a later flush leaves them to the write under way. */
  const inFlight = new Set<unknown>();

  /**
   * Pending saves of this moment in one statement (a multi-row INSERT, the links to their files
   * in the same statement: one round trip, atomic). On failure they stay readable from memory
   * and are tried again with the next save's batch.
   */
  const writeBatch = async (batch: [string, { s: SavedSearch & { parentId?: string | null }; bin: Buffer; figures: string }][]) => {
    try {
      for (let at = 0; at < batch.length; at += SAVES_PER_STATEMENT) {
        const part = batch.slice(at, at + SAVES_PER_STATEMENT);
        const values: unknown[] = [];
        const rows: string[] = [];
        const links: string[] = [];
        for (const [, { s, bin, figures }] of part) {
          const files = s.files ?? [];
          rows.push(placeholders(values, [s.id, s.createdAt, s.userId, s.query, s.parentId ?? null, s.catalogVersion, s.set.subject, figures, bin, files.length ? '[]' : JSON.stringify(s.set.uploads)]));
          files.forEach((f, i) => links.push(placeholders(values, [s.id, i, f.hash, f.name], ['text', 'int', 'text', 'text'])));
        }
        const insert = `INSERT INTO searches (id, created_at, user_id, query, parent_id, catalog_version, subject, figures, items_bin, uploads)
           VALUES ${rows.join(', ')} ON CONFLICT (id) DO NOTHING`;
        // Foreign keys are checked at the end of the statement, when the searches rows exist.
        await pool.query(
          links.length
            ? `WITH saved AS (${insert} RETURNING id)
               INSERT INTO search_uploads (search_id, position, hash, name)
               SELECT l.* FROM (VALUES ${links.join(', ')}) AS l (search_id, position, hash, name) JOIN saved ON saved.id = l.search_id
               ON CONFLICT DO NOTHING`
            : insert,
          values,
        );
        await markWritten(part.map(([id]) => id)).catch(onError);
        for (const [id, p] of part) {
          pending.delete(id);
          remember(id, p.s);
        }
      }
    } catch (e) {
      onError(e);
    }
  };

  /** The write waiting behind the one under way: saves made meanwhile join it. */
  let queued: Promise<void> | null = null;
  const flush = () => {
    scheduled = null;
    // Group commit: at most one write under way and one waiting, whatever the number of saves
    // made meanwhile (one statement each turn would queue as many round trips as turns).
    if (queued) return;
    const next = writing.then(async () => {
      queued = null;
      const batch = [...pending].filter(([, p]) => !inFlight.has(p));
      if (!batch.length) return;
      for (const [, p] of batch) inFlight.add(p);
      try {
        await writeBatch(batch);
      } finally {
        for (const [, p] of batch) inFlight.delete(p);
      }
    });
    queued = writing = next;
  };

  return {
    save(s, packed = packItems(s.set.items, codes)) {
      pending.set(s.id.toLowerCase(), { s, bin: packed.bin, figures: packed.figures });
      scheduled ??= setImmediate(flush);
    },

    async get(id) {
      const key = id.toLowerCase();
      const kept = pending.get(key)?.s ?? recent.get(key);
      if (kept) return kept;
      // The row and its files in one round trip.
      const row = (
        await read<SearchRow & { files: StoredFile[] }>(
          `SELECT s.*, COALESCE((SELECT json_agg(json_build_object('hash', u.hash, 'name', u.name) ORDER BY u.position)
                                 FROM search_uploads u WHERE u.search_id = s.id), '[]') AS files
             FROM searches s WHERE s.id = $1`,
          [key],
          key,
        )
      ).rows[0];
      if (!row) return null;
      const { files } = row;
      return savedSearchFromRow(row, files, unpackItems(row.items_bin, row.figures, codes));
    },

    async keepUpload(hash, bytes) {
      const known = await pool.query('UPDATE uploads SET kept_at = now() WHERE hash = $1', [hash]);
      if (known.rowCount) return;
      // Compressed on the thread pool: a 10 MB CSV takes about half a second at level 1.
      const data = await gzipAsync(bytes, { level: 1 });
      // One transaction: the file appears whole or not at all; another replica keeping the same
      // file at the same moment waits on the key and then finds it.
      await inTransaction(pool, async (c) => {
        const row = await c.query('INSERT INTO uploads (hash, size, data) VALUES ($1, $2, NULL) ON CONFLICT (hash) DO NOTHING', [hash, bytes.length]);
        if (row.rowCount)
          for (let at = 0, seq = 0; at < data.length; at += UPLOAD_CHUNK, seq++)
            await c.query('INSERT INTO upload_chunks (hash, seq, data) VALUES ($1, $2, $3)', [hash, seq, data.subarray(at, at + UPLOAD_CHUNK)]);
      });
      await markWritten([hash]).catch(onError);
    },

    async readUpload(hash) {
      const r = (await read<{ data: Buffer | null }>('SELECT data FROM uploads WHERE hash = $1', [hash], hash)).rows[0];
      if (!r) return null;
      // Files kept before chunks (migration 2) hold their bytes in the row itself.
      if (r.data) return gunzipAsync(r.data);
      // A file and its chunks are one transaction: a replica holding none is one that lags.
      const chunks = (await read<{ data: Buffer }>('SELECT data FROM upload_chunks WHERE hash = $1 ORDER BY seq', [hash], hash)).rows;
      return gunzipAsync(Buffer.concat(chunks.map((x) => x.data)));
    },

    // After the flush already scheduled (saves of this turn are written together), then its write.
    settled: () => new Promise<void>((ok) => setImmediate(ok)).then(() => writing),

    async retentionRows() {
      const r = await pool.query<RetentionRow & { bytes: string }>(
        `WITH files AS (
           SELECT u.hash, (coalesce(octet_length(u.data), 0) + coalesce((SELECT sum(octet_length(c.data)) FROM upload_chunks c WHERE c.hash = u.hash), 0))::float8
                          / NULLIF((SELECT count(*) FROM search_uploads x WHERE x.hash = u.hash), 0) AS share
             FROM uploads u),
         linked AS (SELECT l.search_id, sum(f.share) AS b FROM search_uploads l JOIN files f ON f.hash = l.hash GROUP BY l.search_id)
         SELECT s.id, s.parent_id AS "parentId", s.created_at AS "createdAt",
                (octet_length(s.query) + octet_length(s.figures) + octet_length(s.items_bin) + octet_length(s.uploads) + coalesce(linked.b, 0))::float8 AS bytes
           FROM searches s LEFT JOIN linked ON linked.search_id = s.id`,
      );
      return r.rows.map((x) => ({ ...x, bytes: Number(x.bytes) }));
    },

    async deleteSearches(ids) {
      let n = 0;
      for (let at = 0; at < ids.length; at += DELETE_BATCH) {
        const part = ids.slice(at, at + DELETE_BATCH);
        // Links go by their foreign key; files no search links any more, with them. (A file kept
        // for a request in flight has no link yet: only files kept over an hour ago go.)
        const r = await pool.query<{ n: string }>(
          `WITH gone AS (DELETE FROM searches WHERE id = ANY($1::text[]) RETURNING id)
           SELECT count(*) AS n FROM gone`,
          [part],
        );
        n += Number(r.rows[0]!.n);
        for (const id of part) {
          recent.delete(id);
          marks.delete(id);
        }
      }
      await pool.query(`DELETE FROM uploads u WHERE kept_at < now() - interval '1 hour' AND NOT EXISTS (SELECT 1 FROM search_uploads l WHERE l.hash = u.hash)`);
      return n;
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
