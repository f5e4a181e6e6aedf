import { createHash } from 'node:crypto';
import { existsSync, renameSync, rmSync, statSync } from 'node:fs';
import Database from 'better-sqlite3';
import { RpcError } from '../../../shared/rpc/errors';
import type { PackContents, PackSelection } from '../../../shared/rpc/methods/pack';
import { responseItems } from '../../../shared/service/items';
import { ITEM_TABLES, type QueryRows } from '../../cache/transfer';
import { TABLE_NAME_MAX, writeGeoPackage } from '../../export/gpkg';
import type { ExportLayer } from '../../export/types';
import { decodeWkb, encodeWkb } from '../../ground/wkb';
import { createFaceHider, type FacesReport, type FaceBlur } from '../privacy';
import type { PackLayerFeature, PackLayerInfo } from './layers-port';
import type { PackSources, Selection } from './select';
import { createPackTables, isPack, ITEM_PACK_TABLE, PACK_FORMAT, PACK_VERSION, T } from './tables';
import { createTileTable, finishTiles, putTile, tilesOf, TILES_TABLE } from './tiles';

/** Fetches one basemap tile (XYZ numbering); rejects when it cannot. */
/**
 * A result layer's name: the question and the minute it was asked. The time stays whole within the
 * table name's length; a long question gives up its last words instead (a cut time, with a "_2"
 * to tell it apart, names no run: "…_03_2").
 */
export function packLayerName(text: string, startedAt: number): string {
  const stamp = new Date(startedAt).toISOString().slice(0, 16).replace('T', ' ');
  const room = TABLE_NAME_MAX - stamp.length - 1;
  const words = text.length > room ? text.slice(0, room).replace(/\s+\S*$/, '') || text.slice(0, room) : text;
  return `${words} ${stamp}`;
}

export type FetchTile = (z: number, x: number, y: number, signal: AbortSignal) => Promise<Buffer>;

/** Fetches a result's image or video from its service (as viewing it would). */
export type FetchMedia = (url: string, signal: AbortSignal) => Promise<{ contentType: string; bytes: Uint8Array }>;

export interface WriterDeps extends PackSources {
  fetchTile: FetchTile;
  fetchMedia: FetchMedia;
  clock: () => Date;
  /** Hides faces in the pack's images; absent: they go as cached, and the meta says so. */
  faceBlur?: FaceBlur;
}

export interface WriteProgress {
  phase: 'results' | 'records' | 'media' | 'layers' | 'tiles' | 'finishing';
  done: number;
  total: number;
}

export class PackCancelledError extends Error {
  constructor() {
    super('The pack was cancelled');
    this.name = 'PackCancelledError';
  }
}

/** The stable key of a data layer (its name and file): the same layer packed twice, from either laptop, has one. */
export const layerKey = (l: Pick<PackLayerInfo, 'name' | 'sourceFile'>) =>
  createHash('sha256').update(JSON.stringify([l.name, l.sourceFile])).digest('hex');

/**
 * Writes the pack of a selection to `path`, by way of `path.part` renamed at the end: a cancel or
 * a failure leaves the file at `path` as it was. A pack already at `path` is carried into the
 * new one and the selection's rows replace those with the same keys, so packing again updates.
 */
