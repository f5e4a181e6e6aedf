import type { CacheDb } from './db';
import type { BBox } from './spatial';

export interface CachedCapture {
  featureId: string;
  queryId: number;
  lon: number;
  lat: number;
  compass: string | null;
  date: string | null;
  image: string | null;
}

/**
 * Cached imagery records with a position in a box (R*Tree runs, then the records' own boxes),
 * one per record id: the newest cached copy.
 */
export function imageryNear(c: CacheDb, box: BBox): CachedCapture[] {
  const rows = c.stmt(
    `SELECT f.feature_id, f.query_id, f.minx, f.miny, i.compass, i.date, i.image
     FROM features_rtree r JOIN features f ON f.id BETWEEN r.id AND r.last_id
     JOIN imagery_records i ON i.id = f.id
     WHERE r.maxx >= @minx AND r.minx <= @maxx AND r.maxy >= @miny AND r.miny <= @maxy
       AND f.minx >= @minx AND f.minx <= @maxx AND f.miny >= @miny AND f.miny <= @maxy
     ORDER BY f.query_id DESC`,
  ).all({ minx: box[0], miny: box[1], maxx: box[2], maxy: box[3] }) as {
    feature_id: string; query_id: number; minx: number; miny: number; compass: string | null; date: string | null; image: string | null;
  }[];
  const seen = new Set<string>();
  const out: CachedCapture[] = [];
  for (const r of rows) {
    if (seen.has(r.feature_id)) continue;
    seen.add(r.feature_id);
    out.push({ featureId: r.feature_id, queryId: r.query_id, lon: r.minx, lat: r.miny, compass: r.compass, date: r.date, image: r.image });
  }
  return out;
}
