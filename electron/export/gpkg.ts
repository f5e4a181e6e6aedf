import Database from 'better-sqlite3';
import type { Geometry } from '../../shared/service/geojson';
import { emptyEnvelope, gpkgGeometry, GPKG_TYPE_NAME, mergeEnvelope } from './geometry';
import { defaultQml } from './qgis-style';
import { BoxList, bulkLoadRtree } from './rtree-bulk';
import { derivedCells, FieldSet, layoutColumns, type FieldLayout } from './fields';
import { COLUMNS, flatRecords, ID_COLUMN, syncRecords, type Column, type FlatRecord } from './records';
import type { ExportedLayer, ExportLayer, LayerProvenance, Tick } from './types';

/**
 * GeoPackage 1.3 writer (OGC 12-128r17) on better-sqlite3.
 *
 * Features arrive once, as a stream, yet the geometry column's declared type and the typed
 * columns of other properties and attributes (fields.ts) depend on all of them. So each layer is
 * first appended to a TEMP staging table (blob, spec columns, the rest as JSON) and then copied
 * in one INSERT ... SELECT into its final table, the derived cells coming from fields.ts. Envelopes are kept in typed arrays on the way and bulk-loaded into the R-tree, and the
 * standard triggers are created afterwards.
 */

export const GPKG_APPLICATION_ID = 0x47504b47; // 'GPKG'
export const GPKG_USER_VERSION = 10300;
export const GEOMETRY_COLUMN = 'geom';
export const PROVENANCE_TABLE = 'fieldlens_provenance';
export const STYLES_TABLE = 'layer_styles';

const WGS84_WKT =
  'GEOGCS["WGS 84",DATUM["WGS_1984",SPHEROID["WGS 84",6378137,298.257223563,AUTHORITY["EPSG","7030"]],' +
  'AUTHORITY["EPSG","6326"]],PRIMEM["Greenwich",0,AUTHORITY["EPSG","8901"]],' +
  'UNIT["degree",0.0174532925199433,AUTHORITY["EPSG","9122"]],AXIS["Latitude",NORTH],AXIS["Longitude",EAST],' +
  'AUTHORITY["EPSG","4326"]]';

const CORE_SCHEMA = `
CREATE TABLE gpkg_spatial_ref_sys (
  srs_name TEXT NOT NULL, srs_id INTEGER NOT NULL PRIMARY KEY, organization TEXT NOT NULL,
  organization_coordsys_id INTEGER NOT NULL, definition TEXT NOT NULL, description TEXT);
CREATE TABLE gpkg_contents (
  table_name TEXT NOT NULL PRIMARY KEY, data_type TEXT NOT NULL, identifier TEXT UNIQUE,
  description TEXT DEFAULT '', last_change DATETIME NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),
  min_x DOUBLE, min_y DOUBLE, max_x DOUBLE, max_y DOUBLE, srs_id INTEGER,
  CONSTRAINT fk_gc_r_srs_id FOREIGN KEY (srs_id) REFERENCES gpkg_spatial_ref_sys(srs_id));
CREATE TABLE gpkg_geometry_columns (
  table_name TEXT NOT NULL, column_name TEXT NOT NULL, geometry_type_name TEXT NOT NULL,
  srs_id INTEGER NOT NULL, z TINYINT NOT NULL, m TINYINT NOT NULL,
  CONSTRAINT pk_geom_cols PRIMARY KEY (table_name, column_name),
  CONSTRAINT uk_gc_table_name UNIQUE (table_name),
  CONSTRAINT fk_gc_tn FOREIGN KEY (table_name) REFERENCES gpkg_contents(table_name),
  CONSTRAINT fk_gc_srs FOREIGN KEY (srs_id) REFERENCES gpkg_spatial_ref_sys (srs_id));
CREATE TABLE gpkg_extensions (
  table_name TEXT, column_name TEXT, extension_name TEXT NOT NULL, definition TEXT NOT NULL,
  scope TEXT NOT NULL, CONSTRAINT ge_tce UNIQUE (table_name, column_name, extension_name));
CREATE TABLE gpkg_tile_matrix_set (
  table_name TEXT NOT NULL PRIMARY KEY, srs_id INTEGER NOT NULL, min_x DOUBLE NOT NULL,
  min_y DOUBLE NOT NULL, max_x DOUBLE NOT NULL, max_y DOUBLE NOT NULL,
  CONSTRAINT fk_gtms_table_name FOREIGN KEY (table_name) REFERENCES gpkg_contents(table_name),
  CONSTRAINT fk_gtms_srs FOREIGN KEY (srs_id) REFERENCES gpkg_spatial_ref_sys (srs_id));
CREATE TABLE gpkg_tile_matrix (
  table_name TEXT NOT NULL, zoom_level INTEGER NOT NULL, matrix_width INTEGER NOT NULL,
  matrix_height INTEGER NOT NULL, tile_width INTEGER NOT NULL, tile_height INTEGER NOT NULL,
  pixel_x_size DOUBLE NOT NULL, pixel_y_size DOUBLE NOT NULL,
  CONSTRAINT pk_ttm PRIMARY KEY (table_name, zoom_level),
  CONSTRAINT fk_tmm_table_name FOREIGN KEY (table_name) REFERENCES gpkg_contents(table_name));
CREATE TABLE ${STYLES_TABLE} (
  "id" INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, "f_table_catalog" TEXT(256), "f_table_schema" TEXT(256),
  "f_table_name" TEXT(256), "f_geometry_column" TEXT(256), "styleName" TEXT(30), "styleQML" TEXT,
  "styleSLD" TEXT, "useAsDefault" BOOLEAN, "description" TEXT, "owner" TEXT(30), "ui" TEXT(30),
  "update_time" DATETIME DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')));
CREATE TABLE ${PROVENANCE_TABLE} (
  "id" INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, "table_name" TEXT NOT NULL, "layer_name" TEXT NOT NULL,
  "kind" TEXT NOT NULL, "query_text" TEXT, "remote_id" TEXT, "result_id" TEXT, "search_id" TEXT,
  "query_time" DATETIME, "profile_label" TEXT, "base_url" TEXT, "search_base_url" TEXT,
  "evidence_sha256" TEXT, "feature_count" INTEGER NOT NULL, "exported_at" DATETIME NOT NULL);
`;

