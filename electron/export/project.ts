import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { strToU8, zipSync } from 'fflate';
import { RpcError } from '../../shared/rpc/errors';
import { basemapQml, basemapStyle, waterColour } from './basemap-style';
import { safeUrl, writeGeoPackage } from './gpkg';
import { DEFAULT_LAYER_COLOUR, isAnswer, layerLooks, setDefaultStyles } from './layer-styles';
import { featuresBox, offlineBasemapBytes, placesIn, streetFeatures, writeOfflineBasemap, type BasemapFeature, type BasemapTable } from './offline-basemap';
import { projectXml, type Box, type ProjectBasemap, type ProjectVectorLayer } from './qgis-project';
import type { LayerStyle } from './qgis-style';
import type { ExportedLayer, ExportLayer, Tick } from './types';
import type { BasemapTheme } from '../../shared/basemap/palettes';

export type ProjectBasemapChoice = { kind: 'online'; url: string } | { kind: 'pack'; path: string } | { kind: 'none' };

export interface ProjectOptions {
  basemap: ProjectBasemapChoice;
  /** The map's extent (lon/lat); grown to hold every exported feature. */
  extent?: Box;
  /** Per layer, in the order of the layers: how the map draws it. */
  styles?: readonly (LayerStyle | null | undefined)[];
  /** Layers open for editing; read-only otherwise. */
  editable?: boolean;
  /** The basemap's colours, as the map shows them (light when absent). */
  theme?: BasemapTheme;
  /** File names inside (project and GeoPackage); the destination's name when absent. */
  name?: string;
  /** The project's title; the first answer's name when absent. */
  title?: string;
  /** Named places around the data (lon/lat box) for the offline basemap; the app's bundled catalog when absent. */
  places?: (box: Box) => BasemapFeature[];
}

export interface ProjectWriteResult {
  layers: ExportedLayer[];
  /** The GeoPackage written beside a .qgz (null when packed into a ZIP). */
  gpkgPath: string | null;
}

/** Layers and the basemap of the project, in words: each layer's question, time, connection and evidence. */
function provenanceText(layer: ExportLayer, count: number): string {
  const p = layer.provenance;
  if (!p) return `${count} features.`;
  const time = p.time instanceof Date ? p.time.toISOString() : p.time;
  const lines = [
    `Question: ${p.queryText}`,
    `Asked: ${time}`,
    `Connection: ${p.profileLabel}${p.baseUrl ? ` (${safeUrl(p.baseUrl)})` : ''}`,
    ...(p.evidenceSha256 ? [`Evidence SHA-256: ${p.evidenceSha256}`] : []),
    `Features: ${count}`,
  ];
  return lines.join('\n');
}

interface TilesInfo {
  table: string;
  name: string;
}

/** Copies the basemap tiles of an area pack (its GeoPackage tile tables) into the project's GeoPackage. */
function copyPackTiles(db: Database.Database, packPath: string): TilesInfo | null {
  // ATTACH would create a missing file: the pack must exist.
  if (!existsSync(packPath)) throw new RpcError('NOT_FOUND', `No area pack at ${packPath}`);
  db.prepare('ATTACH DATABASE ? AS pack').run(packPath);
  try {
    const t = db.prepare("SELECT table_name, identifier FROM pack.gpkg_contents WHERE data_type = 'tiles' ORDER BY table_name LIMIT 1").get() as
      | { table_name: string; identifier: string | null }
      | undefined;
    if (!t) return null;
    const q = (s: string) => `"${s.replace(/"/g, '""')}"`;
    // A pack whose tile server was out of reach may hold the table and no tile.
    if (!db.prepare(`SELECT 1 FROM pack.${q(t.table_name)} LIMIT 1`).get()) return null;
    const taken = db.prepare('SELECT 1 FROM main.gpkg_contents WHERE lower(table_name) = lower(?)').get(t.table_name);
    if (taken) throw new Error(`The area pack's tile table ${t.table_name} clashes with a layer of the export`);
    db.exec('BEGIN');
    db.prepare(
      `INSERT OR IGNORE INTO main.gpkg_spatial_ref_sys SELECT * FROM pack.gpkg_spatial_ref_sys
       WHERE srs_id = (SELECT srs_id FROM pack.gpkg_contents WHERE table_name = ?)`,
    ).run(t.table_name);
    db.prepare('INSERT INTO main.gpkg_contents SELECT * FROM pack.gpkg_contents WHERE table_name = ?').run(t.table_name);
    db.prepare('INSERT INTO main.gpkg_tile_matrix_set SELECT * FROM pack.gpkg_tile_matrix_set WHERE table_name = ?').run(t.table_name);
    db.prepare('INSERT INTO main.gpkg_tile_matrix SELECT * FROM pack.gpkg_tile_matrix WHERE table_name = ?').run(t.table_name);
    db.exec(`CREATE TABLE main.${q(t.table_name)} (id INTEGER PRIMARY KEY AUTOINCREMENT, zoom_level INTEGER NOT NULL,
      tile_column INTEGER NOT NULL, tile_row INTEGER NOT NULL, tile_data BLOB NOT NULL, UNIQUE (zoom_level, tile_column, tile_row))`);
    db.exec(`INSERT INTO main.${q(t.table_name)} SELECT id, zoom_level, tile_column, tile_row, tile_data FROM pack.${q(t.table_name)}`);
    db.exec('COMMIT');
    return { table: t.table_name, name: t.identifier || 'Basemap' };
  } catch (e) {
    if (db.inTransaction) db.exec('ROLLBACK');
    throw e;
  } finally {
    db.exec('DETACH DATABASE pack');
  }
}

