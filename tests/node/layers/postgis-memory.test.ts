import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import * as turf from '@turf/turf';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../../../electron/ground/logger';
import { defaultCatalogDir, loadCatalog } from '../../../electron/local-service/catalog/catalog';
import type { LayerInfo, LayerStore } from '../../../electron/local-service/layers/store/layer-store';
import { openPostgisLayerStore } from '../../../electron/local-service/layers/store/postgis-layer-store';
import type { LayerFeature } from '../../../electron/local-service/layers/types';
import { createLocalService, type LocalService } from '../../../electron/local-service/server';
import { startPgCluster, type PgCluster } from '../../support/pg-cluster';

/**
 * Memory on the PostGIS path does not grow with the layer: a large point layer is imported in
 * batches and queried while the process's RSS is sampled. After the first quarter of the import
 * (the heap, driver and pool warmed up) RSS stays flat through the rest, the index build and the
 * queries, where holding the remaining features as objects would take hundreds of bytes each.
 * FIELDLENS_RSS_FEATURES sets the size (300,000 in `npm test`; 5,000,000 is the size the local
 * service README reports; `npm run bench:postgis` prints the peak RSS of a 10-million import).
 */
const N = Number(process.env['FIELDLENS_RSS_FEATURES'] ?? 300_000);
/**
 * RSS growth allowed after the warm-up (driver buffers, allocator slack): less than the rest of
 * the features would take held at even 100 bytes each (as objects they take several times that).
 */
const FLAT = 16 * 1024 * 1024;
const BATCH = 10_000;
/** Points on a grid of about 110 m over 1,000 x N/1,000 cells from (5, 45). */
const pointAt = (i: number): [number, number] => [5 + (i % 1000) * 0.001, 45 + Math.floor(i / 1000) * 0.001];
const MB = 1024 * 1024;
// A full collection before each sample: RSS then shows what is live, not garbage V8 has not
// yet collected (which alone swings RSS by tens of MB between samples).
v8.setFlagsFromString('--expose-gc');
const collect = vm.runInNewContext('gc') as () => void;

let cluster: PgCluster;
let url: string;
let pool: pg.Pool;
let store: LayerStore;
let peak = 0;
let sampler: NodeJS.Timeout;
const sample = () => {
  collect();
  peak = Math.max(peak, process.memoryUsage().rss);
};

beforeAll(async () => {
  cluster = startPgCluster();
  url = await cluster.createDatabase();
  pool = new pg.Pool({ connectionString: url, max: 8 });
  store = await openPostgisLayerStore({ pool });
});
afterAll(async () => {
  clearInterval(sampler);
  await pool?.end();
  cluster?.stop();
});

