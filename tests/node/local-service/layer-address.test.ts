import { describe, expect, it } from 'vitest';
import { defaultCatalogDir, loadCatalog } from '../../../electron/local-service/catalog/catalog';
import { layerAddress, NearPlaces } from '../../../electron/local-service/query/layers/address';

const catalog = loadCatalog(defaultCatalogDir());
const R = 6_371_008.8;
const rad = Math.PI / 180;
/** Great-circle metres (haversine), written here apart from the index's own. */
const metres = (lon1: number, lat1: number, lon2: number, lat2: number) =>
  2 * R * Math.asin(Math.sqrt(Math.sin(((lat2 - lat1) * rad) / 2) ** 2 + Math.cos(lat1 * rad) * Math.cos(lat2 * rad) * Math.sin(((lon2 - lon1) * rad) / 2) ** 2));

describe('the "near …" address of a layer feature', () => {
  const K = catalog.kinds.get(catalog.kinds.fallback);
  /** The nearest place of the fallback kind by looking at every one of them. */
  const nearestByScan = (lon: number, lat: number) => {
    let best = -1;
    let bestD = Infinity;
    for (let i = 0; i < K.size; i++) {
      const d = metres(lon, lat, K.lon[i]!, K.lat[i]!);
      if (d < bestD) [best, bestD] = [i, d];
    }
    const m = K.feature(best);
    return `near ${[m.name, m.address].filter(Boolean).join(', ')}`;
  };
  // Deterministic positions over land and sea, both hemispheres.
  const positions = Array.from({ length: 40 }, (_, i) => [((i * 97.3) % 360) - 180, ((i * 41.7) % 150) - 70] as [number, number]);

  it('names the nearest place, the same with the service memo as without, and the memo answers a position again', () => {
    const near = new NearPlaces(1000);
    for (const [lon, lat] of positions) {
      const want = nearestByScan(lon, lat);
      expect(layerAddress({}, lon, lat, catalog)).toBe(want);
      expect(layerAddress({}, lon, lat, catalog, near)).toBe(want);
      expect(near.get(`${lon},${lat}`)).toBe(want);
      expect(layerAddress({}, lon, lat, catalog, near)).toBe(want);
    }
    // OSM address tags come first, memo or not.
    expect(layerAddress({ 'addr:street': 'Rue Neuve', 'addr:housenumber': '3', 'addr:city': 'Lyon' }, ...positions[0]!, catalog, near)).toBe('3 Rue Neuve, Lyon');
  });

  it('keeps at most its size, dropping the oldest', () => {
    const near = new NearPlaces(10);
    for (const [lon, lat] of positions.slice(0, 25)) layerAddress({}, lon, lat, catalog, near);
    const kept = positions.slice(0, 25).filter(([lon, lat]) => near.get(`${lon},${lat}`) !== undefined);
    expect(kept).toEqual(positions.slice(15, 25));
  });
});
