import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import { inTransaction, placeholders } from '../pg/database';
import { applyPgMigrations } from '../pg/migrations';
import { parseLsn, type DatabaseRouter, type Lsn } from '../pg/replicas';
import { createFtsTokenizer } from './fts-tokens';
import type { ImageryStorage, KnownFile } from './storage';
import { bestPerPhoto, SEEN_PHOTO, sightingOf, type PhotoRow, type Sighting, type Summary, type UnseenPhoto } from './store';

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
  // What the detectors saw in each photo (box in the photo's pixels), and which run looked at it.
  `CREATE TABLE imagery_detection (
     photo_rowid INTEGER NOT NULL REFERENCES imagery_photo (rowid) ON DELETE CASCADE,
     model TEXT NOT NULL,
     label TEXT NOT NULL,
     score DOUBLE PRECISION NOT NULL,
     x DOUBLE PRECISION NOT NULL,
     y DOUBLE PRECISION NOT NULL,
     w DOUBLE PRECISION NOT NULL,
     h DOUBLE PRECISION NOT NULL
   );
   CREATE INDEX imagery_detection_photo ON imagery_detection (photo_rowid);
   CREATE INDEX imagery_detection_label ON imagery_detection (label, score);
   CREATE TABLE imagery_seen (
     photo_rowid INTEGER NOT NULL REFERENCES imagery_photo (rowid) ON DELETE CASCADE,
     run TEXT NOT NULL,
     PRIMARY KEY (photo_rowid, run)
   );
   CREATE TABLE imagery_text (
     photo_rowid INTEGER PRIMARY KEY REFERENCES imagery_photo (rowid) ON DELETE CASCADE,
     lines TEXT[] NOT NULL,
     words TEXT[] NOT NULL
   );
   CREATE INDEX imagery_text_words ON imagery_text USING GIN (words);`,
  // The device and inode a photo was indexed from: its bytes are served only from that same file.
  `ALTER TABLE imagery_photo ADD COLUMN dev BIGINT, ADD COLUMN ino BIGINT;`,
];

/** The columns of PhotoRow (size as a number: pg reads BIGINT as text). */
const ROW = `rowid, id, path, root, mtime_ms, size::float8 AS size, mime, lon, lat, direction, taken_at, year, month,
  description, keywords, make, artist, width, height, interactive, city, country, country_code, region_id, address,
  is_video, duration, dev::float8 AS dev, ino::float8 AS ino`;
