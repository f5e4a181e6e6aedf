import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { pointOnFeature } from '@turf/turf';
import type Database from 'better-sqlite3';
import { feature, mesh } from 'topojson-client';
import type { GeometryCollection, Topology } from 'topojson-specification';
import { STREET_MAX_ZOOM, streetClassOf, type StreetLayer } from '../../shared/basemap/streetClasses';
import type { Geometry, Position } from '../../shared/service/geojson';
import { resourcesDir } from '../ground/paths';
import { emptyEnvelope, gpkgGeometry, mergeEnvelope } from './geometry';
import { rtreeTriggers, STYLES_TABLE } from './gpkg';
import { BoxList, bulkLoadRtree } from './rtree-bulk';

/**
 * The offline basemap of a QGIS project: what the app draws with no network, written as plain
 * vector tables into the project's GeoPackage and styled there (basemap-style.ts). Natural Earth
 * land and borders (the app's bottom layers), the largest places around the data with their
 * names, and the street basemap of the loaded OSM extracts, classified by the app's own table.
 *
 * Vector tables rather than tiles: QGIS 3.22 reads vector tiles only from files beside the
 * project (not from a GeoPackage), raster tiles would have to be drawn by a renderer the app
 * does not carry, and vector tables stay sharp at every zoom, take the app's colours as QGIS
 * styles, and travel inside the one GeoPackage QField opens.
 */

export type Box = [number, number, number, number];

export interface BasemapFeature {
  geometry: Geometry;
  cls: string;
  name: string | null;
  /** Places: people living there (sorts the labels). */
  population?: number | null;
}

export interface BasemapTable {
  table: string;
  name: string;
  geometryType: 'MULTIPOLYGON' | 'MULTILINESTRING' | 'POINT';
  /** What the table draws, for its style (basemap-style.ts). */
  role: 'land' | 'borders' | 'places' | 'street-areas' | 'street-lines' | 'street-places';
  count: number;
}

/** Natural Earth kept whole within this many degrees around the data (parts, not cut). */
const NE_MARGIN_DEGREES = 15;
/** The places named, largest first: the map's country-scale labels, not every village. */
const MAX_PLACES = 60;

const meets = (a: Box, b: Box) => a[0] <= b[2] && a[2] >= b[0] && a[1] <= b[3] && a[3] >= b[1];

function boxOf(coords: unknown, into: Box = [Infinity, Infinity, -Infinity, -Infinity]): Box {
  if (Array.isArray(coords) && typeof coords[0] === 'number') {
    const [x, y] = coords as number[];
    into[0] = Math.min(into[0], x!);
    into[1] = Math.min(into[1], y!);
    into[2] = Math.max(into[2], x!);
    into[3] = Math.max(into[3], y!);
  } else if (Array.isArray(coords)) for (const c of coords) boxOf(c, into);
  return into;
}

const grow = (b: Box, d: number): Box => [b[0] - d, b[1] - d, b[2] + d, b[3] + d];

/**
 * Natural Earth 1:50m land polygons and country borders near a box, part by part. The files are
 * read when a project is written (the main process keeps its packages external: a JSON import
 * would need an import attribute there, and would parse 1.3 MB at every start).
 */
export function naturalEarth(box: Box): { land: Position[][][]; borders: Position[][] } {
  const around = grow(box, NE_MARGIN_DEGREES);
  const require = createRequire(import.meta.url);
  const landTopo = require('world-atlas/land-50m.json') as Topology<{ land: GeometryCollection }>;
  const countriesTopo = require('world-atlas/countries-50m.json') as Topology<{ countries: GeometryCollection }>;
  const land: Position[][][] = [];
  for (const f of feature(landTopo, landTopo.objects.land).features) {
    const g = f.geometry;
    const polys = g.type === 'Polygon' ? [g.coordinates] : g.type === 'MultiPolygon' ? g.coordinates : [];
    for (const p of polys) if (meets(boxOf(p), around)) land.push(p as Position[][]);
  }
  const borderGeom = mesh(countriesTopo, countriesTopo.objects.countries, (a, b) => a !== b);
  const borders = (borderGeom.coordinates as Position[][]).filter((l) => meets(boxOf(l), around));
  return { land, borders };
}

interface CityColumns {
  name: string[];
  pop: number[];
  lon: number[];
  lat: number[];
}

