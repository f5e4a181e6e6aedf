import { describe, expect, it } from 'vitest';
import { defaultCatalogDir, LARGE_LAYER, loadCatalog, pointLayer, pointLayerOf, pointList } from '../../../electron/local-service/catalog/catalog';
import { createPointIndexer } from '../../../electron/local-service/catalog/index-worker';
import { execute, sortByDistance, type Item } from '../../../electron/local-service/query/execute';
import { parseQuery } from '../../../electron/local-service/query/parse';
import { packItems, packItemsSliced, unpackItems } from '../../../electron/local-service/store';
import { createSlicer, type UploadFeature } from '../../../electron/local-service/uploads';
import { UploadSet } from '../../../electron/local-service/upload/set';

let seed = 7;
const rand = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;

function points(n: number) {
  const codes = ['FR', 'DE', 'ES', ''];
  return Array.from({ length: n }, () => ({
    lon: rand() * 360 - 180,
    lat: rand() * 170 - 85,
    country: codes[Math.floor(rand() * codes.length)]!,
  }));
}

/** Counts event-loop turns taken while `work` runs: zero means it held the thread throughout. */
async function turnsDuring<T>(work: () => Promise<T>): Promise<{ value: T; turns: number }> {
  let turns = 0;
  let on = true;
  const tick = () => {
    if (!on) return;
    turns++;
    setImmediate(tick);
  };
  setImmediate(tick);
  const value = await work();
  on = false;
  return { value, turns };
}

describe('large point layers', () => {
  it('indexes 100,000 points on the worker: box searches match a scan of the points, and other work runs meanwhile', async () => {
    const pts = points(100_000);
    const indexer = createPointIndexer((e) => {
      throw e;
    });
    try {
      const { value: L, turns } = await turnsDuring(() => pointLayerOf('upload', pointList(pts), { slice: createSlicer(2), indexer }));
      expect(turns).toBeGreaterThan(0);
      expect(L.size).toBe(pts.length);
      for (const [w, s, e, n] of [
        [2, 45, 8, 50],
        [-180, -90, -170, 90],
        [100, -10, 101, -9],
      ] as const) {
        const want = pts.flatMap((p, i) => (p.lon >= w && p.lon <= e && p.lat >= s && p.lat <= n ? [i] : []));
        expect(L.index.range(w, s, e, n).sort((a, b) => a - b)).toEqual(want);
      }
      for (const code of ['FR', '']) expect(L.byCountry.get(code)).toEqual(pts.flatMap((p, i) => (p.country === code ? [i] : [])));
      expect(Array.from(L.byPopulation.subarray(0, 5))).toEqual([0, 1, 2, 3, 4]);
    } finally {
      await indexer.close();
    }
  });

  it('builds small layers at once, without the worker', async () => {
    const pts = points(LARGE_LAYER - 1);
    const indexer = {
      build: () => Promise.reject(new Error('the worker was asked')),
      close: async () => {},
    };
    const L = await pointLayerOf('upload', pointList(pts), { slice: createSlicer(), indexer });
    const want = pts.flatMap((p, i) => (p.lon >= 0 && p.lon <= 10 && p.lat >= 0 && p.lat <= 10 ? [i] : []));
    expect(L.index.range(0, 0, 10, 10).sort((a, b) => a - b)).toEqual(want);
  });

  it('still indexes on this thread once the worker is gone', async () => {
    const indexer = createPointIndexer(() => {});
    await indexer.close();
    const lon = Float64Array.from([1, 2, 3]);
    const lat = Float64Array.from([1, 2, 3]);
    const index = await indexer.build(lon, lat);
    expect(index.range(1.5, 1.5, 3, 3).sort()).toEqual([1, 2]);
  });
});

describe('large result sets', () => {
  it('sorts item numbers past 2^18 by exact distance, ties by item number', () => {
    const items: Item[] = Array.from({ length: 300_000 }, (_, j) => ({
      k: 'upload' as const,
      i: 299_999 - j,
      // Distances that differ by less than a millimetre, exact ties, and items without one.
      ...(rand() < 0.02 ? {} : { d: Math.floor(rand() * 5000) * 1000 + Math.floor(rand() * 4) * 0.0003 }),
    }));
    const want = [...items].sort((a, b) => (a.d ?? Infinity) - (b.d ?? Infinity) || a.i - b.i);
    sortByDistance(items);
    expect(items).toEqual(want);
  });

  it('packs 100,000 items in slices into the same bytes as at once', async () => {
    const items: Item[] = Array.from({ length: 100_000 }, (_, j) => ({ k: 'upload' as const, i: j, d: j * 1.5 }));
    items[7]!.a = { count: 3 };
    const { value, turns } = await turnsDuring(() => packItemsSliced(items, createSlicer(0)));
    expect(turns).toBeGreaterThan(0);
    const once = packItems(items);
    expect(value.bin.equals(once.bin)).toBe(true);
    expect(value.figures).toBe(once.figures);
    expect(unpackItems(value.bin, value.figures)).toEqual(items);
  });
});

describe('large queries', () => {
  it('filters 300,000 uploads in slices, with the answer of the unsliced path and a haversine count', { timeout: 60_000 }, async () => {
    const catalog = loadCatalog(defaultCatalogDir());
    const features: UploadFeature[] = points(300_000).map((p, i) => ({
      id: String(i),
      file: 'sites.csv',
      name: `s${i}`,
      address: '',
      geometry: { type: 'Point', coordinates: [p.lon, p.lat] },
      ...p,
      attributes: {},
    }));
    const plan = () => parseQuery('my sites within 2000 km of Paris', { catalog, coordinates: [], fileNames: ['sites.csv'] });
    const layer = pointLayer('upload', features.map((f) => f.lon), features.map((f) => f.lat), features.map((f) => f.country));
    const input = { catalog, uploads: { features: UploadSet.of(features), layer }, coordinates: [], h3Cells: [] };
    const once = await execute({ ...input, plan: plan() });
    const indexer = createPointIndexer((e) => {
      throw e;
    });
    try {
      const { value: sliced, turns } = await turnsDuring(() => execute({ ...input, plan: plan(), work: { slice: createSlicer(2), indexer } }));
      expect(turns).toBeGreaterThan(0);
      expect(sliced.items).toEqual(once.items);
    } finally {
      await indexer.close();
    }
    const paris = catalog.cityByName.get('paris')![0]!;
    const [lon0, lat0] = [catalog.cities.lon[paris]!, catalog.cities.lat[paris]!];
    const rad = Math.PI / 180;
    const km = (f: UploadFeature) => {
      const h = Math.sin(((f.lat - lat0) * rad) / 2) ** 2 + Math.cos(f.lat * rad) * Math.cos(lat0 * rad) * Math.sin(((f.lon - lon0) * rad) / 2) ** 2;
      return 2 * 6371 * Math.asin(Math.sqrt(h));
    };
    // Radii of the earth differ by a few km between formulas: only points clear of the edge count.
    expect(once.items.length).toBeGreaterThanOrEqual(features.filter((f) => km(f) < 1990).length);
    expect(once.items.length).toBeLessThanOrEqual(features.filter((f) => km(f) < 2010).length);
    expect(once.items.length).toBeGreaterThan(1000);
  });
});
