import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import { inTransaction, placeholders } from '../pg/database';
import { applyPgMigrations } from '../pg/migrations';
import { parseLsn, type DatabaseRouter, type Lsn } from '../pg/replicas';
import { createFtsTokenizer } from './fts-tokens';
import type { ImageryStorage, KnownFile } from './storage';
import type { PhotoRow, Summary } from './store';

/**
 * The imagery catalog in PostgreSQL (scope "imagery"), the same rows as the embedded tables.
 * Instead of FTS5, a photo keeps its search text's tokens as SQLite's tokenizer makes them
 * (fts-tokens.ts), in order, in `words`: a GIN index finds the rows holding every token of a
 * query word, and a phrase of several tokens is checked for tokens in a row.
 */
const PG_IMAGERY_MIGRATIONS: readonly string[] = [
  `CREATE EXTENSION IF NOT EXISTS postgis;
   CREATE TABLE imagery_photo (
     rowid INTEGER GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
     id TEXT NOT NULL UNIQUE,
     path TEXT NOT NULL UNIQUE,
     root TEXT NOT NULL,
     mtime_ms DOUBLE PRECISION NOT NULL,
     size BIGINT NOT NULL,
     mime TEXT NOT NULL,
     lon DOUBLE PRECISION NOT NULL,
     lat DOUBLE PRECISION NOT NULL,
     geom geometry(Point, 4326) GENERATED ALWAYS AS (ST_SetSRID(ST_MakePoint(lon, lat), 4326)) STORED,
     direction DOUBLE PRECISION,
     taken_at TEXT,
     year INTEGER,
     month INTEGER,
     description TEXT,
     keywords TEXT NOT NULL DEFAULT '[]',
     make TEXT,
     artist TEXT,
     width INTEGER,
     height INTEGER,
     interactive INTEGER NOT NULL DEFAULT 0,
     city TEXT,
     country TEXT,
     country_code TEXT,
     region_id TEXT,
     address TEXT NOT NULL,
     is_video INTEGER NOT NULL DEFAULT 0,
     duration DOUBLE PRECISION,
     words TEXT[] NOT NULL
   );
   CREATE INDEX imagery_photo_geom ON imagery_photo USING GIST (geom);
   CREATE INDEX imagery_photo_words ON imagery_photo USING GIN (words);
   CREATE INDEX imagery_photo_year ON imagery_photo (year);
   CREATE INDEX imagery_photo_region ON imagery_photo (region_id);
   CREATE TABLE imagery_skipped (
     path TEXT PRIMARY KEY,
     root TEXT NOT NULL,
     mtime_ms DOUBLE PRECISION NOT NULL,
     size BIGINT NOT NULL,
     reason TEXT NOT NULL
   );
   CREATE TABLE imagery_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);`,
];

/** The columns of PhotoRow (size as a number: pg reads BIGINT as text). */
const ROW = `rowid, id, path, root, mtime_ms, size::float8 AS size, mime, lon, lat, direction, taken_at, year, month,
  description, keywords, make, artist, width, height, interactive, city, country, country_code, region_id, address,
  is_video, duration`;
const WRITTEN = [
  'path', 'root', 'mtime_ms', 'size', 'mime', 'lon', 'lat', 'direction', 'taken_at', 'year', 'month', 'description',
  'keywords', 'make', 'artist', 'width', 'height', 'interactive', 'city', 'country', 'country_code', 'region_id',
  'address', 'is_video', 'duration',
] as const;
const UPSERT_HEAD = `INSERT INTO imagery_photo (${[...WRITTEN, 'id', 'words'].join(', ')}) VALUES`;
const UPSERT_TAIL = `ON CONFLICT (path) DO UPDATE SET ${[...WRITTEN.slice(1), 'words'].map((c) => `${c} = excluded.${c}`).join(', ')}`;
/** 27 parameters a photo, well under PostgreSQL's 65,535 a statement. */
const PHOTOS_PER_STATEMENT = 500;

/** Scans of the catalog take this advisory lock: one process scans the folders at a time. */
const SCAN_LOCK = "hashtext('fieldlens imagery scan')";
const LOCK_RETRY_MS = 200;