const q = (id: string) => `"${id.replace(/"/g, '""')}"`;

const RESERVED_PREFIX = /^(gpkg|rtree|sqlite|gpkgext)_/i;

/** The longest table name written: short enough for QGIS's layer list and for shapefile-minded tools. */
export const TABLE_NAME_MAX = 48;

/** Layer name -> table name: letters, digits and underscores, starting with a letter, unique ignoring case. */
export function tableNameFor(name: string, taken: Set<string>): string {
  let base = name
    .normalize('NFC')
    .replace(/[^\p{L}\p{N}_]+/gu, '_')
    .replace(/_+/g, '_')
    .replace(/^_|_$/g, '')
    .slice(0, TABLE_NAME_MAX)
    .replace(/_$/, '');
  if (!/^\p{L}/u.test(base) || RESERVED_PREFIX.test(base)) base = `layer_${base}`.replace(/_$/, '');
  let table = base;
  for (let n = 2; taken.has(table.toLowerCase()); n++) table = `${base}_${n}`;
  taken.add(table.toLowerCase());
  return table;
}

/** Service URLs without user info or key-like query parameters, so nothing secret is written. */
export function safeUrl(url: string): string {
  try {
    const u = new URL(url);
    u.username = '';
    u.password = '';
    for (const k of [...u.searchParams.keys()]) if (/key|token|secret|auth|pass|sig/i.test(k)) u.searchParams.delete(k);
    return u.toString();
  } catch {
    return url.replace(/\/\/[^/@]*@/, '//');
  }
}

function isoTime(t: string | Date | undefined): string | null {
  if (t === undefined) return null;
  const d = t instanceof Date ? t : new Date(t);
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}

/**
 * The GeoPackage 1.3 R-tree triggers (spec F.3). Created after the bulk load, so they never run
 * here; the ST_ functions they call come from whichever application edits the file (GDAL, QGIS).
 */
