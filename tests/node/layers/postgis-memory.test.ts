import v8 from 'node:v8';
import vm from 'node:vm';
import * as turf from '@turf/turf';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LayerInfo, LayerStore } from '../../../electron/local-service/layers/store/layer-store';
import { openPostgisLayerStore } from '../../../electron/local-service/layers/store/postgis-layer-store';
import type { LayerFeature } from '../../../electron/local-service/layers/types';
import { startPgCluster, type PgCluster } from '../../support/pg-cluster';

/**
 * Memory on the PostGIS path does not grow with the layer: a large point layer is imported in
 * batches and queried while the process's RSS is sampled. After the first quarter of the import
 * (the heap, driver and pool warmed up) RSS stays flat through the rest, the index build and the
 * queries, where holding the remaining features as objects would take hundreds of bytes each.
 * FIELDLENS_RSS_FEATURES sets the size (300,000 here; `npm run bench:postgis` runs 5 million).
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
  pool = new pg.Pool({ connectionString: await cluster.createDatabase(), max: 8 });
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
});