/** Union of the layers' bounds (lon/lat) from gpkg_contents, or null when no layer has any. */
function dataBounds(db: Database.Database, tables: readonly string[]): Box | null {
  const box: Box = [Infinity, Infinity, -Infinity, -Infinity];
  const get = db.prepare('SELECT min_x, min_y, max_x, max_y FROM gpkg_contents WHERE table_name = ? AND min_x IS NOT NULL');
  for (const t of tables) {
    const r = get.get(t) as { min_x: number; min_y: number; max_x: number; max_y: number } | undefined;
    if (!r) continue;
    box[0] = Math.min(box[0], r.min_x);
    box[1] = Math.min(box[1], r.min_y);
    box[2] = Math.max(box[2], r.max_x);
    box[3] = Math.max(box[3], r.max_y);
  }
  return box[0] === Infinity ? null : box;
}

/** The data with a margin, so no dot sits on the edge; the map's extent where there is none. */
export function projectExtent(map: Box | undefined, data: Box | null): Box {
  const b: Box = data ? [...data] : map ? [...map] : [-180, -85, 180, 85];
  if (data) {
    const w = Math.max(data[2] - data[0], 0.001) * 0.1;
    const h = Math.max(data[3] - data[1], 0.001) * 0.1;
    b[0] = Math.max(-180, Math.min(b[0], data[0] - w));
    b[1] = Math.max(-85, Math.min(b[1], data[1] - h));
    b[2] = Math.min(180, Math.max(b[2], data[2] + w));
    b[3] = Math.min(85, Math.max(b[3], data[3] + h));
  }
  return b;
}

/** A box three times as wide and high around the same middle: the places named around the data. */
const widen = (b: Box): Box => {
  const w = Math.max(b[2] - b[0], 0.05);
  const h = Math.max(b[3] - b[1], 0.05);
  return [b[0] - w, b[1] - h, b[2] + w, b[3] + h];
};

/** Features of a data layer with their OSM tags (its `attributes`). */
function* tagged(features: readonly unknown[]) {
  for (const f of features as { geometry: never; properties?: { attributes?: Record<string, unknown> } }[])
    yield { geometry: f.geometry, tags: f.properties?.attributes ?? {} };
}

type GeometryKind = 'Point' | 'LineString' | 'Polygon';
const KIND_NAME: Record<GeometryKind, string> = { Point: 'points', LineString: 'lines', Polygon: 'areas' };

/**
 * The kinds of geometry a table of several holds, in the order QGIS draws them best (areas under
 * lines under points). The writer's blobs carry an XY envelope, so the WKB type is byte 42.
 */
function geometryKinds(db: Database.Database, l: ExportedLayer): GeometryKind[] {
  if (l.geometryType !== 'GEOMETRY') return [];
  const types = new Set(
    db.prepare(`SELECT DISTINCT unicode(substr(geom, 42, 1)) FROM "${l.table.replace(/"/g, '""')}" WHERE geom IS NOT NULL`).pluck().all() as number[],
  );
  const out: GeometryKind[] = [];
  if (types.has(1) || types.has(4)) out.push('Point');
  if (types.has(2) || types.has(5)) out.push('LineString');
  if (types.has(3) || types.has(6)) out.push('Polygon');
  return out;
}

/** Whether every feature of an upload lies where an answer has one (same geometry): the answer repeats the file. */
function duplicatesAnswer(db: Database.Database, table: string, answers: readonly string[]): boolean {
  if (!answers.length) return false;
  const qt = (t: string) => `"${t.replace(/"/g, '""')}"`;
  const union = answers.map((a) => `SELECT geom FROM ${qt(a)}`).join(' UNION ');
  const r = db.prepare(`SELECT count(*) AS n, sum(geom IN (${union})) AS dup FROM ${qt(table)}`).get() as { n: number; dup: number | null };
  return r.n > 0 && r.dup === r.n;
}

