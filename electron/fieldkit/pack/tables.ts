import type { Database } from 'better-sqlite3';
import { columnsOf, ITEM_TABLES, type ItemTable } from '../../cache/transfer';

/**
 * The non-spatial tables of a pack (GeoPackage attributes tables): what the app needs to reopen
 * every question offline. Each row has a stable key (unique), so writing a row again replaces it.
 * Query and item columns are those of the cache that wrote the pack, read from its tables.
 */

export const PACK_FORMAT = 'fieldlens-area-pack';
export const PACK_VERSION = 1;

export const T = {
  meta: 'fieldlens_pack_meta',
  queries: 'fieldlens_pack_queries',
  features: 'fieldlens_pack_features',
  observations: 'fieldlens_pack_observations',
  imagery_records: 'fieldlens_pack_imagery_records',
  uploads: 'fieldlens_pack_uploads',
  queryUploads: 'fieldlens_pack_query_uploads',
  media: 'fieldlens_pack_media',
  layers: 'fieldlens_pack_layers',
  layerFeatures: 'fieldlens_pack_layer_features',
} as const;

export const ITEM_PACK_TABLE: Record<ItemTable, string> = {
  features: T.features,
  observations: T.observations,
  imagery_records: T.imagery_records,
};

const DESCRIPTION: Record<string, string> = {
  [T.meta]: 'What this Fieldlens area pack is: format, area, date range, when written',
  [T.queries]: 'Cached questions and their responses as received (raw_response), one row per question',
  [T.features]: 'Indexed items of each question (names, addresses, boxes), by question key and rank',
  [T.observations]: 'Street-level observation fields of each question item',
  [T.imagery_records]: 'Imagery record fields of each question item',
  [T.uploads]: 'Files sent with questions, by SHA-256',
  [T.queryUploads]: 'Which question sent which file',
  [T.media]: 'Images and videos of the imagery in the area, as blobs, by URL',
  [T.layers]: 'Data layers clipped to the area',
  [T.layerFeatures]: 'Features of the data layers (WKB geometry, tags as JSON)',
};

// Column types a GeoPackage allows; cache columns are declared with these already.
const gpkgType = (t: string) => (/^(INTEGER|REAL|TEXT|BLOB|DOUBLE|DATETIME|BOOLEAN)$/i.test(t) ? t.toUpperCase() : 'TEXT');

const cols = (list: { name: string; type: string }[]) => list.map((c) => `"${c.name}" ${gpkgType(c.type)}`).join(', ');

/** Creates the pack tables in a GeoPackage, shaped after the cache `src`, and registers them. */
export function createPackTables(db: Database, src: Database, now: string): void {
  const queryCols = columnsOf(src, 'queries').filter((c) => c.name !== 'id');
  const ddl = [
    `CREATE TABLE ${T.meta} (id INTEGER PRIMARY KEY AUTOINCREMENT, key TEXT NOT NULL UNIQUE, value TEXT)`,
    // raw_response holds bytes, or text where no bytes were received; a GeoPackage BLOB column
    // must hold bytes, so text is stored as its UTF-8 and flagged to be read back as text.
    `CREATE TABLE ${T.queries} (id INTEGER PRIMARY KEY AUTOINCREMENT, key TEXT NOT NULL UNIQUE, rerun_of_key TEXT,
       raw_is_text INTEGER, ${cols(queryCols)})`,
    ...ITEM_TABLES.map(
      (t) =>
        `CREATE TABLE ${ITEM_PACK_TABLE[t]} (id INTEGER PRIMARY KEY AUTOINCREMENT, query_key TEXT NOT NULL, rank INTEGER NOT NULL, ${cols(
          columnsOf(src, t).filter((c) => c.name !== 'id' && c.name !== 'query_id'),
        )}, UNIQUE (query_key, rank))`,
    ),
    `CREATE TABLE ${T.uploads} (id INTEGER PRIMARY KEY AUTOINCREMENT, key TEXT NOT NULL UNIQUE, name TEXT, size INTEGER,
       content_type TEXT, content BLOB, created_at INTEGER)`,
    `CREATE TABLE ${T.queryUploads} (id INTEGER PRIMARY KEY AUTOINCREMENT, query_key TEXT NOT NULL, field TEXT NOT NULL,
       position INTEGER NOT NULL, name TEXT, upload_key TEXT NOT NULL, UNIQUE (query_key, field, position))`,
    `CREATE TABLE ${T.media} (id INTEGER PRIMARY KEY AUTOINCREMENT, key TEXT NOT NULL UNIQUE, content_type TEXT, size INTEGER,
       bytes BLOB, fetched_at INTEGER)`,
    `CREATE TABLE ${T.layers} (id INTEGER PRIMARY KEY AUTOINCREMENT, key TEXT NOT NULL UNIQUE, name TEXT, source_file TEXT,
       format TEXT, licence TEXT, source_text TEXT, feature_count INTEGER, table_name TEXT)`,
    `CREATE TABLE ${T.layerFeatures} (id INTEGER PRIMARY KEY AUTOINCREMENT, layer_key TEXT NOT NULL, n INTEGER NOT NULL,
       source_id TEXT, sublayer TEXT, geometry BLOB, tags TEXT, UNIQUE (layer_key, n))`,
  ];
  for (const s of ddl) db.exec(s);
  const reg = db.prepare(
    `INSERT INTO gpkg_contents (table_name, data_type, identifier, description, last_change, srs_id) VALUES (?, 'attributes', ?, ?, ?, 0)`,
  );
  for (const name of Object.values(T)) reg.run(name, name, DESCRIPTION[name] ?? '', now);
}

/** The columns two tables share, but the row id: what can be copied from an older pack. */
export function sharedColumns(db: Database, a: string, b: string): string[] {
  const names = new Set(columnsOf(db, b).map((c) => c.name));
  return columnsOf(db, a)
    .map((c) => c.name)
    .filter((n) => n !== 'id' && names.has(n));
}

/** Whether an open database is a Fieldlens area pack (a GeoPackage with the pack's meta table). */
export function isPack(db: Database): boolean {
  const app = db.pragma('application_id', { simple: true }) as number;
  if (app !== 0x47504b47) return false;
  const has = db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`).get(T.meta);
  if (!has) return false;
  const format = db.prepare(`SELECT value FROM ${T.meta} WHERE key = 'format'`).pluck().get();
  return format === PACK_FORMAT;
}