/** The largest places of the app's bundled catalog in a box (its cities file, lon/lat in 1e-5 degrees). */
export function placesIn(box: Box, catalogDir = join(resourcesDir(), 'catalog')): BasemapFeature[] {
  const c = JSON.parse(gunzipSync(readFileSync(join(catalogDir, 'cities.json.gz'))).toString('utf8')) as CityColumns;
  const found: BasemapFeature[] = [];
  for (let i = 0; i < c.name.length; i++) {
    const lon = c.lon[i]! / 1e5;
    const lat = c.lat[i]! / 1e5;
    if (lon < box[0] || lon > box[2] || lat < box[1] || lat > box[3]) continue;
    found.push({ geometry: { type: 'Point', coordinates: [lon, lat] }, cls: 'place', name: c.name[i]!, population: c.pop[i] ?? null });
  }
  return found.sort((a, b) => (b.population ?? 0) - (a.population ?? 0)).slice(0, MAX_PLACES);
}

/** OSM features (their tags) as the street basemap's classes; those it does not draw left out. */
export function streetFeatures(features: Iterable<{ geometry: Geometry | null; tags: Record<string, unknown> }>): BasemapFeature[] {
  const out: BasemapFeature[] = [];
  for (const f of features) {
    if (!f.geometry) continue;
    const c = streetClassOf(f.tags, STREET_MAX_ZOOM);
    if (!c) continue;
    const name = typeof f.tags['name'] === 'string' ? f.tags['name'] : null;
    const geometry = c.asPoint && f.geometry.type !== 'Point' ? (pointOnFeature(f.geometry as never).geometry as Geometry) : f.geometry;
    out.push({ geometry, cls: `${c.layer}:${c.class}`, name });
  }
  return out;
}

const STREET_TABLE: Record<StreetLayer, 'street-areas' | 'street-lines' | 'street-places'> = {
  landuse: 'street-areas',
  water: 'street-areas',
  buildings: 'street-areas',
  waterway: 'street-lines',
  roads: 'street-lines',
  rail: 'street-lines',
  places: 'street-places',
};

/** A geometry as the table's single type (a multi type; places are points), or null when it is of another kind. */
function asTableGeometry(g: Geometry, type: BasemapTable['geometryType']): Geometry | null {
  if (type === 'POINT') return g.type === 'Point' ? g : null;
  if (type === 'MULTIPOLYGON') {
    if (g.type === 'Polygon') return { type: 'MultiPolygon', coordinates: [g.coordinates] };
    return g.type === 'MultiPolygon' ? g : null;
  }
  if (g.type === 'LineString') return { type: 'MultiLineString', coordinates: [g.coordinates] };
  return g.type === 'MultiLineString' ? g : null;
}

const q = (id: string) => `"${id.replace(/"/g, '""')}"`;

function writeTable(
  db: Database.Database,
  spec: Omit<BasemapTable, 'count'>,
  features: readonly BasemapFeature[],
  now: string,
  qml: (t: Omit<BasemapTable, 'count'>) => string,
): BasemapTable | null {
  const T = q(spec.table);
  db.exec(`CREATE TABLE ${T} ("fid" INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, "geom" ${spec.geometryType}, "class" TEXT, "name" TEXT, "population" INTEGER)`);
  const insert = db.prepare(`INSERT INTO ${T} (fid, geom, class, name, population) VALUES (?, ?, ?, ?, ?)`);
  const bounds = emptyEnvelope();
  const boxes = new BoxList();
  let fid = 0;
  for (const f of features) {
    const g = asTableGeometry(f.geometry, spec.geometryType);
    if (!g) continue;
    const { blob, envelope } = gpkgGeometry(g);
    if (!envelope) continue;
    insert.run(++fid, blob, f.cls, f.name, f.population ?? null);
    mergeEnvelope(bounds, envelope);
    boxes.push(fid, envelope.minX, envelope.maxX, envelope.minY, envelope.maxY);
  }
  if (fid === 0) {
    db.exec(`DROP TABLE ${T}`);
    return null;
  }
  const rtree = `rtree_${spec.table}_geom`;
  db.exec(`CREATE VIRTUAL TABLE ${q(rtree)} USING rtree(id, minx, maxx, miny, maxy)`);
  bulkLoadRtree(db, rtree, boxes);
  db.exec(rtreeTriggers(spec.table, 'geom'));
  db.prepare(
    `INSERT INTO gpkg_contents (table_name, data_type, identifier, description, last_change, min_x, min_y, max_x, max_y, srs_id)
     VALUES (?, 'features', ?, ?, ?, ?, ?, ?, ?, 4326)`,
  ).run(spec.table, spec.name, 'Offline basemap', now, bounds.minX, bounds.minY, bounds.maxX, bounds.maxY);
  db.prepare('INSERT INTO gpkg_geometry_columns VALUES (?, ?, ?, 4326, 0, 0)').run(spec.table, 'geom', spec.geometryType);
  db.prepare(
    `INSERT INTO gpkg_extensions VALUES (?, 'geom', 'gpkg_rtree_index', 'http://www.geopackage.org/spec120/#extension_rtree', 'write-only')`,
  ).run(spec.table);
  db.prepare(
    `INSERT INTO ${STYLES_TABLE} (f_table_catalog, f_table_schema, f_table_name, f_geometry_column, styleName, styleQML,
       styleSLD, useAsDefault, description, owner, ui, update_time) VALUES ('', '', ?, 'geom', ?, ?, '', 1, ?, '', NULL, ?)`,
  ).run(spec.table, spec.table.slice(0, 30), qml(spec), `Default style for ${spec.name}`, now);
  return { ...spec, count: fid };
}

