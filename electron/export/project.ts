import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { strToU8, zipSync } from 'fflate';
import { RpcError } from '../../shared/rpc/errors';
import { writeGeoPackage, safeUrl } from './gpkg';
import { projectXml, type Box, type ProjectBasemap, type ProjectVectorLayer } from './qgis-project';
import { NAME_FIELD, type LayerStyle } from './qgis-style';
import type { ExportedLayer, ExportLayer, LayerKind, Tick } from './types';

/** Colour of a layer the map gave none for: the map's own result colour. */
export const DEFAULT_LAYER_COLOUR = '#e8710a';

export type ProjectBasemapChoice = { kind: 'online'; url: string } | { kind: 'pack'; path: string } | { kind: 'none' };

export interface ProjectOptions {
  basemap: ProjectBasemapChoice;
  /** The map's extent (lon/lat); grown to hold every exported feature. */
  extent?: Box;
  /** Per layer, in the order of the layers: how the map draws it. */
  styles?: readonly (LayerStyle | null | undefined)[];
  /** Layers open for editing; read-only otherwise. */
  editable?: boolean;
  /** File names inside (project and GeoPackage); the destination's name when absent. */
  name?: string;
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

/** The map's extent grown to hold the data, with a margin so no dot sits on the edge. */
export function projectExtent(map: Box | undefined, data: Box | null): Box {
  const b: Box = map ? [...map] : data ? [...data] : [-180, -85, 180, 85];
  if (data) {
    const w = Math.max(data[2] - data[0], 0.001) * 0.05;
    const h = Math.max(data[3] - data[1], 0.001) * 0.05;
    b[0] = Math.max(-180, Math.min(b[0], data[0] - w));
    b[1] = Math.max(-85, Math.min(b[1], data[1] - h));
    b[2] = Math.min(180, Math.max(b[2], data[2] + w));
    b[3] = Math.min(85, Math.max(b[3], data[3] + h));
  }
  return b;
}

const label = (kind: LayerKind): string => NAME_FIELD[kind];

/**
 * The map's style in the table's terms: a column by its column name, ranks as feature ids (the
 * writer numbers features from 1 in the order given, the service's order). A column the table
 * does not hold on its own draws in the layer's colour.
 */
function tableStyle(style: LayerStyle, layer: ExportedLayer): LayerStyle {
  if (style.by !== 'column') return style;
  const column = layer.columns?.[style.column];
  return column ? { ...style, column } : { by: 'layer', colour: style.colour };
}

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
    let basemap: ProjectBasemap = { kind: 'none' };
    let extent: Box;
    const db = new Database(gpkgPartial);
    try {
      if (options.basemap.kind === 'pack') {
        const tiles = copyPackTiles(db, options.basemap.path);
        if (!tiles) throw new Error('The area pack holds no basemap tiles');
        basemap = { kind: 'tiles', table: tiles.table, name: tiles.name };
      } else if (options.basemap.kind === 'online')
        basemap = { kind: 'online', name: 'OpenStreetMap', url: options.basemap.url, maxZoom: 19 };
      extent = projectExtent(options.extent, dataBounds(db, exported.map((l) => l.table)));
    } finally {
      db.close();
    }

    const projectLayers: ProjectVectorLayer[] = exported.map((l, i) => {
      const layer = layers[i]!;
      return {
        id: `layer_${i + 1}_${l.table}`.slice(0, 80),
        name: l.name,
        table: l.table,
        geometryType: l.geometryType,
        style: tableStyle(options.styles?.[i] ?? { by: 'layer', colour: layer.colour ?? DEFAULT_LAYER_COLOUR }, l),
        label: label(l.kind),
        readOnly: !options.editable,
        abstract: provenanceText(layer, l.count),
      };
    });
    const title = layers.length === 1 ? layers[0]!.name : `Fieldlens export (${layers.length} layers)`;
    const abstract = projectLayers.map((l) => `${l.name}\n${l.abstract}`).join('\n\n');
    const xml = projectXml({ title, abstract, gpkg: gpkgName, layers: projectLayers, basemap, extent, created: now.toISOString() });
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
  const basemapBytes = packPath ? packTileBytes(packPath) + TILE_TABLE_BYTES : 0;
  return {
    layers: out,
    features: out.reduce((s, l) => s + l.features, 0),
    dataBytes,
    basemapBytes,
    bytes: dataBytes + basemapBytes + PROJECT_BYTES,
  };
}