const WRITTEN = [
  'path', 'root', 'mtime_ms', 'size', 'mime', 'lon', 'lat', 'direction', 'taken_at', 'year', 'month', 'description',
  'keywords', 'make', 'artist', 'width', 'height', 'interactive', 'city', 'country', 'country_code', 'region_id',
  'address', 'is_video', 'duration', 'dev', 'ino',
] as const;
const UPSERT_HEAD = `INSERT INTO imagery_photo (${[...WRITTEN, 'id', 'words'].join(', ')}) VALUES`;
const UPSERT_TAIL = `ON CONFLICT (path) DO UPDATE SET ${[...WRITTEN.slice(1), 'words'].map((c) => `${c} = excluded.${c}`).join(', ')}`;
/** 29 parameters a photo, well under PostgreSQL's 65,535 a statement. */
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
      const r = await pool.query<KnownFile & { path: string }>(
        `SELECT path, mtime_ms, size::float8 AS size, false AS skipped, dev::float8 AS dev, ino::float8 AS ino FROM imagery_photo
         UNION ALL SELECT path, mtime_ms, size::float8, true, NULL, NULL FROM imagery_skipped ORDER BY skipped`,
      );
      for (const { path, ...k } of r.rows) out.set(path, k);
      return out;
    },

    async apply(changes, newId) {
      const identified = changes.identified ?? [];
      if (!changes.removed.length && !changes.skipped.length && !changes.photos.length && !identified.length) return;
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
          // A changed file is looked at again by the detectors.
          await c.query('DELETE FROM imagery_seen WHERE photo_rowid IN (SELECT rowid FROM imagery_photo WHERE path = ANY($1))', [paths]);
          await c.query('DELETE FROM imagery_detection WHERE photo_rowid IN (SELECT rowid FROM imagery_photo WHERE path = ANY($1))', [paths]);
          await c.query('DELETE FROM imagery_text WHERE photo_rowid IN (SELECT rowid FROM imagery_photo WHERE path = ANY($1))', [paths]);
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
        if (identified.length)
          await c.query(
            `UPDATE imagery_photo p SET dev = f.dev, ino = f.ino
             FROM unnest($1::text[], $2::bigint[], $3::bigint[]) AS f (path, dev, ino) WHERE p.path = f.path`,
            [identified.map((f) => f.path), identified.map((f) => f.dev), identified.map((f) => f.ino)],
          );
        await c.query(
          `INSERT INTO imagery_meta (key, value) VALUES ('generation', '1')
           ON CONFLICT (key) DO UPDATE SET value = (imagery_meta.value::bigint + 1)::text`,
        );
      });
      if (reads?.replicated) raise(await reads.mark());
    },

    async match(word, withRead = true) {
      const tokens = tokenizer.tokens(word);
      // A phrase without tokens matches nothing in FTS5 either.
      if (!tokens.length) return [];
      // Tokens hold no spaces (they split words), so "in a row" is a substring of the spaced list.
      const inRow = tokens.length === 1 ? '' : ` AND strpos(' ' || array_to_string(words, ' ') || ' ', ' ' || array_to_string($1::text[], ' ') || ' ') > 0`;
      // The photo's words, then the words of the text read in it.
      const r = await read<{ rowid: number }>(
        `SELECT rowid FROM imagery_photo WHERE words @> $1${inRow}` +
          (withRead ? ` UNION SELECT photo_rowid FROM imagery_text WHERE words @> $1${inRow}` : ''),
        [tokens],
      );
      return r.rows.map((x) => x.rowid);
    },

    async unseen(run, limit, skip = []) {
      const r = await pool.query<UnseenPhoto>(
        `SELECT p.rowid, p.path, p.dev::float8 AS dev, p.ino::float8 AS ino FROM imagery_photo p
         WHERE p.is_video = 0 AND NOT EXISTS (SELECT 1 FROM imagery_seen s WHERE s.photo_rowid = p.rowid AND s.run = $1)
         AND NOT EXISTS (SELECT 1 FROM unnest($3::text[]) d WHERE left(p.path, length(d)) = d)
         ORDER BY p.rowid LIMIT $2`,
        [run, limit, skip],
      );
      return r.rows;
    },

    async forgetSeenUnder(folders) {
      if (!folders.length) return;
      await inTransaction(pool, async (c) => {
        const under = `SELECT p.rowid FROM imagery_photo p, unnest($1::text[]) d WHERE left(p.path, length(d)) = d`;
        for (const table of ['imagery_detection', 'imagery_text', 'imagery_seen'])
          await c.query(`DELETE FROM ${table} WHERE photo_rowid IN (${under})`, [folders]);
      });
      if (reads?.replicated) raise(await reads.mark());
    },

    async putSightings(rowid, path, run, seen, text = []) {
      await inTransaction(pool, async (c) => {
        const here = await c.query('SELECT 1 FROM imagery_photo WHERE rowid = $1 AND path = $2 FOR UPDATE', [rowid, path]);
        if (!here.rowCount) return;
        await c.query('DELETE FROM imagery_detection WHERE photo_rowid = $1', [rowid]);
        await c.query('DELETE FROM imagery_text WHERE photo_rowid = $1', [rowid]);
        if (text.length)
          await c.query('INSERT INTO imagery_text (photo_rowid, lines, words) VALUES ($1, $2, $3)', [rowid, text, tokenizer.tokens(text.join('\n'))]);
        if (seen.length)
          await c.query(
            `INSERT INTO imagery_detection (photo_rowid, model, label, score, x, y, w, h)
             SELECT $1, * FROM unnest($2::text[], $3::text[], $4::float8[], $5::float8[], $6::float8[], $7::float8[], $8::float8[])`,
            [rowid, ...(['model', 'label', 'score'] as const).map((k) => seen.map((d) => d[k])), ...[0, 1, 2, 3].map((i) => seen.map((d) => d.box[i]))],
          );
        await c.query('INSERT INTO imagery_seen (photo_rowid, run) VALUES ($1, $2) ON CONFLICT DO NOTHING', [rowid, run]);
      });
      // Text read in the photo is searched on replicas: they serve it once they have replayed this.
      if (reads?.replicated) raise(await reads.mark());
    },

    async seenWith(label) {
      const r = await pool.query<Parameters<typeof sightingOf>[0]>('SELECT * FROM imagery_detection WHERE label = $1 ORDER BY score DESC', [label]);
      const out = new Map<number, Sighting>();
      for (const x of r.rows) if (!out.has(x.photo_rowid)) out.set(x.photo_rowid, sightingOf(x));
      return out;
    },

    async seenPhotos(label) {
      const r = await pool.query(
        `SELECT ${SEEN_PHOTO} FROM imagery_detection d JOIN imagery_photo p ON p.rowid = d.photo_rowid
         WHERE d.label = $1 AND p.is_video = 0 ORDER BY d.score DESC`,
        [label],
      );
      return bestPerPhoto(r.rows as Parameters<typeof bestPerPhoto>[0]);
    },

    async sightings(rowids) {
      const out = new Map<number, Sighting[]>();
      if (!rowids.length) return out;
      const r = await pool.query<Parameters<typeof sightingOf>[0]>(
        'SELECT * FROM imagery_detection WHERE photo_rowid = ANY($1) ORDER BY score DESC',
        [rowids],
      );
      for (const x of r.rows) {
        const list = out.get(x.photo_rowid) ?? [];
        list.push(sightingOf(x));
        out.set(x.photo_rowid, list);
      }
      return out;
    },

    async textLines(rowids) {
      const out = new Map<number, string[]>();
      if (!rowids.length) return out;
      const r = await pool.query<{ photo_rowid: number; lines: string[] }>('SELECT photo_rowid, lines FROM imagery_text WHERE photo_rowid = ANY($1)', [rowids]);
      for (const x of r.rows) out.set(x.photo_rowid, x.lines);
      return out;
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
