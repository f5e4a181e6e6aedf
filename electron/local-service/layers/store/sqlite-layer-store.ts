import { randomUUID } from 'node:crypto';
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { bboxPolygon, booleanIntersects } from '@turf/turf';
import Database from 'better-sqlite3';
import type { Geometry, Position } from 'geojson';
import { applyMigrations } from '../../store';
import type { LayerFeature } from '../types';
import { decodeWkb, encodeWkb, WKB_TYPE } from '../../../ground/wkb';
import { bboxOf, boxesAround, containsPoint, distanceToGeometry, EARTH_RADIUS_M, type BBox } from './geo';
import {
  LayerNotFoundError, type EmbeddedLayerStore, type EmbeddedLayerWriter, type LayerInfo, type LayerSummary, type NearFeature, type NewLayer, type QueryOptions,
  type StoredFeature, type TagMatch,
} from './layer-store';
import { CellIndexBuilder } from './cell-index';
import { reclaimFreePages } from './free-pages';
import { LAYER_MIGRATIONS } from './migrations';
import { createSummaryCollector, passes } from './summary';
import { boxStatements, readBoxes, type BoxStatements, type Candidate, type Row } from './sqlite-box-read';

/**
 * Layers in their own SQLite file (`layers.sqlite` in the service's data folder, WAL): a large
 * import writes gigabytes and a removed layer leaves free pages, which should not bloat or lock
 * the service database the compute routes save searches in.
 *
 * Per layer: `lf_<n>` holds features (geometry as WKB, tags as JSON text) and `lr_<n>` is an
 * R*Tree of their boxes. R*Tree rather than flatbush/kdbush: it is stored in the same file, so
 * a layer opens instantly after a restart with nothing to rebuild or hold in memory (a packed
 * flatbush index of 10M features is ~300 MB to keep or re-create at every start), it indexes
 * lines and polygons by extent (kdbush is points only), and a query reads only the pages it
 * touches.
 *
 * The R*Tree holds cells, not features: after the load, features are sorted along a Hilbert
 * curve of their box centres and cut into cells of CELL_FEATURES neighbours (cell-index.ts);
 * `lm_<n>` lists each cell's features with their boxes (clustered by cell), and `lr_<n>` holds one box per cell.
 * Inserting into an R*Tree costs several microseconds an entry whatever the order (it was half
 * of a 300,000-feature OSM import); the member table is a sorted append, and a question reads
 * a few cells' members, box-tested in SQL before any feature row is read. Layers imported
 * before cells (an `lr_<n>` of features and no `lm_<n>`) are read as they are.
 */

export const LAYERS_DATABASE_FILE = 'layers.sqlite';
/** Scratch files of an import's cells index (cell-index.ts), beside the database. */
const CELL_RUNS_PREFIX = 'layer-cells-';
const BATCH_ROWS = 20_000;
/** Rows of one INSERT statement while importing. */
const ROWS_PER_INSERT = 32;

/** GeoJSON type names by WKB type code, for features that come as WKB. */
const WKB_NAME = Object.fromEntries(Object.entries(WKB_TYPE).map(([name, code]) => [code, name])) as Record<number, Geometry['type']>;

interface LayerRow {
  id: number;
  uid: string;
  name: string;
  source_file: string;
  format: LayerInfo['format'];
  licence: string | null;
  source_text: string | null;
  feature_count: number;
  geometry_types: string;
  min_lon: number | null;
  min_lat: number | null;
  max_lon: number | null;
  max_lat: number | null;
  size_bytes: number;
  warnings: string;
  created_at: string;
}

const toInfo = (r: LayerRow): LayerInfo => ({
  id: r.uid,
  name: r.name,
  sourceFile: r.source_file,
  format: r.format,
  featureCount: r.feature_count,
  geometryTypes: JSON.parse(r.geometry_types) as Record<string, number>,
  bbox: r.min_lon === null ? null : [r.min_lon, r.min_lat!, r.max_lon!, r.max_lat!],
  sizeBytes: r.size_bytes,
  licence: r.licence,
  sourceText: r.source_text ?? r.source_file,
  warnings: JSON.parse(r.warnings) as string[],
  createdAt: r.created_at,
});

/** Tags as JSON text; empty cells (null) of tabular sources are not values and are left out. */
export function tagsJson(props: Record<string, unknown>): string {
  let hasNull = false;
  for (const k in props) if (props[k] === null || props[k] === undefined) hasNull = true;
  if (!hasNull) return JSON.stringify(props);
  const out: Record<string, unknown> = {};
  for (const k in props) if (props[k] !== null && props[k] !== undefined) out[k] = props[k];
  return JSON.stringify(out);
}

