import type { Database } from 'better-sqlite3';
import { MERCATOR_HALF, type TileRange } from './area';

/**
 * Basemap tiles in a GeoPackage tile pyramid (spec 2.2) on the Web Mercator grid the online
 * basemap uses, so QGIS shows them as a raster layer. GeoPackage rows count from the top, as
 * XYZ tile rows do, so tiles are stored with the numbers they were fetched by.
 */

export const TILES_TABLE = 'basemap_tiles';
const TILE_SIZE = 256;

const WEB_MERCATOR_WKT =
  'PROJCS["WGS 84 / Pseudo-Mercator",GEOGCS["WGS 84",DATUM["WGS_1984",SPHEROID["WGS 84",6378137,298.257223563,' +
  'AUTHORITY["EPSG","7030"]],AUTHORITY["EPSG","6326"]],PRIMEM["Greenwich",0,AUTHORITY["EPSG","8901"]],' +
  'UNIT["degree",0.0174532925199433,AUTHORITY["EPSG","9122"]],AUTHORITY["EPSG","4326"]],' +
  'PROJECTION["Mercator_1SP"],PARAMETER["central_meridian",0],PARAMETER["scale_factor",1],' +
  'PARAMETER["false_easting",0],PARAMETER["false_northing",0],UNIT["metre",1,AUTHORITY["EPSG","9001"]],' +
  'AXIS["Easting",EAST],AXIS["Northing",NORTH],EXTENSION["PROJ4","+proj=merc +a=6378137 +b=6378137 +lat_ts=0 ' +
  '+lon_0=0 +x_0=0 +y_0=0 +k=1 +units=m +nadgrids=@null +wktext +no_defs"],AUTHORITY["EPSG","3857"]]';

export interface Tile {
  z: number;
  x: number;
  y: number;
  data: Buffer;
}

/** Creates the tile table and its pyramid rows (once per file). */
export function createTileTable(db: Database, description: string, now: string): void {
  db.prepare('INSERT OR IGNORE INTO gpkg_spatial_ref_sys VALUES (?, ?, ?, ?, ?, ?)').run(
    'WGS 84 / Pseudo-Mercator',
    3857,
    'EPSG',
    3857,
    WEB_MERCATOR_WKT,
    'Web Mercator, the grid of web map tiles',
  );
  db.exec(`CREATE TABLE ${TILES_TABLE} (id INTEGER PRIMARY KEY AUTOINCREMENT, zoom_level INTEGER NOT NULL,
    tile_column INTEGER NOT NULL, tile_row INTEGER NOT NULL, tile_data BLOB NOT NULL, UNIQUE (zoom_level, tile_column, tile_row))`);
  db.prepare(
    `INSERT INTO gpkg_contents (table_name, data_type, identifier, description, last_change, srs_id) VALUES (?, 'tiles', ?, ?, ?, 3857)`,
  ).run(TILES_TABLE, 'Basemap', description, now);
  db.prepare('INSERT INTO gpkg_tile_matrix_set VALUES (?, 3857, ?, ?, ?, ?)').run(TILES_TABLE, -MERCATOR_HALF, -MERCATOR_HALF, MERCATOR_HALF, MERCATOR_HALF);
}

/** Adds a tile, replacing the one at the same place; the zoom's matrix row comes with it. */
export function putTile(db: Database, t: Tile): void {
  const n = 2 ** t.z;
  const pixel = (2 * MERCATOR_HALF) / (TILE_SIZE * n);
  db.prepare('INSERT OR IGNORE INTO gpkg_tile_matrix VALUES (?, ?, ?, ?, ?, ?, ?, ?)').run(TILES_TABLE, t.z, n, n, TILE_SIZE, TILE_SIZE, pixel, pixel);
  db.prepare(
    `INSERT INTO ${TILES_TABLE} (zoom_level, tile_column, tile_row, tile_data) VALUES (?, ?, ?, ?)
     ON CONFLICT (zoom_level, tile_column, tile_row) DO UPDATE SET tile_data = excluded.tile_data`,
  ).run(t.z, t.x, t.y, t.data);
}

/** Sets the tiles' extent in gpkg_contents from the tiles the table holds. */
export function finishTiles(db: Database): void {
  const b = db
    .prepare(
      `SELECT min(tile_column) AS x0, max(tile_column) AS x1, min(tile_row) AS y0, max(tile_row) AS y1, zoom_level AS z
       FROM ${TILES_TABLE} WHERE zoom_level = (SELECT max(zoom_level) FROM ${TILES_TABLE})`,
    )
    .get() as { x0: number | null; x1: number; y0: number; y1: number; z: number };
  if (b.x0 === null) return;
  const size = (2 * MERCATOR_HALF) / 2 ** b.z;
  db.prepare('UPDATE gpkg_contents SET min_x = ?, max_x = ?, min_y = ?, max_y = ? WHERE table_name = ?').run(
    -MERCATOR_HALF + b.x0 * size,
    -MERCATOR_HALF + (b.x1 + 1) * size,
    MERCATOR_HALF - (b.y1 + 1) * size,
    MERCATOR_HALF - b.y0 * size,
    TILES_TABLE,
  );
}

/** Every tile of the ranges, lowest zoom first. */
export function* tilesOf(ranges: readonly TileRange[]): Generator<{ z: number; x: number; y: number }> {
  for (const r of ranges) for (let x = r.x0; x <= r.x1; x++) for (let y = r.y0; y <= r.y1; y++) yield { z: r.z, x, y };
}
