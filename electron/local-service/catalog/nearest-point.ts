import { around, distance } from 'geokdbush';
import type KDBush from 'kdbush';

/** Half the side of the box asked first, in km. */
const BOX_KM = 50;
/** Answers from the box only this close: past it a point outside the box might be nearer. */
const SURE_KM = BOX_KM * 0.9;
const KM_PER_DEGREE = (6371 * Math.PI) / 180;

/**
 * The point of `index` nearest (lon, lat) on the sphere (its id), or -1 when it holds none.
 * geokdbush's around() finds it by a best-first search that allocates an object for every node
 * and point it looks at: asked for the nearest city of each layer feature listed, it made a
 * quarter of a service worker's allocations under load, and so its collections. The points in a
 * box of ±50 km (kdbush's range, which allocates only the ids found) hold the answer whenever the
 * nearest of them is within 45 km: anything outside the box is farther (the 10% spare covers
 * the box's longitude width, taken at the box's highest latitude). Elsewhere (open sea, the
 * poles, the antimeridian) around() answers. Ties go to the lower id.
 */
export function nearestPoint(index: KDBush, lons: ArrayLike<number>, lats: ArrayLike<number>, lon: number, lat: number): number {
  const dLat = BOX_KM / KM_PER_DEGREE;
  const top = Math.abs(lat) + dLat;
  if (top < 89) {
    const dLon = dLat / Math.cos((top * Math.PI) / 180);
    if (lon - dLon >= -180 && lon + dLon <= 180) {
      let best = -1;
      let bestKm = Infinity;
      for (const id of index.range(lon - dLon, lat - dLat, lon + dLon, lat + dLat)) {
        const km = distance(lon, lat, lons[id]!, lats[id]!);
        if (km < bestKm || (km === bestKm && id < best)) [best, bestKm] = [id, km];
      }
      if (bestKm <= SURE_KM) return best;
    }
  }
  const hit = around(index, lon, lat, 1);
  return hit.length ? hit[0]! : -1;
}
