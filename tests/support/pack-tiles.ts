import Database from 'better-sqlite3';
import { solidPng } from './png';

/**
 * Puts solid-colour basemap tiles over an area into a pack, as a pack written online holds them
 * (test machines have no tile server): a GeoPackage tile pyramid (spec 2.2) on the Web Mercator
 * grid, tile numbers by the slippy-map formula. Returns the tiles written.
 */
export function addPackTiles(
  path: string,
  area: { west: number; south: number; east: number; north: number },
  zooms: readonly number[],
  rgb: [number, number, number],
): { z: number; x: number; y: number }[] {
  const tx = (lon: number, z: number) => Math.floor(((lon + 180) / 360) * 2 ** z);
  const ty = (lat: number, z: number) => Math.floor(((1 - Math.asinh(Math.tan((lat * Math.PI) / 180)) / Math.PI) / 2) * 2 ** z);
  const png = solidPng(256, rgb);
  const tiles: { z: number; x: number; y: number }[] = [];
  for (const z of zooms)
    for (let x = tx(area.west, z); x <= tx(area.east, z); x++) for (let y = ty(area.north, z); y <= ty(area.south, z); y++) tiles.push({ z, x, y });
  const half = 20037508.342789244;
  const db = new Database(path);
  try {
    db.transaction(() => {
      db.prepare("INSERT OR IGNORE INTO gpkg_spatial_ref_sys VALUES ('WGS 84 / Pseudo-Mercator', 3857, 'EPSG', 3857, 'undefined', null)").run();
      db.exec('CREATE TABLE basemap_tiles (id INTEGER PRIMARY KEY AUTOINCREMENT, zoom_level INTEGER NOT NULL, tile_column INTEGER NOT NULL, tile_row INTEGER NOT NULL, tile_data BLOB NOT NULL, UNIQUE (zoom_level, tile_column, tile_row))');
      db.prepare("INSERT INTO gpkg_contents (table_name, data_type, identifier, srs_id) VALUES ('basemap_tiles', 'tiles', 'Basemap', 3857)").run();
      db.prepare("INSERT INTO gpkg_tile_matrix_set VALUES ('basemap_tiles', 3857, ?, ?, ?, ?)").run(-half, -half, half, half);
      for (const z of zooms) {
        const pixel = (2 * half) / (256 * 2 ** z);
        db.prepare("INSERT INTO gpkg_tile_matrix VALUES ('basemap_tiles', ?, ?, ?, 256, 256, ?, ?)").run(z, 2 ** z, 2 ** z, pixel, pixel);
      }
      const put = db.prepare('INSERT INTO basemap_tiles (zoom_level, tile_column, tile_row, tile_data) VALUES (?, ?, ?, ?)');
      for (const t of tiles) put.run(t.z, t.x, t.y, png);
    })();
  } finally {
    db.close();
  }
  return tiles;
}