// Bytes a basemap table takes beyond its geometries (pages of the table, its R-tree, style), and
// per part (blob header, envelope, row, index entry); measured on exports near Fulda and New York.
const TABLE_BYTES = 12 * 1024;
const PART_BYTES = 120;

/** About how many bytes the offline basemap of data in this box adds (street features not counted). */
export function offlineBasemapBytes(box: Box): number {
  const ne = naturalEarth(box);
  let coords = 0;
  const count = (a: unknown): void => {
    if (Array.isArray(a) && typeof a[0] === 'number') coords++;
    else if (Array.isArray(a)) for (const x of a) count(x);
  };
  count(ne.land);
  count(ne.borders);
  return 6 * TABLE_BYTES + coords * 16 + (ne.land.length + ne.borders.length + MAX_PLACES) * PART_BYTES;
}

/** The box of GeoJSON features' coordinates, or null when none has any. */
export function featuresBox(features: Iterable<{ geometry?: { coordinates?: unknown } | null }>): Box | null {
  const b: Box = [Infinity, Infinity, -Infinity, -Infinity];
  for (const f of features) if (f.geometry?.coordinates) boxOf(f.geometry.coordinates, b);
  return b[0] === Infinity ? null : b;
}

export interface OfflineBasemapInput {
  /** The data's box (lon/lat): Natural Earth and places are kept around it. */
  box: Box;
  places: readonly BasemapFeature[];
  street: readonly BasemapFeature[];
}

/**
 * Writes the basemap tables into an open GeoPackage (inside its own transaction); returns them
 * top first, as the layers panel lists them. Table names start with `basemap_`, which no data
 * layer's name gives (tableNameFor keeps them apart by a suffix).
 */
export function writeOfflineBasemap(
  db: Database.Database,
  input: OfflineBasemapInput,
  now: string,
  qml: (t: Omit<BasemapTable, 'count'>) => string,
  taken: (table: string) => boolean,
): BasemapTable[] {
  const name = (base: string) => {
    let t = base;
    for (let n = 2; taken(t); n++) t = `${base}_${n}`;
    return t;
  };
  const ne = naturalEarth(input.box);
  const byTable = (role: BasemapTable['role']) => input.street.filter((f) => STREET_TABLE[f.cls.split(':')[0] as StreetLayer] === role);
  const specs: [Omit<BasemapTable, 'count'>, readonly BasemapFeature[]][] = [
    [{ table: name('basemap_places'), name: 'Places', geometryType: 'POINT', role: 'places' }, input.places],
    [{ table: name('basemap_street_places'), name: 'Street basemap: places', geometryType: 'POINT', role: 'street-places' }, byTable('street-places')],
    [{ table: name('basemap_street_lines'), name: 'Street basemap: roads and water', geometryType: 'MULTILINESTRING', role: 'street-lines' }, byTable('street-lines')],
    [{ table: name('basemap_street_areas'), name: 'Street basemap: areas', geometryType: 'MULTIPOLYGON', role: 'street-areas' }, byTable('street-areas')],
    [
      { table: name('basemap_borders'), name: 'Natural Earth borders', geometryType: 'MULTILINESTRING', role: 'borders' },
      ne.borders.map((line) => ({ geometry: { type: 'MultiLineString' as const, coordinates: [line] }, cls: 'border', name: null })),
    ],
    [
      { table: name('basemap_land'), name: 'Natural Earth land', geometryType: 'MULTIPOLYGON', role: 'land' },
      ne.land.map((polygon) => ({ geometry: { type: 'MultiPolygon' as const, coordinates: [polygon] }, cls: 'land', name: null })),
    ],
  ];
  const out: BasemapTable[] = [];
  db.exec('BEGIN');
  try {
    for (const [spec, features] of specs) {
      const t = writeTable(db, spec, features, now, qml);
      if (t) out.push(t);
    }
    db.exec('COMMIT');
  } catch (e) {
    db.exec('ROLLBACK');
    throw e;
  }
  return out;
}