const BASEMAP_ABSTRACT: Record<BasemapTable['role'], string> = {
  land: 'Natural Earth 1:50m land (public domain), as the map draws it offline.',
  borders: 'Natural Earth 1:50m country borders (public domain).',
  places: 'Cities and towns of GeoNames (CC BY 4.0), the largest around the data.',
  'street-areas': 'Street basemap made from your OSM extract. © OpenStreetMap contributors (ODbL).',
  'street-lines': 'Street basemap made from your OSM extract. © OpenStreetMap contributors (ODbL).',
  'street-places': 'Street basemap made from your OSM extract. © OpenStreetMap contributors (ODbL).',
};


/**
 * Writes a QGIS project for the layers. `partial` is the temporary file the caller renames to
 * `destination` (a .qgz, or a .zip holding project and data for QField); the GeoPackage of a
 * .qgz goes beside it under the project's name.
 */
export async function writeProject(
  partial: string,
  destination: string,
  packaged: boolean,
  layers: readonly ExportLayer[],
  options: ProjectOptions,
  hooks: { tick: Tick; clock?: () => Date },
): Promise<ProjectWriteResult> {
  const base = options.name ?? (basename(destination).replace(/\.(qgz|zip)$/i, '') || 'project');
  const gpkgName = `${base}.gpkg`;
  const gpkgPartial = join(dirname(partial), `.${gpkgName}.${randomBytes(6).toString('hex')}.partial`);
  const now = (hooks.clock ?? (() => new Date()))();
  try {
    const exported = await writeGeoPackage(gpkgPartial, layers, { tick: hooks.tick, clock: hooks.clock });
    const rasters: ProjectBasemap[] = [];
    let offline: BasemapTable[] = [];
    const kinds: GeometryKind[][] = [];
    let duplicates: boolean[] = [];
    let extent: Box;
    const db = new Database(gpkgPartial);
    try {
      const taken = (t: string) => db.prepare('SELECT 1 FROM sqlite_master WHERE lower(name) = lower(?)').get(t) !== undefined;
      // A pack packed offline holds no tiles: the offline tables below draw its area all the same.
      const tiles = options.basemap.kind === 'pack' ? copyPackTiles(db, options.basemap.path) : null;
      if (tiles) rasters.push({ kind: 'tiles', table: tiles.table, name: tiles.name });
      if (options.basemap.kind === 'online') rasters.push({ kind: 'online', name: 'OpenStreetMap (online)', url: options.basemap.url, maxZoom: 19 });
      const data = dataBounds(db, exported.map((l) => l.table));
      extent = projectExtent(options.extent, data);
      const street = layers.flatMap((l) => (l.streetBasemap && Array.isArray(l.features) ? streetFeatures(tagged(l.features as unknown[])) : []));
      offline = writeOfflineBasemap(
        db,
        { box: data ?? extent, places: (options.places ?? placesIn)(widen(extent)), street },
        now.toISOString(),
        (t) => basemapQml(t, options.theme),
        taken,
      );
      for (let i = 0; i < exported.length; i++) kinds.push(geometryKinds(db, exported[i]!));
      duplicates = exported.map((l, i) => layers[i]!.role === 'upload' && duplicatesAnswer(db, l.table, exported.filter((_, j) => isAnswer(layers[j]!)).map((a) => a.table)));
    } finally {
      db.close();
    }

    const looks = layerLooks(layers, exported, options.styles);
    const projectLayers: ProjectVectorLayer[] = exported.flatMap((l, i) => {
      const layer = layers[i]!;
      const base: ProjectVectorLayer = {
        id: `layer_${i + 1}_${l.table}`.slice(0, 80),
        name: l.name,
        table: l.table,
        geometryType: l.geometryType,
        style: looks[i]!.style,
        label: looks[i]!.label,
        readOnly: !options.editable,
        abstract: provenanceText(layer, l.count),
        // A file the answer was asked over holds the answer's own features: drawn, they would cover its classes.
        hidden: duplicates[i] ?? false,
      };
      const split = kinds[i] ?? [];
      if (split.length < 2) return [base];
      // QGIS draws one kind of geometry per layer: a table of several is shown as one layer per kind.
      return split.map((k) => ({ ...base, id: `${base.id}_${k}`.slice(0, 80), name: `${l.name} (${KIND_NAME[k]})`, geometryFilter: k }));
    });
    setDefaultStyles(
      gpkgPartial,
      projectLayers.map((l) => ({ table: l.table, geometryType: l.geometryType, look: { style: l.style, label: l.label }, mixed: !!l.geometryFilter })),
    );
    const basemapLayer = (t: BasemapTable): ProjectVectorLayer => {
      const { renderer, labels } = basemapStyle(t.role, options.theme);
      return {
        id: `layer_base_${t.table}`,
        name: t.name,
        table: t.table,
        geometryType: t.geometryType,
        style: { by: 'layer', colour: DEFAULT_LAYER_COLOUR },
        label: null,
        renderer,
        labels,
        readOnly: true,
        abstract: BASEMAP_ABSTRACT[t.role],
      };
    };
    const labelled = offline.filter((t) => t.role === 'places' || t.role === 'street-places').map(basemapLayer);
    const below = offline.filter((t) => t.role !== 'places' && t.role !== 'street-places').map(basemapLayer);
    const first = layers.find(isAnswer) ?? layers[0]!;
    const title = options.title ?? first.name;
    const abstract = projectLayers.map((l) => `${l.name}\n${l.abstract}`).join('\n\n');
    const xml = projectXml({
      title,
      abstract,
      gpkg: gpkgName,
      layers: projectLayers,
      basemap: { labels: labelled, rasters, below },
      background: waterColour(options.theme),
      extent,
      created: now.toISOString(),
    });
    const qgz = zipSync({ [`${base}.qgs`]: strToU8(xml) }, { level: 6, mtime: now });
    if (packaged) {
      const gpkg = await readFile(gpkgPartial);
      // Tiles are already compressed images: storing the GeoPackage costs little and saves a long deflate.
      await writeFile(partial, zipSync({ [`${base}.qgz`]: [qgz, { level: 0 }], [gpkgName]: [gpkg, { level: 1 }] }, { mtime: now }));
      await rm(gpkgPartial, { force: true });
      return { layers: exported, gpkgPath: null };
    }
    await writeFile(partial, qgz);
    const gpkgPath = join(dirname(destination), gpkgName);
    await rename(gpkgPartial, gpkgPath);
    return { layers: exported, gpkgPath };
  } catch (e) {
    await Promise.all([gpkgPartial, `${gpkgPartial}-journal`].map((p) => rm(p, { force: true })));
    throw e;
  }
}