export interface PgImageryStorageOptions {
  pool: pg.Pool;
  /** Told when a scan waits for another process's. */
  onWait?: () => void;
  /** Streaming replicas: a search's word matches and rows are read there (scans and the generation on the primary). */
  reads?: DatabaseRouter;
}

export function migratePgImagery(pool: pg.Pool): Promise<number> {
  return applyPgMigrations(pool, 'imagery', PG_IMAGERY_MIGRATIONS);
}

export async function openPgImageryStorage({ pool, onWait, reads }: PgImageryStorageOptions): Promise<ImageryStorage> {
  await migratePgImagery(pool);
  /**
   * The primary's WAL position when the catalog in memory was read (or this process last wrote
   * it): a search's rows come from a replica that has replayed that far, so it finds every
   * photo of the generation it searches.
   */
  let mark: Lsn | null = null;
  const read = <R extends pg.QueryResultRow>(text: string, values: unknown[]) =>
    reads ? reads.query<R>(text, values, { after: mark }) : pool.query<R>(text, values);
  const raise = (lsn: Lsn | null) => {
    if (lsn !== null && (mark === null || lsn > mark)) mark = lsn;
  };
  const tokenizer = createFtsTokenizer();
  const generationOf = async (q: pg.Pool | pg.PoolClient) =>
    Number((await q.query<{ value: string }>("SELECT value FROM imagery_meta WHERE key = 'generation'")).rows[0]?.value ?? 0);

  return {
    async knownFiles() {
      const out = new Map<string, KnownFile>();
      const r = await pool.query<{ path: string; mtime_ms: number; size: number; skipped: boolean }>(
        `SELECT path, mtime_ms, size::float8 AS size, false AS skipped FROM imagery_photo
         UNION ALL SELECT path, mtime_ms, size::float8, true FROM imagery_skipped ORDER BY skipped`,
      );
      for (const { path, ...k } of r.rows) out.set(path, k);
      return out;
    },

    async apply(changes, newId) {
      if (!changes.removed.length && !changes.skipped.length && !changes.photos.length) return;
      await inTransaction(pool, async (c) => {
        if (changes.removed.length) {
          await c.query('DELETE FROM imagery_photo WHERE path = ANY($1)', [changes.removed]);
          await c.query('DELETE FROM imagery_skipped WHERE path = ANY($1)', [changes.removed]);
        }
        if (changes.skipped.length) {
          const skipped = changes.skipped;
          await c.query('DELETE FROM imagery_photo WHERE path = ANY($1)', [skipped.map((x) => x.path)]);
          await c.query(
            `INSERT INTO imagery_skipped (path, root, mtime_ms, size, reason)
             SELECT * FROM unnest($1::text[], $2::text[], $3::float8[], $4::bigint[], $5::text[])
             ON CONFLICT (path) DO UPDATE SET root = excluded.root, mtime_ms = excluded.mtime_ms, size = excluded.size, reason = excluded.reason`,
            [skipped.map((x) => x.path), skipped.map((x) => x.root), skipped.map((x) => x.mtime_ms), skipped.map((x) => x.size), skipped.map((x) => x.reason)],
          );
        }
        if (changes.photos.length) {
          const paths = changes.photos.map((p) => p.row.path);
          await c.query('DELETE FROM imagery_skipped WHERE path = ANY($1)', [paths]);
          const existing = new Set(
            (await c.query<{ path: string }>('SELECT path FROM imagery_photo WHERE path = ANY($1)', [paths])).rows.map((r) => r.path),
          );
          // Many rows a statement: a round trip per photo was most of a scan's time.
          for (let at = 0; at < changes.photos.length; at += PHOTOS_PER_STATEMENT) {
            const values: unknown[] = [];
            const tuples: string[] = [];
            for (const { row, text } of changes.photos.slice(at, at + PHOTOS_PER_STATEMENT))
              // A known path keeps its id (the update leaves it), so ids are drawn for new photos only.
              tuples.push(placeholders(values, [...WRITTEN.map((k) => row[k]), existing.has(row.path) ? '' : newId(), tokenizer.tokens(text)]));
            await c.query(`${UPSERT_HEAD} ${tuples.join(', ')} ${UPSERT_TAIL}`, values);
          }
        }
        await c.query(
          `INSERT INTO imagery_meta (key, value) VALUES ('generation', '1')
           ON CONFLICT (key) DO UPDATE SET value = (imagery_meta.value::bigint + 1)::text`,
        );
      });
      if (reads?.replicated) raise(await reads.mark());
    },

    async match(word) {
      const tokens = tokenizer.tokens(word);
      // A phrase without tokens matches nothing in FTS5 either.
      if (!tokens.length) return [];
      const r =
        tokens.length === 1
          ? await read<{ rowid: number }>('SELECT rowid FROM imagery_photo WHERE words @> $1', [tokens])
          : await read<{ rowid: number }>(
              // Tokens hold no spaces (they split words), so "in a row" is a substring of the spaced list.
              `SELECT rowid FROM imagery_photo WHERE words @> $1
               AND strpos(' ' || array_to_string(words, ' ') || ' ', ' ' || array_to_string($1::text[], ' ') || ' ') > 0`,
              [tokens],
            );
      return r.rows.map((x) => x.rowid);
    },

    async skipped() {
      return (await pool.query<{ path: string; reason: string }>('SELECT path, reason FROM imagery_skipped ORDER BY path COLLATE "C"')).rows;
    },

    async summaries() {
      const c = await pool.connect();
      try {
        // One snapshot of the database: the rows are exactly those of the generation read.
        await c.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
        const generation = await generationOf(c);
        const rows = (await c.query<Summary>('SELECT rowid, lon, lat, year, region_id, taken_at, id, is_video FROM imagery_photo')).rows;
        // At or past every commit this snapshot sees.
        const lsn = reads?.replicated ? (await c.query<{ lsn: string }>('SELECT pg_current_wal_insert_lsn()::text AS lsn')).rows[0]!.lsn : null;
        await c.query('COMMIT');
        raise(parseLsn(lsn));
        return { generation, rows };
      } catch (e) {
        await c.query('ROLLBACK').catch(() => {});
        throw e;
      } finally {
        c.release();
      }
    },

    async rows(rowids) {
      if (!rowids.length) return [];
      const r = await read<PhotoRow>(`SELECT ${ROW} FROM imagery_photo WHERE rowid = ANY($1)`, [rowids]);
      const found = new Map(r.rows.map((x) => [x.rowid, x]));
      return rowids.map((id) => found.get(id)).filter((x): x is PhotoRow => !!x);
    },

    async byId(id) {
      return (await read<PhotoRow>(`SELECT ${ROW} FROM imagery_photo WHERE id = $1`, [id])).rows[0];
    },

    async count() {
      return (await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM imagery_photo')).rows[0]!.n;
    },

    generation: () => generationOf(pool),

    async mediaSecret() {
      // The first process to ask makes it; every other one reads that same key.
      await pool.query("INSERT INTO imagery_meta (key, value) VALUES ('media_secret', $1) ON CONFLICT (key) DO NOTHING", [
        randomBytes(32).toString('hex'),
      ]);
      const r = await pool.query<{ value: string }>("SELECT value FROM imagery_meta WHERE key = 'media_secret'");
      return Buffer.from(r.rows[0]!.value, 'hex');
    },

    async exclusive(scan, stop) {
      // A session lock on a client kept for the scan: a process that dies lets go of it with its connection.
      const c = await pool.connect();
      try {
        // Tried again while another process scans (not a blocking wait, so closing this one is not held up).
        let waited = false;
        while (!(await c.query<{ ok: boolean }>(`SELECT pg_try_advisory_lock(${SCAN_LOCK}) AS ok`)).rows[0]!.ok) {
          if (stop()) throw new Error('the catalog closed while another process was scanning');
          if (!waited) onWait?.();
          waited = true;
          await new Promise((ok) => setTimeout(ok, LOCK_RETRY_MS));
        }
        try {
          return await scan();
        } finally {
          await c.query(`SELECT pg_advisory_unlock(${SCAN_LOCK})`);
        }
      } finally {
        c.release();
      }
    },

    async close() {
      tokenizer.close();
    },
  };
}