export function rtreeTriggers(t: string, c: string): string {
  const r = q(`rtree_${t}_${c}`);
  const rn = (suffix: string) => q(`rtree_${t}_${c}_${suffix}`);
  const T = q(t);
  const C = q(c);
  const values = `NEW."fid", ST_MinX(NEW.${C}), ST_MaxX(NEW.${C}), ST_MinY(NEW.${C}), ST_MaxY(NEW.${C})`;
  return `
CREATE TRIGGER ${rn('insert')} AFTER INSERT ON ${T}
WHEN (new.${C} NOT NULL AND NOT ST_IsEmpty(NEW.${C}))
BEGIN INSERT OR REPLACE INTO ${r} VALUES (${values}); END;
CREATE TRIGGER ${rn('update1')} AFTER UPDATE OF ${C} ON ${T}
WHEN OLD."fid" = NEW."fid" AND (NEW.${C} NOTNULL AND NOT ST_IsEmpty(NEW.${C}))
BEGIN INSERT OR REPLACE INTO ${r} VALUES (${values}); END;
CREATE TRIGGER ${rn('update2')} AFTER UPDATE OF ${C} ON ${T}
WHEN OLD."fid" = NEW."fid" AND (NEW.${C} ISNULL OR ST_IsEmpty(NEW.${C}))
BEGIN DELETE FROM ${r} WHERE id = OLD."fid"; END;
CREATE TRIGGER ${rn('update3')} AFTER UPDATE ON ${T}
WHEN OLD."fid" != NEW."fid" AND (NEW.${C} NOTNULL AND NOT ST_IsEmpty(NEW.${C}))
BEGIN DELETE FROM ${r} WHERE id = OLD."fid"; INSERT OR REPLACE INTO ${r} VALUES (${values}); END;
CREATE TRIGGER ${rn('update4')} AFTER UPDATE ON ${T}
WHEN OLD."fid" != NEW."fid" AND (NEW.${C} ISNULL OR ST_IsEmpty(NEW.${C}))
BEGIN DELETE FROM ${r} WHERE id IN (OLD."fid", NEW."fid"); END;
CREATE TRIGGER ${rn('delete')} AFTER DELETE ON ${T}
WHEN old.${C} NOT NULL
BEGIN DELETE FROM ${r} WHERE id = OLD."fid"; END;`;
}

export interface GpkgOptions {
  tick: Tick;
  clock?: () => Date;
}

/** Writes every layer into a new GeoPackage at `path` (which must not exist). */
export async function writeGeoPackage(path: string, layers: readonly ExportLayer[], opts: GpkgOptions): Promise<ExportedLayer[]> {
  const db = new Database(path);
  try {
    // A new file the caller deletes on failure: no journal, no fsync until the end.
    db.pragma('journal_mode = OFF');
    db.pragma('synchronous = OFF');
    db.pragma('locking_mode = EXCLUSIVE');
    db.pragma('cache_size = -32768');
    db.pragma(`application_id = ${GPKG_APPLICATION_ID}`);
    db.pragma(`user_version = ${GPKG_USER_VERSION}`);
    db.exec('BEGIN');
    db.exec(CORE_SCHEMA);
    const srs = db.prepare('INSERT INTO gpkg_spatial_ref_sys VALUES (?, ?, ?, ?, ?, ?)');
    srs.run('Undefined cartesian SRS', -1, 'NONE', -1, 'undefined', 'undefined cartesian coordinate reference system');
    srs.run('Undefined geographic SRS', 0, 'NONE', 0, 'undefined', 'undefined geographic coordinate reference system');
    srs.run('WGS 84 geodetic', 4326, 'EPSG', 4326, WGS84_WKT, 'longitude/latitude coordinates in decimal degrees on the WGS 84 spheroid');

    const now = (opts.clock ?? (() => new Date()))().toISOString();
    const taken = new Set([STYLES_TABLE, PROVENANCE_TABLE]);
    const identifiers = new Set<string>([STYLES_TABLE, PROVENANCE_TABLE]);
    const out: ExportedLayer[] = [];
    for (const layer of layers) {
      const table = tableNameFor(layer.name, taken);
      let identifier = layer.name.trim() || table;
      for (let n = 2; identifiers.has(identifier); n++) identifier = `${layer.name.trim() || table} (${n})`;
      identifiers.add(identifier);
      out.push(await writeLayer(db, layer, table, identifier, now, opts.tick));
    }

    const contents = db.prepare(
      'INSERT INTO gpkg_contents (table_name, data_type, identifier, description, last_change, srs_id) VALUES (?, ?, ?, ?, ?, 0)',
    );
    contents.run(STYLES_TABLE, 'attributes', STYLES_TABLE, 'Default QGIS style of each layer', now);
    contents.run(PROVENANCE_TABLE, 'attributes', PROVENANCE_TABLE, 'Where each layer came from', now);
    db.exec('COMMIT');
    db.pragma('journal_mode = DELETE');
    return out;
  } finally {
    db.close();
  }
}

const REST = 'rest';