export async function writePack(
  deps: WriterDeps,
  sel: PackSelection,
  s: Selection,
  path: string,
  hooks: { signal: AbortSignal; progress: (p: WriteProgress) => void },
): Promise<PackContents & { bytes: number; mediaMissing: string[] }> {
  const part = `${path}.part`;
  rmSync(part, { force: true });
  let old: Database.Database | null = null;
  let db: Database.Database | null = null;
  try {
    if (existsSync(path)) {
      try {
        old = new Database(path, { readonly: true, fileMustExist: true });
        if (!isPack(old)) throw new Error('not a pack');
      } catch {
        old?.close();
        old = null;
        throw new RpcError('CONFLICT', `${path} exists and is not a Fieldlens pack: choose another file name`);
      }
    }
    const stop = () => {
      if (hooks.signal.aborted) throw new PackCancelledError();
    };
    const allKeys = deps.cache.queryKeys();
    const keyOf = new Map<number, string>();
    for (const [k, id] of allKeys) keyOf.set(id, k);
    const newKeys = new Set(s.queryIds.map((id) => keyOf.get(id)!));
    const newLayerKeys = new Set(s.layers.map((l) => layerKey(l.info)));

    // 1. The GeoPackage layers QGIS opens: each question's result, each clipped data layer.
    const oldQueries = old
      ? (old.prepare(`SELECT key, kind, query_text, started_at, raw_response FROM ${T.queries} ORDER BY started_at`).all() as {
          key: string;
          kind: string;
          query_text: string;
          started_at: number;
          raw_response: Buffer | string | null;
        }[]).filter((q) => !newKeys.has(q.key))
      : [];
    const oldLayers = old
      ? (old.prepare(`SELECT key, name FROM ${T.layers}`).all() as { key: string; name: string }[]).filter((l) => !newLayerKeys.has(l.key))
      : [];
    const total = s.features + oldQueries.length + s.layers.reduce((a, l) => a + l.features.length, 0);
    let written = 0;
    const layers: ExportLayer[] = [];
    const layerOfKey: string[] = [];
    // A question asked twice is two layers: the time it was asked tells them apart.
    const resultLayer = (kind: string, text: string, startedAt: number, raw: Buffer | string | null): ExportLayer | null => {
      if (raw === null) return null;
      let body: unknown;
      try {
        body = JSON.parse(typeof raw === 'string' ? raw : raw.toString('utf8'));
      } catch {
        return null; // a body that was never JSON (an error page) has no features to show
      }
      const items = responseItems(kind as never, body) as never[];
      const name = packLayerName(text, startedAt);
      return { kind: kind as 'compute', name, count: items.length, features: items };
    };
    for (const q of oldQueries) {
      const l = resultLayer(q.kind, q.query_text, q.started_at, q.raw_response);
      if (!l) continue;
      layers.push(l);
      layerOfKey.push('');
    }
    for (const id of s.queryIds) {
      const r = deps.cache.get(id);
      const l = r ? resultLayer(r.kind, r.queryText, r.startedAt, r.raw) : null;
      if (!l) continue;
      layers.push(l);
      layerOfKey.push('');
    }
    for (const l of s.layers) {
      const features = l.features.map((f) => ({ type: 'Feature', id: f.sourceId, geometry: f.geometry, properties: f.tags }));
      layers.push({ kind: 'compute', name: `Layer ${l.info.name}`, count: features.length, features: features as never[] });
      layerOfKey.push(layerKey(l.info));
    }
    for (const l of oldLayers) {
      const rows = old!.prepare(`SELECT source_id, geometry, tags FROM ${T.layerFeatures} WHERE layer_key = ? ORDER BY n`).all(l.key) as {
        source_id: string;
        geometry: Buffer;
        tags: string;
      }[];
      const features = rows.map((f) => ({ type: 'Feature', id: f.source_id, geometry: decodeWkb(f.geometry), properties: JSON.parse(f.tags) as object }));
      layers.push({ kind: 'compute', name: `Layer ${l.name}`, count: features.length, features: features as never[] });
      layerOfKey.push(l.key);
    }
    const now = deps.clock().toISOString();
    let since = 0;
    const exported = await writeGeoPackage(part, layers, {
      clock: deps.clock,
      tick: () => {
        written++;
        // Yield now and then so a cancel (and other calls) get through.
        if (++since < 500) return;
        since = 0;
        stop();
        hooks.progress({ phase: 'results', done: written, total });
        return new Promise<void>((r) => setImmediate(r));
      },
    });
    stop();

    // 2. The rows that reopen everything in the app.
    db = new Database(part);
    db.pragma('journal_mode = OFF');
    db.pragma('synchronous = OFF');
    db.exec('BEGIN');
    createPackTables(db, deps.cache.db, now);
    if (old) copyOld(db, old);
    const put = putters(db);
    let done = 0;
    for (const id of s.queryIds) {
      const rows = deps.cache.queryRows(id);
      if (rows) put.query(rows);
      if (++done % 50 === 0) {
        stop();
        hooks.progress({ phase: 'records', done, total: s.queryIds.length });
        await new Promise<void>((r) => setImmediate(r));
      }
    }
    done = 0;
    // Faces are hidden in the pack's copies; the media cache keeps the originals.
    const faces = createFaceHider(deps.faceBlur, { faces: sel.blurFaces ?? true, vehicles: sel.blurVehicles ?? false });
    for (const m of s.media) {
      const e = deps.cache.getMedia(m.url);
      if (e) put.media(e.url, e.contentType, Buffer.from(await faces.hide(e.url, e.contentType, e.bytes)), e.fetchedAt);
      if (++done % 20 === 0) {
        stop();
        hooks.progress({ phase: 'media', done, total: s.media.length });
        await new Promise<void>((r) => setImmediate(r));
      }
    }
    // Images never viewed: fetched now when online (and kept in the media cache, as viewing
    // them would), so the pack holds every image of its results; those that fail are named.
    const mediaMissing: string[] = [];
    done = 0;
    for (const url of s.missingMedia) {
      stop();
      if (!deps.online()) {
        mediaMissing.push(url);
        continue;
      }
      try {
        const m = await deps.fetchMedia(url, hooks.signal);
        const fetchedAt = deps.clock().getTime();
        deps.cache.putMedia(url, m.contentType, m.bytes, fetchedAt);
        put.media(url, m.contentType, Buffer.from(await faces.hide(url, m.contentType, m.bytes)), fetchedAt);
      } catch {
        stop();
        mediaMissing.push(url);
      }
      hooks.progress({ phase: 'media', done: ++done, total: s.missingMedia.length });
    }
    const tableOf = new Map<string, string>();
    exported.forEach((e, i) => layerOfKey[i] && tableOf.set(layerOfKey[i]!, e.table));
    for (const l of s.layers) put.layer(l.info, l.features, tableOf.get(layerKey(l.info)) ?? null);
    for (const l of oldLayers) db.prepare(`UPDATE ${T.layers} SET table_name = ? WHERE key = ?`).run(tableOf.get(l.key) ?? null, l.key);
    stop();

    // 3. Basemap tiles, when asked and online.
    const hadTiles = old !== null && old.prepare(`SELECT 1 FROM sqlite_master WHERE name = ?`).get(TILES_TABLE) !== undefined;
    const fetchTiles = s.tileCount > 0 && deps.online();
    if (hadTiles || fetchTiles) createTileTable(db, 'OpenStreetMap standard tiles, © OpenStreetMap contributors', now);
    if (hadTiles)
      for (const t of old!.prepare(`SELECT zoom_level AS z, tile_column AS x, tile_row AS y, tile_data AS data FROM ${TILES_TABLE}`).iterate() as Iterable<{
        z: number;
        x: number;
        y: number;
        data: Buffer;
      }>)
        putTile(db, t);
    let unreachable = false;
    if (fetchTiles) {
      done = 0;
      for (const t of tilesOf(s.tiles)) {
        stop();
        let data: Buffer;
        try {
          data = await deps.fetchTile(t.z, t.x, t.y, hooks.signal);
        } catch (e) {
          // The tile server out of reach: the pack goes without (more of) its tiles, as packed offline.
          // The map and a QGIS project of the pack draw the area from the offline basemap all the same.
          if (!(e instanceof RpcError && e.code === 'NETWORK') || hooks.signal.aborted) throw e;
          unreachable = true;
          break;
        }
        putTile(db, { ...t, data });
        hooks.progress({ phase: 'tiles', done: ++done, total: s.tileCount });
      }
    }
    if (hadTiles || fetchTiles) finishTiles(db);

    hooks.progress({ phase: 'finishing', done: 0, total: 1 });
    const skipped = unreachable ? 'tile server unreachable' : !fetchTiles && s.tileCount > 0 ? 'offline when packed' : null;
    writeMeta(db, sel, s, now, skipped, mediaMissing, faces.report());
    const contents = countContents(db);
    db.exec('COMMIT');
    db.pragma('journal_mode = DELETE');
    db.close();
    db = null;
    old?.close();
    old = null;
    stop();
    renameSync(part, path);
    return { ...contents, bytes: statSync(path).size, mediaMissing };
  } catch (e) {
    db?.close();
    old?.close();
    rmSync(part, { force: true });
    throw e;
  }
}

