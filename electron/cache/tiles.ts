import type { CacheDb } from './db';

// Basemap tiles brought in by area packs (XYZ numbering, Web Mercator), drawn by the map offline.

export function getTile(c: CacheDb, z: number, x: number, y: number): Buffer | null {
  return (c.stmt('SELECT data FROM basemap_tiles WHERE z = ? AND x = ? AND y = ?').pluck().get(z, x, y) as Buffer | undefined) ?? null;
}

/** Stores a tile, replacing the one at the same place; true when it was not here before. */
export function putTile(c: CacheDb, z: number, x: number, y: number, data: Uint8Array): boolean {
  const had = c.stmt('SELECT 1 FROM basemap_tiles WHERE z = ? AND x = ? AND y = ?').pluck().get(z, x, y) !== undefined;
  c.stmt(
    `INSERT INTO basemap_tiles (z, x, y, data) VALUES (?, ?, ?, ?)
     ON CONFLICT (z, x, y) DO UPDATE SET data = excluded.data`,
  ).run(z, x, y, Buffer.from(data.buffer, data.byteOffset, data.byteLength));
  if (!c.db.inTransaction) c.afterWrite();
  return !had;
}

export function tileCount(c: CacheDb): { count: number; maxZoom: number | null } {
  return c.stmt('SELECT count(*) AS count, max(z) AS maxZoom FROM basemap_tiles').get() as { count: number; maxZoom: number | null };
}