/**
 * Registers fieldlens_cell(fid, rest, i): the i-th derived cell of a staged row, computed by
 * fields.ts from the row's staged JSON, parsed once per row.
 */
function useLayout(db: Database.Database, layout: FieldLayout): void {
  let lastFid = -1;
  let cells: (string | number | null)[] = [];
  db.function('fieldlens_cell', { deterministic: false, directOnly: true }, (fid, rest, i) => {
    if (fid !== lastFid) {
      lastFid = fid as number;
      const [props, attrs] = rest === null ? [null, null] : (JSON.parse(rest as string) as [Record<string, unknown> | null, Record<string, unknown> | null]);
      cells = derivedCells(layout, props, attrs);
    }
    return cells[i as number] ?? null;
  });
}

async function writeLayer(
  db: Database.Database,
  layer: ExportLayer,
  table: string,
  identifier: string,
  now: string,
  tick: Tick,
): Promise<ExportedLayer> {
  const fixed: readonly Column[] = COLUMNS[layer.kind];
  const stageCols = [ID_COLUMN, ...fixed.map((c) => c.name), REST];
  db.exec('DROP TABLE IF EXISTS temp.stage');
  db.exec(`CREATE TEMP TABLE stage (fid INTEGER PRIMARY KEY, geom BLOB, ${stageCols.map(q).join(', ')})`);
  const insert = db.prepare(`INSERT INTO temp.stage VALUES (${Array(2 + stageCols.length).fill('?').join(', ')})`);
  const fields = new FieldSet(fixed);
  const geomTypes = new Set<string>();
  const bounds = emptyEnvelope();
  const boxes = new BoxList();
  let fid = 0;
  const args: unknown[] = new Array(2 + stageCols.length);

  const add = (rec: FlatRecord) => {
    fid++;
    args[0] = fid;
    const g = rec.geometry as Geometry | null;
    if (g) {
      const { blob, envelope } = gpkgGeometry(g);
      geomTypes.add(GPKG_TYPE_NAME[g.type]);
      args[1] = blob;
      if (envelope) {
        mergeEnvelope(bounds, envelope);
        boxes.push(fid, envelope.minX, envelope.maxX, envelope.minY, envelope.maxY);
      }
    } else args[1] = null;
    args[2] = rec.id;
    const v = rec.values;
    for (let i = 0; i < v.length; i++) args[3 + i] = v[i];
    fields.observe(rec.extras, rec.attributes);
    args[3 + v.length] = rec.extras || rec.attributes ? JSON.stringify([rec.extras, rec.attributes]) : null;
    insert.run(args);
  };

  const sync = syncRecords(layer);
  if (sync) {
    for (const rec of sync) {
      add(rec);
      const t = tick(layer.name);
      if (t) await t;
    }
  } else {
    for await (const rec of flatRecords(layer)) {
      add(rec);
      const t = tick(layer.name);
      if (t) await t;
    }
  }

  const geometryType =
    geomTypes.size === 1 ? [...geomTypes][0]! : geomTypes.size === 0 && layer.kind !== 'compute' ? 'POINT' : 'GEOMETRY';
  const layout = fields.layout();
  const derived = layoutColumns(layout).slice(fixed.length);
  // A file or data layer beside the answers has none of the service's fields (score, source...):
  // its table leaves out those no feature fills, so it reads like the file it came from.
  const kept = (layer.role ?? 'answer') === 'answer' ? fixed : fixed.filter((c) => db.prepare(`SELECT 1 FROM temp.stage WHERE ${q(c.name)} IS NOT NULL LIMIT 1`).get());
  const T = q(table);
  const columnDefs = [
    `"fid" INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL`,
    `${q(GEOMETRY_COLUMN)} ${geometryType}`,
    `${q(ID_COLUMN)} TEXT`,
    ...[...kept, ...derived].map((c) => `${q(c.name)} ${c.type}`),
  ];
  db.exec(`CREATE TABLE ${T} (${columnDefs.join(', ')})`);
  const targetCols = ['fid', GEOMETRY_COLUMN, ID_COLUMN, ...kept.map((c) => c.name), ...derived.map((c) => c.name)].map(q).join(', ');
  // Plain cells are copied by SQLite itself (json_extract gives 0/1 for booleans, as cellOf does);
  // the rest go through fields.ts, as do keys a JSON path cannot quote.
  const sourceCols = [
    'fid',
    'geom',
    q(ID_COLUMN),
    ...kept.map((c) => q(c.name)),
    ...derived.map((c, i) => {
      const f = layout.derived[i];
      return f?.plain && !/["\\]/.test(f.key)
        ? `json_extract(${q(REST)}, '$[${f.origin === 'property' ? 0 : 1}]."${f.key.replace(/'/g, "''")}"')`
        : `fieldlens_cell(fid, ${q(REST)}, ${i})`;
    }),
  ];
  useLayout(db, layout);
  db.exec(`INSERT INTO ${T} (${targetCols}) SELECT ${sourceCols.join(', ')} FROM temp.stage ORDER BY fid`);

  const rtreeName = `rtree_${table}_${GEOMETRY_COLUMN}`;
  db.exec(`CREATE VIRTUAL TABLE ${q(rtreeName)} USING rtree(id, minx, maxx, miny, maxy)`);
  bulkLoadRtree(db, rtreeName, boxes);
  db.exec(rtreeTriggers(table, GEOMETRY_COLUMN));
  db.exec('DROP TABLE temp.stage');

  const hasBounds = bounds.minX !== Infinity;
  const prov = layer.provenance;
  db.prepare(
    `INSERT INTO gpkg_contents (table_name, data_type, identifier, description, last_change, min_x, min_y, max_x, max_y, srs_id)
     VALUES (?, 'features', ?, ?, ?, ?, ?, ?, ?, 4326)`,
  ).run(
    table,
    identifier,
    prov?.queryText ?? '',
    now,
    hasBounds ? bounds.minX : null,
    hasBounds ? bounds.minY : null,
    hasBounds ? bounds.maxX : null,
    hasBounds ? bounds.maxY : null,
  );
  db.prepare('INSERT INTO gpkg_geometry_columns VALUES (?, ?, ?, 4326, 0, 0)').run(table, GEOMETRY_COLUMN, geometryType);
  db.prepare(
    `INSERT INTO gpkg_extensions VALUES (?, ?, 'gpkg_rtree_index', 'http://www.geopackage.org/spec120/#extension_rtree', 'write-only')`,
  ).run(table, GEOMETRY_COLUMN);
  db.prepare(
    `INSERT INTO ${STYLES_TABLE} (f_table_catalog, f_table_schema, f_table_name, f_geometry_column, styleName, styleQML,
       styleSLD, useAsDefault, description, owner, ui, update_time) VALUES ('', '', ?, ?, ?, ?, '', 1, ?, '', NULL, ?)`,
  ).run(table, GEOMETRY_COLUMN, table.slice(0, 30), defaultQml(layer.kind, geometryType), `Default style for ${identifier}`, now);
  writeProvenance(db, table, identifier, layer.kind, prov, fid, now);

  const columns = mapColumns(layer.kind, layout);
  for (const c of fixed) if (!kept.includes(c)) delete columns[c.name];
  return { name: identifier, table, kind: layer.kind, count: fid, geometryType, columns };
}

// Properties the map reads under another name than their column's.
const RENAMED: Partial<Record<ExportLayer['kind'], Record<string, string>>> = { imagery: { id: ID_COLUMN, image: 'image_url' } };

/** Each property as the map names it to its column (fields kept in the overflow JSON have none). */
function mapColumns(kind: ExportLayer['kind'], layout: FieldLayout): Record<string, string> {
  const out: Record<string, string> = { ...RENAMED[kind] };
  for (const c of layout.spec) out[c.name] = c.name;
  for (const f of layout.derived) out[f.origin === 'attribute' ? `attributes.${f.key}` : f.key] = f.name;
  return out;
}

function writeProvenance(
  db: Database.Database,
  table: string,
  name: string,
  kind: ExportLayer['kind'],
  p: LayerProvenance | undefined,
  count: number,
  now: string,
) {
  db.prepare(
    `INSERT INTO ${PROVENANCE_TABLE} (table_name, layer_name, kind, query_text, remote_id, result_id, search_id, query_time,
       profile_label, base_url, search_base_url, evidence_sha256, feature_count, exported_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    table,
    name,
    p?.kind ?? kind,
    p?.queryText ?? null,
    p?.remoteId ?? null,
    p?.resultId ?? null,
    p?.searchId ?? null,
    isoTime(p?.time),
    p?.profileLabel ?? null,
    p ? safeUrl(p.baseUrl) : null,
    p ? safeUrl(p.searchBaseUrl) : null,
    p?.evidenceSha256 ?? null,
    count,
    now,
  );
}
