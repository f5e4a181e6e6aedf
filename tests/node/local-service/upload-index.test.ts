import { afterAll, describe, expect, it } from 'vitest';
import KDBush from 'kdbush';
import { defaultCatalogDir, LARGE_LAYER, loadCatalog } from '../../../electron/local-service/catalog/catalog';
import { createPointIndexer, type PointIndexer } from '../../../electron/local-service/catalog/index-worker';
import { answerPlan } from '../../../electron/local-service/http/compute-layers';
import { parseQuery } from '../../../electron/local-service/query/parse';
import { createSlicer, type UploadFeature } from '../../../electron/local-service/uploads';
import { UploadSet } from '../../../electron/local-service/upload/set';

let seed = 5;
const rand = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;

function sites(n: number, file: string): UploadFeature[] {
  return Array.from({ length: n }, (_, i) => {
    const lon = rand() * 40 - 10;
    const lat = rand() * 30 + 35;
    return { id: String(i), file, name: `s${i}`, address: '', geometry: { type: 'Point', coordinates: [lon, lat] }, lon, lat, country: '', attributes: {} };
  });
}

const rad = Math.PI / 180;
const km = (f: UploadFeature, lon0: number, lat0: number) => {
  const h = Math.sin(((f.lat - lat0) * rad) / 2) ** 2 + Math.cos(f.lat * rad) * Math.cos(lat0 * rad) * Math.sin(((f.lon - lon0) * rad) / 2) ** 2;
  return 2 * 6371 * Math.asin(Math.sqrt(h));
};

describe('the uploads\' point index', () => {
  const catalog = loadCatalog(defaultCatalogDir());
  const real = createPointIndexer((e) => {
    throw e;
  });
  let builds = 0;
  const indexer: PointIndexer = {
    build: (lon, lat) => {
      builds++;
      return real.build(lon, lat);
    },
    close: () => real.close(),
  };
  afterAll(() => indexer.close());
  // Two files, so their positions are gathered into one pair of arrays; past LARGE_LAYER, so the worker indexes them.
  const half = Math.ceil(LARGE_LAYER / 2) + 500;
  const rows = [...sites(half, 'a.csv'), ...sites(half, 'b.csv')];
  const ask = async (query: string) => {
    const uploads = UploadSet.concat([UploadSet.of(rows.slice(0, half)), UploadSet.of(rows.slice(half))]);
    const plan = parseQuery(query, { catalog, coordinates: [], fileNames: ['a.csv', 'b.csv'] });
    builds = 0;
    const answer = await answerPlan({ plan, catalog, now: new Date(), coordinates: [], uploads, cells: [], limit: 5, work: { slice: createSlicer(), indexer } });
    return { answer, builds };
  };

  it('is not built for a question without a spatial call', { timeout: 30_000 }, async () => {
    const { answer, builds } = await ask('my sites');
    expect(answer.matched).toBe(rows.length);
    expect(answer.features).toHaveLength(5);
    expect(builds).toBe(0);
  });

  it('is built once for a question with one, from shared positions, and finds what a scan of the rows finds', { timeout: 30_000 }, async () => {
    const { answer, builds } = await ask('my sites within 300 km of Paris');
    expect(builds).toBe(1);
    const paris = catalog.cityByName.get('paris')![0]!;
    const [lon0, lat0] = [catalog.cities.lon[paris]!, catalog.cities.lat[paris]!];
    // Radii of the earth differ a little between formulas: only rows clear of the edge count.
    expect(answer.matched).toBeGreaterThanOrEqual(rows.filter((f) => km(f, lon0, lat0) < 299).length);
    expect(answer.matched).toBeLessThanOrEqual(rows.filter((f) => km(f, lon0, lat0) < 301).length);
    expect(answer.matched).toBeGreaterThan(50);
  });

  it('reads shared positions in place: the index answers as one built from copies', async () => {
    const uploads = UploadSet.concat([UploadSet.of(rows.slice(0, half)), UploadSet.of(rows.slice(half))]);
    const { lon, lat } = uploads.positions();
    expect(lon.buffer).toBeInstanceOf(SharedArrayBuffer);
    const index = await indexer.build(lon, lat);
    const here = new KDBush(rows.length);
    for (const f of rows) here.add(f.lon, f.lat);
    here.finish();
    const box = [0, 40, 10, 50] as const;
    expect(index.range(...box).sort((a, b) => a - b)).toEqual(here.range(...box).sort((a, b) => a - b));
    // The shared arrays are still the set's, unchanged.
    expect(lon.length).toBe(rows.length);
    expect(lon[half]).toBe(rows[half]!.lon);
  });
});
