import type { Database } from 'better-sqlite3';
import { runMigrations, userVersion } from '../ground/migrations';

export interface Migration {
  version: number;
  up(db: Database): void;
}

/**
 * Feature row ids are `query_id * FEATURE_ID_SPAN + rank`: the features of one query form one
 * contiguous rowid range, so reading, counting and deleting them needs no secondary index, and
 * the FTS and R*Tree entries can be written with one INSERT .. SELECT over that range.
 */
export const FEATURE_ID_SPAN = 2 ** 20;

/** Numbered migrations; each runs once, all pending ones in one transaction at open. */
export const migrations: Migration[] = [
  {
    version: 1,
    up(db) {
      db.exec(`
        CREATE TABLE queries (
          id INTEGER PRIMARY KEY,
          kind TEXT NOT NULL CHECK (kind IN ('compute', 'stream', 'imagery')),
          profile_id TEXT NOT NULL,
          query_text TEXT NOT NULL,
          request_json TEXT NOT NULL,
          outcome TEXT NOT NULL CHECK (outcome IN ('ok', 'failed', 'error')),
          remote_id TEXT,
          search_id TEXT,
          rerun_of INTEGER,
          answer_status TEXT,
          answer_content TEXT,
          answer_error_json TEXT,
          warnings_json TEXT,
          usage_json TEXT,
          usage_meters REAL,
          number_matched INTEGER,
          number_returned INTEGER,
          feature_count INTEGER NOT NULL DEFAULT 0,
          page INTEGER,
          page_total INTEGER,
          region TEXT,
          region_id TEXT,
          year TEXT,
          started_at INTEGER NOT NULL,
          finished_at INTEGER NOT NULL,
          duration_ms REAL NOT NULL,
          server_duration_ms REAL,
          http_status INTEGER,
          error_json TEXT,
          minx REAL, miny REAL, maxx REAL, maxy REAL,
          -- The body exactly as received: its bytes (BLOB), or text where no bytes exist.
          raw_response BLOB
        );
        CREATE INDEX queries_started ON queries (started_at);
        CREATE INDEX queries_profile_kind ON queries (profile_id, kind, started_at);
        CREATE INDEX queries_remote ON queries (remote_id) WHERE remote_id IS NOT NULL;
        CREATE INDEX queries_search ON queries (search_id) WHERE search_id IS NOT NULL;

        -- One row per returned item of any kind: compute features, stream observations and
        -- imagery records, with what search, maps and diffs need (names, addresses, boxes).
        -- The complete item stays in queries.raw_response; seq is its index there. Kind-specific
        -- columns of observations and imagery live in observations / imagery_records.
        CREATE TABLE features (
          id INTEGER PRIMARY KEY,
          query_id INTEGER NOT NULL,
          seq INTEGER NOT NULL,
          feature_id TEXT NOT NULL,
          name TEXT,
          address TEXT,
          minx REAL, miny REAL, maxx REAL, maxy REAL,
          score REAL
        );
        CREATE TABLE observations (
          id INTEGER PRIMARY KEY,
          date TEXT, year TEXT, month TEXT, source TEXT, owner TEXT,
          image_url TEXT, is_video INTEGER, video_id TEXT, video_url TEXT, duration REAL,
          interactive INTEGER
        );
        CREATE TABLE imagery_records (
          id INTEGER PRIMARY KEY,
          date TEXT, compass TEXT, interactive INTEGER, image TEXT
        );

        -- External-content FTS: the text is stored once (in features / queries) and the index is
        -- filled with one INSERT .. SELECT per response. detail=none and no column sizes keep
        -- the per-feature cost low; the app builds term/prefix queries, never phrases.
        CREATE VIRTUAL TABLE features_fts USING fts5(
          name, address, content='features', content_rowid='id',
          detail=none, columnsize=0, tokenize='unicode61 remove_diacritics 2'
        );
        CREATE VIRTUAL TABLE queries_fts USING fts5(
          query_text, content='queries', content_rowid='id',
          detail=none, columnsize=0, tokenize='unicode61 remove_diacritics 2'
        );

        -- R*Tree over spatially sorted runs of features: one entry per run of up to 32 features
        -- (id = first feature rowid, last_id = last), not one per feature.
        CREATE VIRTUAL TABLE features_rtree USING rtree(id, minx, maxx, miny, maxy, +last_id);

        CREATE TABLE uploads (
          id INTEGER PRIMARY KEY,
          sha256 TEXT NOT NULL UNIQUE,
          name TEXT NOT NULL,
          size INTEGER NOT NULL,
          content_type TEXT,
          content BLOB NOT NULL,
          created_at INTEGER NOT NULL
        );
        CREATE TABLE query_uploads (
          query_id INTEGER NOT NULL,
          upload_id INTEGER NOT NULL,
          field TEXT NOT NULL CHECK (field IN ('files', 'images')),
          position INTEGER NOT NULL,
          name TEXT NOT NULL,
          PRIMARY KEY (query_id, field, position)
        ) WITHOUT ROWID;
        CREATE INDEX query_uploads_upload ON query_uploads (upload_id);

        CREATE TABLE media (
          url TEXT PRIMARY KEY,
          content_type TEXT NOT NULL,
          size INTEGER NOT NULL,
          bytes BLOB NOT NULL,
          fetched_at INTEGER NOT NULL
        );
      `);
    },
  },
  {
    version: 2,
    up(db) {
      // Questions asked while the connection was down, kept until they are answered or dropped.
      db.exec(`
        CREATE TABLE question_queue (
          id INTEGER PRIMARY KEY,
          profile_id TEXT NOT NULL,
          query_text TEXT NOT NULL,
          request_json TEXT NOT NULL,
          attachments_json TEXT,
          status TEXT NOT NULL CHECK (status IN ('queued', 'running', 'answered', 'failed')),
          created_at INTEGER NOT NULL,
          updated_at INTEGER NOT NULL,
          query_id INTEGER,
          error_json TEXT
        );
        CREATE INDEX question_queue_status ON question_queue (status, id);
      `);
    },
  },
  {
    version: 3,
    up(db) {
      // History by place and words: an R*Tree over each entry's extent names the entries a map extent or
      // drawn area can touch, and each entry's runs (the boxes of features_rtree, which the
      // R*Tree can only look up by exact id) in a plain table, read by rowid range, say where in
      // the entry to look. Filled from what is already stored: the R*Tree keeps 32-bit boxes
      // rounded outwards, so backfilled runs stay a superset and features decide.
      db.exec(`
        CREATE VIRTUAL TABLE queries_rtree USING rtree(id, minx, maxx, miny, maxy);
        INSERT INTO queries_rtree (id, minx, maxx, miny, maxy)
          SELECT id, minx, maxx, miny, maxy FROM queries WHERE minx IS NOT NULL;
        CREATE TABLE feature_runs (
          id INTEGER PRIMARY KEY,
          last_id INTEGER NOT NULL,
          minx REAL NOT NULL, miny REAL NOT NULL, maxx REAL NOT NULL, maxy REAL NOT NULL
        );
        INSERT INTO feature_runs (id, last_id, minx, miny, maxx, maxy)
          SELECT id, last_id, minx, miny, maxx, maxy FROM features_rtree;

        -- History by words: one document per entry (its text and its items' names and
        -- addresses), contentless, so a word costs one doclist of entries, not of features.
        CREATE VIRTUAL TABLE entry_words USING fts5(
          words, content='', contentless_delete=1, detail=none, tokenize='unicode61 remove_diacritics 2'
        );
        INSERT INTO entry_words (rowid, words)
          SELECT q.id, q.query_text || char(10) || coalesce((SELECT group_concat(coalesce(f.name, '') || char(10) || coalesce(f.address, ''), char(10))
            FROM features f WHERE f.id BETWEEN q.id * ${FEATURE_ID_SPAN} AND q.id * ${FEATURE_ID_SPAN} + ${FEATURE_ID_SPAN - 1}), '')
          FROM queries q;
      `);
    },
  },
  {
    version: 4,
    up(db) {
      // Basemap tiles opened from area packs, by their XYZ numbers, so the map draws them offline.
      db.exec('CREATE TABLE basemap_tiles (z INTEGER NOT NULL, x INTEGER NOT NULL, y INTEGER NOT NULL, data BLOB NOT NULL, PRIMARY KEY (z, x, y)) WITHOUT ROWID');
    },
  },
  {
    version: 5,
    up(db) {
      // Entries stored whose words are not yet in the text indexes (queries_fts, features_fts,
      // entry_words): they are indexed when writes pause or before a word search (see words.ts).
      db.exec('CREATE TABLE words_pending (query_id INTEGER PRIMARY KEY)');
    },
  },
];

/** Applies the pending cache migrations (user_version) with the one runner of the ground floor. */
export function migrate(db: Database, list: Migration[] = migrations): { from: number; to: number } {
  const sorted = [...list].sort((a, b) => a.version - b.version);
  sorted.forEach((m, i) => {
    if (m.version !== i + 1) throw new Error(`cache migrations must be numbered 1..n (found ${m.version} at ${i + 1})`);
  });
  return runMigrations(db, sorted.map((m) => m.up), userVersion, { label: 'the query cache', onNewer: 'accept' });
}