describe(`a ${N.toLocaleString('en')}-point layer on PostGIS`, () => {
  let layer: LayerInfo;
  let warm = 0;

  it('imports in batches with a flat RSS', { timeout: 600_000 }, async () => {
    expect(N * 0.75 * 100, 'the layer is large enough for the bound to tell').toBeGreaterThan(FLAT);
    sampler = setInterval(sample, 500);
    const base = process.memoryUsage().rss;
    const w = await store.create({ name: 'grid', sourceFile: 'grid', format: 'geojson', licence: null, sourceText: 'grid' });
    for (let at = 0; at < N; at += BATCH) {
      const batch: LayerFeature[] = [];
      for (let i = at; i < Math.min(N, at + BATCH); i++)
        batch.push({ sourceId: `n/${i}`, geometry: { type: 'Point', coordinates: pointAt(i) }, properties: { name: `point ${i}`, amenity: 'bench' } });
      await w.add(batch);
      if ((at / BATCH) % 5 === 0) sample();
      if (at + BATCH >= N / 4 && !warm) warm = peak;
    }
    layer = await w.commit([]);
    sample();
    expect(layer.featureCount).toBe(N);
    process.stdout.write(`import of ${N} points: RSS ${Math.round(base / MB)} MB, ${Math.round(warm / MB)} MB after a quarter, peak ${Math.round(peak / MB)} MB\n`);
    // Streamed, the import holds one batch of features and its COPY text at a time.
    expect(peak - warm).toBeLessThan(FLAT);
  });

  it('answers within, nearest and box queries and streams the whole layer with the same flat RSS and right answers', { timeout: 300_000 }, async () => {
    for (let q = 0; q < 30; q++) {
      const i = Math.floor(((q * 7919) % 997) / 997 * N);
      const p = pointAt(i);
      const near = await store.nearest(layer.id, p, 10);
      expect(near[0]!.sourceId).toBe(`n/${i}`);
      const within = await store.within(layer.id, p, 250);
      // Counted here from the grid: every cell point within 250 m of p by the haversine formula.
      const [x, y] = [i % 1000, Math.floor(i / 1000)];
      let want = 0;
      for (let dx = -4; dx <= 4; dx++)
        for (let dy = -4; dy <= 4; dy++) {
          const [cx, cy] = [x + dx, y + dy];
          if (cx < 0 || cx >= 1000 || cy < 0 || cy * 1000 + cx >= N) continue;
          if (turf.distance(p, pointAt(cy * 1000 + cx), { units: 'meters' }) <= 250) want++;
        }
      expect(within).toHaveLength(want);
      expect(await store.inBBox(layer.id, [p[0] - 0.01, p[1] - 0.01, p[0] + 0.01, p[1] + 0.01], { limit: 50 })).toHaveLength(50);
      sample();
    }
    // The whole layer through a cursor: every feature once, in fid order, a page held at a time.
    let count = 0;
    let last = 0;
    let ordered = true;
    for await (const page of store.scan(layer.id)) {
      for (const f of page) {
        ordered &&= f.fid > last;
        last = f.fid;
        if (++count % 50_000 === 0) sample();
      }
    }
    expect(count).toBe(N);
    expect(ordered).toBe(true);
    process.stdout.write(`queries and a full scan: peak RSS ${Math.round(peak / MB)} MB\n`);
    expect(peak - warm).toBeLessThan(FLAT);
  });

  it('answers questions through the service (within, nearest, counts per district) with the same flat RSS and right answers', { timeout: 300_000 }, async () => {
    // Four districts splitting the grid between its rows and columns, so no point is on an edge.
    const rows = Math.ceil(N / 1000);
    const midLon = 5 + 499.5 * 0.001;
    const midLat = 45 + (Math.floor(rows / 2) - 0.5) * 0.001;
    const [w, s, e, n] = [4.99, 44.99, 6.01, 45 + rows * 0.001 + 0.01];
    const quads = [
      ['South-west', [w, s, midLon, midLat]],
      ['South-east', [midLon, s, e, midLat]],
      ['North-west', [w, midLat, midLon, n]],
      ['North-east', [midLon, midLat, e, n]],
    ] as const;
    const dw = await store.create({ name: 'districts', sourceFile: 'districts', format: 'geojson', licence: null, sourceText: 'districts' });
    await dw.add(quads.map(([name, b]) => ({ sourceId: name, geometry: turf.bboxPolygon([...b]).geometry, properties: { name } })));
    await dw.commit([]);
    // Counted here from the grid's own arithmetic.
    const want = new Map<string, number>(quads.map(([name]) => [name, 0]));
    for (let i = 0; i < N; i++) {
      const [x, y] = pointAt(i);
      const name = `${y < midLat ? 'South' : 'North'}-${x < midLon ? 'west' : 'east'}`;
      want.set(name, want.get(name)! + 1);
    }

    const service: LocalService = createLocalService({
      dataDir: mkdtempSync(join(tmpdir(), 'fieldlens-rss-')),
      keys: { bearer: 'memory-test-key-0001', search: 'memory-test-key-0002' },
      logger: createMemoryLogger(),
      clock: () => new Date(),
      catalog: loadCatalog(defaultCatalogDir()),
      database: url,
    });
    const { baseUrl } = await service.start();
    const ask = async (query: string, extra: Record<string, unknown> = {}) => {
      const res = await fetch(`${baseUrl}/v1/compute`, {
        method: 'POST',
        headers: { authorization: 'Bearer memory-test-key-0001', 'content-type': 'application/json' },
        body: JSON.stringify({ query, limit: 100, ...extra }),
      });
      expect(res.status, query).toBe(200);
      return (await res.json()) as { results: { numberMatched: number; features: { properties: { name: string; distance_meters: number; attributes: Record<string, unknown> } }[] }; warnings: { code: string; message: string }[] };
    };
    try {
      // Warm the service (vocabulary, catalog, connections, each question's code) before the bound is measured from here.
      for (let q = 0; q < 3; q++) {
        const me = { coordinates: [{ name: 'me', latitude: 45.05 + q * 0.01, longitude: 5.2 }] };
        await ask('benches per district');
        await ask('benches within 250 m of me', me);
        await ask('the 3 nearest benches to me', me);
      }
      // From here on: the peak of this test alone.
      peak = 0;
      sample();
      const start = peak;
      for (let q = 0; q < 20; q++) {
        const i = Math.floor((((q * 7919) % 997) / 997) * N);
        const p = pointAt(i);
        const me = { coordinates: [{ name: 'me', latitude: p[1], longitude: p[0] }] };
        const [x, y] = [i % 1000, Math.floor(i / 1000)];
        let within = 0;
        for (let dx = -4; dx <= 4; dx++)
          for (let dy = -4; dy <= 4; dy++) {
            const [cx, cy] = [x + dx, y + dy];
            if (cx >= 0 && cx < 1000 && cy >= 0 && cy * 1000 + cx < N && turf.distance(p, pointAt(cy * 1000 + cx), { units: 'meters' }) <= 250) within++;
          }
        const near = await ask('benches within 250 m of me', me);
        expect(near.results.numberMatched).toBe(within);
        expect(near.results.features[0]!.properties.name).toBe(`point ${i}`);
        const three = await ask('the 3 nearest benches to me', me);
        expect(three.results.features.map((f) => f.properties.name)[0]).toBe(`point ${i}`);
        expect(three.results.features).toHaveLength(3);
        if (q % 5 === 0) {
          const per = await ask('benches per district');
          const got = new Map(per.results.features.map((f) => [f.properties.name, f.properties.attributes['count']]));
          expect(got).toEqual(want);
        }
        sample();
      }
      process.stdout.write(`questions through the service: peak RSS ${Math.round(peak / MB)} MB (${Math.round(start / MB)} MB after warm-up)\n`);
      // Counting a quarter of the layer per district and ranking within a radius hold no feature per feature of the layer.
      expect(peak - start).toBeLessThan(FLAT);

      // A box over the whole layer: what Node reads is bounded, and the answer says so.
      const all = await ask(`benches in bbox ${[w, s, e, n].join(',')}`);
      if (N > 100_000) {
        expect(all.results.numberMatched).toBe(100_000);
        expect(all.warnings.some((x) => x.code === 'ignored' && /more than 100,000 "benches" features of "grid" are in the box/.test(x.message))).toBe(true);
      } else expect(all.results.numberMatched).toBe(N);
    } finally {
      await service.close();
    }
  });
});