function copyOld(db: Database.Database, old: Database.Database): void {
  for (const table of Object.values(T)) {
    if (table === T.meta) continue;
    if (!old.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`).get(table)) continue;
    const have = new Set((db.pragma(`table_info(${table})`) as { name: string }[]).map((c) => c.name));
    const cols = (old.pragma(`table_info(${table})`) as { name: string }[]).map((c) => c.name).filter((n) => n !== 'id' && have.has(n));
    const ins = db.prepare(`INSERT INTO ${table} (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`);
    for (const r of old.prepare(`SELECT ${cols.join(', ')} FROM ${table}`).raw().iterate() as Iterable<unknown[]>) ins.run(r);
  }
}

/** Upserts by stable key: a row packed again replaces the one before, with its items. */
function putters(db: Database.Database) {
  const colsOf = (t: string) => (db.pragma(`table_info(${t})`) as { name: string }[]).map((c) => c.name).filter((n) => n !== 'id');
  const queryCols = colsOf(T.queries);
  const insQuery = db.prepare(`INSERT OR REPLACE INTO ${T.queries} (${queryCols.join(', ')}) VALUES (${queryCols.map(() => '?').join(', ')})`);
  const items = ITEM_TABLES.map((t) => {
    const table = ITEM_PACK_TABLE[t];
    const cols = colsOf(table);
    return {
      t,
      cols,
      del: db.prepare(`DELETE FROM ${table} WHERE query_key = ?`),
      ins: db.prepare(`INSERT INTO ${table} (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`),
    };
  });
  const delLinks = db.prepare(`DELETE FROM ${T.queryUploads} WHERE query_key = ?`);
  const insLink = db.prepare(`INSERT INTO ${T.queryUploads} (query_key, field, position, name, upload_key) VALUES (?, ?, ?, ?, ?)`);
  const insUpload = db.prepare(
    `INSERT OR REPLACE INTO ${T.uploads} (key, name, size, content_type, content, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
  );
  const insMedia = db.prepare(`INSERT OR REPLACE INTO ${T.media} (key, content_type, size, bytes, fetched_at) VALUES (?, ?, ?, ?, ?)`);
  const insLayer = db.prepare(
    `INSERT OR REPLACE INTO ${T.layers} (key, name, source_file, format, licence, source_text, feature_count, table_name)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const delLayerFeatures = db.prepare(`DELETE FROM ${T.layerFeatures} WHERE layer_key = ?`);
  const insLayerFeature = db.prepare(
    `INSERT INTO ${T.layerFeatures} (layer_key, n, source_id, sublayer, geometry, tags) VALUES (?, ?, ?, ?, ?, ?)`,
  );
  return {
    query(r: QueryRows) {
      const raw = r.query['raw_response'];
      const special: Record<string, unknown> = {
        key: r.key,
        rerun_of_key: r.rerunOfKey,
        raw_is_text: typeof raw === 'string' ? 1 : 0,
        raw_response: typeof raw === 'string' ? Buffer.from(raw, 'utf8') : (raw ?? null),
      };
      insQuery.run(queryCols.map((c) => (c in special ? special[c] : (r.query[c] ?? null))));
      for (const it of items) {
        it.del.run(r.key);
        for (const row of r.items[it.t]) it.ins.run(it.cols.map((c) => (c === 'query_key' ? r.key : (row[c] ?? null))));
      }
      delLinks.run(r.key);
      for (const u of r.uploads) {
        insUpload.run(u.sha256, u.name, u.size, u.contentType, u.content, u.createdAt);
        insLink.run(r.key, u.field, u.position, u.name, u.sha256);
      }
    },
    media(url: string, contentType: string, bytes: Buffer, fetchedAt: number) {
      insMedia.run(url, contentType, bytes.byteLength, bytes, fetchedAt);
    },
    layer(info: PackLayerInfo, features: PackLayerFeature[], table: string | null) {
      const key = layerKey(info);
      insLayer.run(key, info.name, info.sourceFile, info.format, info.licence, info.sourceText, features.length, table);
      delLayerFeatures.run(key);
      features.forEach((f, n) => insLayerFeature.run(key, n, f.sourceId, f.sublayer, encodeWkb(f.geometry), JSON.stringify(f.tags)));
    },
  };
}

function writeMeta(
  db: Database.Database,
  sel: PackSelection,
  s: Selection,
  now: string,
  tilesSkipped: string | null,
  mediaMissing: string[],
  faces: FacesReport,
): void {
  const set = db.prepare(`INSERT OR REPLACE INTO ${T.meta} (key, value) VALUES (?, ?)`);
  set.run('format', PACK_FORMAT);
  set.run('version', String(PACK_VERSION));
  set.run('area', JSON.stringify(s.area.polygon));
  set.run('from', sel.from === undefined ? null : new Date(sel.from).toISOString());
  set.run('to', sel.to === undefined ? null : new Date(sel.to).toISOString());
  set.run('max_tile_zoom', sel.maxTileZoom === undefined ? null : String(sel.maxTileZoom));
  set.run('tiles_skipped', tilesSkipped);
  set.run('media_missing', mediaMissing.length ? JSON.stringify(mediaMissing) : null);
  set.run('faces', JSON.stringify(faces));
  set.run('written_at', now);
}

export function countContents(db: Database.Database): PackContents {
  const n = (t: string) => db.prepare(`SELECT count(*) FROM ${t}`).pluck().get() as number;
  const hasTiles = db.prepare(`SELECT 1 FROM sqlite_master WHERE name = ?`).get(TILES_TABLE) !== undefined;
  return {
    queries: n(T.queries),
    features: n(T.features),
    media: n(T.media),
    uploads: n(T.uploads),
    layers: n(T.layers),
    layerFeatures: n(T.layerFeatures),
    tiles: hasTiles ? n(TILES_TABLE) : 0,
  };
}