// A GeoPackage takes about 80 KB empty, 12 KB more per layer, and 0.65 bytes per byte of the
// features as GeoJSON text (measured from 10 to 30,000 points: within 10 % of the file).
const GPKG_EMPTY = 80 * 1024;
const GPKG_PER_LAYER = 12 * 1024;
const GPKG_PER_JSON_BYTE = 0.65;
const PROJECT_BYTES = 8 * 1024;
// The copied tile table's own pages, index and pyramid rows (about 35 KB measured on a small pack).
const TILE_TABLE_BYTES = 32 * 1024;

/** Bytes of an area pack's basemap tiles (its GeoPackage tile tables). */
export function packTileBytes(packPath: string): number {
  if (!existsSync(packPath)) throw new RpcError('NOT_FOUND', `No area pack at ${packPath}`);
  const db = new Database(packPath, { readonly: true, fileMustExist: true });
  try {
    const tables = db.prepare("SELECT table_name FROM gpkg_contents WHERE data_type = 'tiles'").pluck().all() as string[];
    return tables.reduce(
      (sum, t) => sum + ((db.prepare(`SELECT coalesce(sum(length(tile_data)), 0) FROM "${t.replace(/"/g, '""')}"`).pluck().get() as number) ?? 0),
      0,
    );
  } finally {
    db.close();
  }
}

/** What a project of these layers holds and about how big it is; layers must be arrays to be sized. */
export function estimateProject(
  layers: readonly ExportLayer[],
  packPath: string | null,
): { layers: { name: string; features: number }[]; features: number; dataBytes: number; basemapBytes: number; bytes: number } {
  let json = 0;
  const out = layers.map((l) => {
    const items = Array.isArray(l.features) ? (l.features as unknown[]) : null;
    if (items) for (const f of items) json += Buffer.byteLength(JSON.stringify(f));
    return { name: l.name, features: l.count ?? items?.length ?? 0 };
  });
  const dataBytes = Math.round(GPKG_EMPTY + GPKG_PER_LAYER * layers.length + GPKG_PER_JSON_BYTE * json);
  // The offline basemap around the data: Natural Earth and places, and the street features of extracts (as their data).
  const box = featuresBox(layers.flatMap((l) => (Array.isArray(l.features) ? (l.features as { geometry?: { coordinates?: unknown } }[]) : [])));
  let streetJson = 0;
  for (const l of layers) if (l.streetBasemap && Array.isArray(l.features)) for (const f of l.features as unknown[]) streetJson += Buffer.byteLength(JSON.stringify(f));
  const offline = offlineBasemapBytes(box ?? [-180, -85, 180, 85]) + Math.round(GPKG_PER_JSON_BYTE * streetJson);
  const basemapBytes = offline + (packPath ? packTileBytes(packPath) + TILE_TABLE_BYTES : 0);
  return {
    layers: out,
    features: out.reduce((s, l) => s + l.features, 0),
    dataBytes,
    basemapBytes,
    bytes: dataBytes + basemapBytes + PROJECT_BYTES,
  };
}