function dropLayerTables(db: Database.Database, n: number): void {
  db.exec(`DROP TABLE IF EXISTS lr_${n}; DROP TABLE IF EXISTS lm_${n}; DROP TABLE IF EXISTS lf_${n};`);
}

export interface SqliteLayerStoreOptions {
  dataDir: string;
  clock?: () => Date;
  /** Feature boxes an import sorts in memory before sorted runs of them go to a scratch file (cell-index.ts). */
  memoryBoxes?: number;
}

export function openSqliteLayerStore({ dataDir, clock = () => new Date(), memoryBoxes }: SqliteLayerStoreOptions): EmbeddedLayerStore {
  mkdirSync(dataDir, { recursive: true });
  const db = new Database(join(dataDir, LAYERS_DATABASE_FILE));
  // Free pages go back to the file system (free-pages.ts): settable only before a new file's first table.
  db.pragma('auto_vacuum = INCREMENTAL');
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 2000');
  // 16 MB of page cache: R*Tree upper levels and recent pages stay in memory, within the memory budget of imports.
  db.pragma('cache_size = -16384');
  db.pragma('temp_store = FILE');
  // Checkpoints (each an fsync) every 64 MB of WAL rather than every 4 MB: imports write a lot.
  db.pragma('wal_autocheckpoint = 16384');
  applyMigrations(db, 'layers', LAYER_MIGRATIONS);

  // An import cut short by a crash left its tables, an 'importing' row and maybe sorted runs of
  // its cells index: nothing of it is kept.
  for (const name of readdirSync(dataDir)) if (name.startsWith(CELL_RUNS_PREFIX)) rmSync(join(dataDir, name), { force: true });
  for (const { id } of db.prepare("SELECT id FROM layers WHERE state = 'importing'").all() as { id: number }[]) {
    dropLayerTables(db, id);
    db.prepare('DELETE FROM layers WHERE id = ?').run(id);
  }
  reclaimFreePages(db);

  const byUid = db.prepare("SELECT * FROM layers WHERE uid = ? AND state = 'ready'");
  const queries = new Map<number, BoxStatements>();

  const layerNumber = (uid: string): number => {
    const r = byUid.get(uid) as LayerRow | undefined;
    if (!r) throw new LayerNotFoundError(uid);
    return r.id;
  };

  const statementsFor = (n: number): BoxStatements => {
    let q = queries.get(n);
    if (!q) queries.set(n, (q = boxStatements(db, n)));
    return q;
  };

  /** Rows whose boxes meet any of the boxes and whose tags pass, each with its decoded geometry and tags. */
  const candidates = (n: number, boxes: BBox[], match?: TagMatch[]): Candidate[] => readBoxes(statementsFor(n), boxes, match);

  const stored = (uid: string, c: Candidate): StoredFeature => ({ layerId: uid, fid: c.fid, sourceId: c.sourceId, sublayer: c.sublayer, geometry: c.geometry, tags: c.tags });

  const withinRaw = (n: number, p: Position, metres: number, match?: TagMatch[]) =>
    candidates(n, boxesAround(p, metres), match)
      .map((c) => ({ ...c, d: distanceToGeometry(p, c.geometry) }))
      .filter((c) => c.d <= metres)
      .sort((a, b) => a.d - b.d || a.fid - b.fid);

  const near = (uid: string, list: (Candidate & { d: number })[], limit: number): NearFeature[] =>
    list.slice(0, limit).map((c) => ({ ...stored(uid, c), distanceMeters: c.d }));

  // Read in pages by fid rather than through one open statement: a reader paused between pages
  // (an asynchronous caller) must not hold the connection busy, which would refuse an import's writes.
  function* iterate(uid: string, match: TagMatch[] | undefined): IterableIterator<StoredFeature> {
    const page = db.prepare(`SELECT fid, source_id, sublayer, geom, tags FROM lf_${layerNumber(uid)} WHERE fid > ? ORDER BY fid LIMIT ${BATCH_ROWS}`);
    for (let last = 0; ; ) {
      const rows = page.all(last) as Row[];
      for (const row of rows) {
        const tags = JSON.parse(row.tags) as Record<string, unknown>;
        if (!passes(tags, match)) continue;
        yield { layerId: uid, fid: row.fid, sourceId: row.source_id, sublayer: row.sublayer, geometry: decodeWkb(row.geom), tags };
      }
      if (rows.length < BATCH_ROWS) return;
      last = rows[rows.length - 1]!.fid;
    }
  }

  return {
    create(layer: NewLayer): EmbeddedLayerWriter {
      const uid = randomUUID();
      const n = Number(
        db
          .prepare(
            `INSERT INTO layers (uid, name, source_file, format, licence, source_text, state, created_at)
             VALUES (?, ?, ?, ?, ?, ?, 'importing', ?)`,
          )
          .run(uid, layer.name, layer.sourceFile, layer.format, layer.licence, layer.sourceText, clock().toISOString()).lastInsertRowid,
      );
      db.exec(`CREATE TABLE lf_${n} (fid INTEGER PRIMARY KEY, source_id TEXT NOT NULL, sublayer TEXT, geom BLOB NOT NULL, tags TEXT NOT NULL)`);
      const cells = new CellIndexBuilder(db, n, join(dataDir, `${CELL_RUNS_PREFIX}${n}-${randomUUID()}.tmp`), memoryBoxes);
      // Rows go in ROWS_PER_INSERT at a time (one statement run per 32 rows: a quarter less time
      // than a run per row); the rest of a batch one by one.
      const values = (columns: number, rows: number) => Array.from({ length: rows }, () => `(${'?, '.repeat(columns - 1)}?)`).join(', ');
      const featureSql = `INSERT INTO lf_${n} (fid, source_id, sublayer, geom, tags) VALUES `;
      const insertFeature = db.prepare(featureSql + values(5, 1));
      const insertFeatures = db.prepare(featureSql + values(5, ROWS_PER_INSERT));
      const featureValues: unknown[] = [];
      let count = 0;
      let done = false;
      const summary = createSummaryCollector();
      const types: Record<string, number> = {};
      const ext: BBox = [Infinity, Infinity, -Infinity, -Infinity];
      const addBatch = db.transaction((features: readonly LayerFeature[]) => {
        // Nothing of a batch that failed part way is carried into the next.
        featureValues.length = 0;
        for (const f of features) {
          const b = f.bbox ?? bboxOf(f.geometry);
          if (!b) continue;
          if (b[0] < -180 || b[2] > 180 || b[1] < -90 || b[3] > 90) {
            throw new RangeError(`feature ${f.sourceId} has coordinates outside longitude/latitude (${b.map((x) => x.toFixed(1)).join(', ')}): a projected CRS? Reproject it to WGS84 first`);
          }
          const fid = ++count;
          featureValues.push(fid, f.sourceId, f.sublayer ?? null, f.wkb ?? encodeWkb(f.geometry), f.propertiesJson ?? tagsJson(f.properties));
          cells.add(fid, b);
          if (featureValues.length === ROWS_PER_INSERT * 5) {
            insertFeatures.run(featureValues);
            featureValues.length = 0;
          }
          summary.add(f.properties);
          const type = f.wkb ? WKB_NAME[f.wkb[0] === 1 ? f.wkb.readUInt32LE(1) : f.wkb.readUInt32BE(1)]! : f.geometry.type;
          types[type] = (types[type] ?? 0) + 1;
          if (b[0] < ext[0]) ext[0] = b[0];
          if (b[1] < ext[1]) ext[1] = b[1];
          if (b[2] > ext[2]) ext[2] = b[2];
          if (b[3] > ext[3]) ext[3] = b[3];
        }
        for (let i = 0; i < featureValues.length; i += 5) insertFeature.run(featureValues.slice(i, i + 5));
        featureValues.length = 0;
      });
      const finish = db.transaction((warnings: string[]) => {
        cells.finish();
        const size = db
          .prepare(`SELECT COALESCE(SUM(pgsize), 0) AS s FROM dbstat WHERE name IN (?, ?, ?, ?, ?)`)
          .get(`lf_${n}`, `lm_${n}`, `lr_${n}_node`, `lr_${n}_rowid`, `lr_${n}_parent`) as { s: number };
        const has = count > 0;
        db.prepare(
          `UPDATE layers SET state = 'ready', feature_count = ?, geometry_types = ?, min_lon = ?, min_lat = ?, max_lon = ?, max_lat = ?,
             size_bytes = ?, warnings = ?, summary = ? WHERE id = ?`,
        ).run(
          count, JSON.stringify(types), has ? ext[0] : null, has ? ext[1] : null, has ? ext[2] : null, has ? ext[3] : null, size.s,
          JSON.stringify(warnings), JSON.stringify(summary.result()), n,
        );
      });
      return {
        id: uid,
        get count() {
          return count;
        },
        add(features) {
          if (done) throw new Error('layer import already finished');
          for (let i = 0; i < features.length; i += BATCH_ROWS) addBatch(features.slice(i, i + BATCH_ROWS));
        },
        commit(warnings) {
          if (done) throw new Error('layer import already finished');
          finish(warnings);
          done = true;
          return toInfo(byUid.get(uid) as LayerRow);
        },
        abort() {
          if (done) return;
          done = true;
          cells.dispose();
          db.transaction(() => {
            dropLayerTables(db, n);
            db.prepare('DELETE FROM layers WHERE id = ?').run(n);
          })();
        },
      };
    },

    list() {
      return (db.prepare("SELECT * FROM layers WHERE state = 'ready' ORDER BY created_at, id").all() as LayerRow[]).map(toInfo);
    },

    get(uid) {
      const r = byUid.get(uid) as LayerRow | undefined;
      return r ? toInfo(r) : null;
    },

    remove(uid) {
      const r = byUid.get(uid) as LayerRow | undefined;
      if (!r) return false;
      queries.delete(r.id);
      db.transaction(() => {
        dropLayerTables(db, r.id);
        db.prepare('DELETE FROM layers WHERE id = ?').run(r.id);
      })();
      return true;
    },

    async feature(uid, fid) {
      const row = statementsFor(layerNumber(uid)).one.get(fid) as Row | undefined;
      return row
        ? { layerId: uid, fid: row.fid, sourceId: row.source_id, sublayer: row.sublayer, geometry: decodeWkb(row.geom), tags: JSON.parse(row.tags) as Record<string, unknown> }
        : null;
    },

    async inBBox(uid, bbox, opts = {}) {
      const n = layerNumber(uid);
      const box = bboxPolygon(bbox).geometry;
      return candidates(n, [bbox], opts.match)
        .filter((c) => opts.boxOnly || booleanIntersects(box, c.geometry))
        .sort((a, b) => a.fid - b.fid)
        .slice(0, opts.limit ?? Infinity)
        .map((c) => stored(uid, c));
    },

    async within(uid, point, metres, opts = {}) {
      return near(uid, withinRaw(layerNumber(uid), point, metres, opts.match), opts.limit ?? Infinity);
    },

    async nearest(uid, point, k, opts = {}) {
      const n = layerNumber(uid);
      const info = toInfo(byUid.get(uid) as LayerRow);
      if (!info.bbox || k <= 0) return [];
      // Start from the typical spacing of the layer's features, then widen 4x at a time: every
      // feature closer than the radius is in its box, so k hits within it are the k nearest.
      const [x0, y0, x1, y1] = info.bbox;
      const spanM = Math.max(1, Math.hypot((x1 - x0) * Math.cos(((y0 + y1) / 2) * (Math.PI / 180)), y1 - y0) * 111_195);
      let r = Math.max(10, (spanM / Math.sqrt(info.featureCount)) * Math.sqrt(k));
      const halfEarth = Math.PI * EARTH_RADIUS_M;
      // Past the layer's own extent nothing new can come in: stop there rather than at half the earth.
      const far = distanceToGeometry(point, bboxPolygon(info.bbox).geometry) + spanM * 1.1 + 1;
      for (;;) {
        const hits = withinRaw(n, point, r, opts.match);
        if (hits.length >= k || r >= halfEarth || r > far) return near(uid, hits, k);
        r = Math.min(halfEarth, r * 4);
      }
    },

    async containing(uid, point, opts = {}) {
      const [x, y] = point as [number, number];
      return candidates(layerNumber(uid), [[x, y, x, y]], opts.match)
        .filter((c) => containsPoint(c.geometry, point))
        .sort((a, b) => a.fid - b.fid)
        .slice(0, opts.limit ?? Infinity)
        .map((c) => stored(uid, c));
    },

    async intersecting(uid, geometry, opts = {}) {
      const b = bboxOf(geometry);
      if (!b) return [];
      return candidates(layerNumber(uid), [b], opts.match)
        .filter((c) => booleanIntersects(geometry, c.geometry))
        .sort((a, b2) => a.fid - b2.fid)
        .slice(0, opts.limit ?? Infinity)
        .map((c) => stored(uid, c));
    },

    async scan(uid, opts: QueryOptions = {}) {
      const out: StoredFeature[] = [];
      const limit = opts.limit ?? Infinity;
      if (limit <= 0) return out;
      for (const f of iterate(uid, opts.match)) if (out.push(f) >= limit) break;
      return out;
    },

    iterate: (uid, opts = {}) => iterate(uid, opts.match),

    async summary(uid) {
      const r = byUid.get(uid) as (LayerRow & { summary: string | null }) | undefined;
      if (!r) throw new LayerNotFoundError(uid);
      if (r.summary) return JSON.parse(r.summary) as LayerSummary;
      // A layer imported before summaries were recorded: read it once and keep the result.
      const c = createSummaryCollector();
      for (const row of db.prepare(`SELECT tags FROM lf_${r.id}`).iterate() as IterableIterator<{ tags: string }>) c.add(JSON.parse(row.tags) as Record<string, unknown>);
      const summary = c.result();
      db.prepare('UPDATE layers SET summary = ? WHERE id = ?').run(JSON.stringify(summary), r.id);
      return summary;
    },

    close() {
      queries.clear();
      db.close();
    },
  };
}
