import KDBush from 'kdbush';
import { describe, expect, it } from 'vitest';
import { defaultCatalogDir, loadCatalog } from '../../../electron/local-service/catalog/catalog';
import { nearestPoint } from '../../../electron/local-service/catalog/nearest-point';

const R = 6371;
const rad = Math.PI / 180;
/** Great-circle km (haversine), written here apart from the index's own. */
const km = (lon1: number, lat1: number, lon2: number, lat2: number) =>
  2 * R * Math.asin(Math.sqrt(Math.sin(((lat2 - lat1) * rad) / 2) ** 2 + Math.cos(lat1 * rad) * Math.cos(lat2 * rad) * Math.sin(((lon2 - lon1) * rad) / 2) ** 2));

/** The id nearest (lon, lat) by looking at every point; ties to the lower id. */
function byScan(lons: ArrayLike<number>, lats: ArrayLike<number>, lon: number, lat: number): number {
  let best = -1;
  let bestKm = Infinity;
  for (let i = 0; i < lons.length; i++) {
    const d = km(lon, lat, lons[i]!, lats[i]!);
    if (d < bestKm) [best, bestKm] = [i, d];
  }
  return best;
}

const indexOf = (points: [number, number][]) => {
  const index = new KDBush(points.length);
  for (const [x, y] of points) index.add(x, y);
  index.finish();
  return { index, lons: points.map((p) => p[0]), lats: points.map((p) => p[1]) };
};

describe('the nearest point of an index', () => {
  it('is the nearest place of the catalog, as a scan of every place finds, over land, sea, poles and the antimeridian', () => {
    const catalog = loadCatalog(defaultCatalogDir());
    const K = catalog.kinds.get(catalog.kinds.fallback);
    // Deterministic positions everywhere, and beside places (where a layer's features are).
    const anywhere = Array.from({ length: 300 }, (_, i) => [((i * 97.3) % 360) - 180, ((i * 41.7) % 178) - 89] as [number, number]);
    const beside = Array.from({ length: 300 }, (_, i) => {
      const p = (i * 7919) % K.size;
      return [K.lon[p]! + (((i * 13) % 21) - 10) * 0.01, K.lat[p]! + (((i * 17) % 21) - 10) * 0.01] as [number, number];
    });
    const edges: [number, number][] = [[179.9, -16.5], [-179.95, 65.5], [0, 89.5], [12, -88], [-30, 0], [150, -45]];
    for (const [lon, lat] of [...anywhere, ...beside, ...edges]) {
      const got = nearestPoint(K.index, lon, lat);
      const want = byScan(K.lon, K.lat, lon, lat);
      // The same place, or one exactly as far (two places on one spot).
      if (got !== want) expect(km(lon, lat, K.lon[got]!, K.lat[got]!)).toBeCloseTo(km(lon, lat, K.lon[want]!, K.lat[want]!), 9);
    }
  });

  it('finds a nearer point across the splits of the tree, and across the antimeridian', () => {
    // At 60°N: one point to the north-east, about 70 km away, another due east, about 53 km away.
    const lat = 60;
    const corner: [number, number] = [0.9, 60.44];
    const outside: [number, number] = [0.95, 60];
    expect(km(0, lat, ...corner)).toBeGreaterThan(65);
    expect(km(0, lat, ...outside)).toBeLessThan(55);
    const { index, lons, lats } = indexOf([corner, outside, [10, 10]]);
    expect(byScan(lons, lats, 0, lat)).toBe(1);
    expect(nearestPoint(index, 0, lat)).toBe(1);
    const near = indexOf([corner, outside, [0.1, 60.1]]);
    expect(nearestPoint(near.index, 0, lat)).toBe(2);
    // Across the antimeridian.
    const across = indexOf([[-179.9, 0], [179.0, 0]]);
    expect(nearestPoint(across.index, 179.95, 0)).toBe(0);
  });
});
