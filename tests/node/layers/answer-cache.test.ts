import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as turf from '@turf/turf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cachingLayerStore } from '../../../electron/local-service/layers/store/answer-cache';
import { asAsyncLayerStore } from '../../../electron/local-service/layers/store/async-layer-store';
import type { LayerInfo, LayerStore } from '../../../electron/local-service/layers/store/layer-store';
import { openSqliteLayerStore } from '../../../electron/local-service/layers/store/sqlite-layer-store';
import type { LayerFeature } from '../../../electron/local-service/layers/types';

let dir: string;
let inner: LayerStore;
let layer: LayerInfo;
// 400 points on a 20 x 20 grid, about 111 m apart north-south; every seventh a pharmacy.
const features: LayerFeature[] = Array.from({ length: 400 }, (_, i) => ({
  sourceId: String(i),
  geometry: { type: 'Point', coordinates: [8 + (i % 20) * 0.001, 47 + Math.floor(i / 20) * 0.001] },
  properties: { amenity: i % 7 === 0 ? 'pharmacy' : 'cafe', name: `F${i}` },
}));
const pharmacies = [[{ key: 'amenity', values: ['pharmacy'] }]];
const at = [8.01, 47.01];
/** Names within `metres` of `at` passing the test, by a haversine scan of the source features. */
const namesWithin = (metres: number, amenity?: string) =>
  features
    .filter((f) => (!amenity || f.properties['amenity'] === amenity) && turf.distance(at, (f.geometry as { coordinates: number[] }).coordinates, { units: 'meters' }) <= metres)
    .map((f) => f.properties['name'])
    .sort();

/** The inner store with a count of the distance questions that reach it. */
function counted(store: LayerStore) {
  const calls = { within: 0, nearest: 0 };
  const wrapped: LayerStore = {
    ...store,
    within: (...a) => (calls.within++, store.within(...a)),
    nearest: (...a) => (calls.nearest++, store.nearest(...a)),
    remove: (id) => store.remove(id),
  };
  return { wrapped, calls };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fieldlens-answer-cache-'));
  inner = asAsyncLayerStore(openSqliteLayerStore({ dataDir: dir }));
  const w = await inner.create({ name: 'grid', sourceFile: '/grid.geojson', format: 'geojson', licence: null, sourceText: 'grid' });
  await w.add(features);
  layer = await w.commit([]);
});
afterAll(async () => {
  await inner.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('answers of distance questions kept in memory', () => {
  it('asks the store once for the same within or nearest question, and gives the same answer each time', async () => {
    const { wrapped, calls } = counted(inner);
    const store = cachingLayerStore(wrapped);
    const first = await store.within(layer.id, at, 300, { match: pharmacies });
    expect(first.map((f) => f.tags['name']).sort()).toEqual(namesWithin(300, 'pharmacy'));
    const again = await store.within(layer.id, [...at], 300, { match: [[{ key: 'amenity', values: ['pharmacy'] }]] });
    expect(again).toEqual(first);
    // Each caller has features of its own: changing one changes no later answer.
    expect(again).not.toBe(first);
    expect(again[0]).not.toBe(first[0]);
    again[0]!.tags['name'] = 'changed';
    again.length = 0;
    expect((await store.within(layer.id, at, 300, { match: pharmacies })).map((f) => f.tags['name']).sort()).toEqual(namesWithin(300, 'pharmacy'));
    expect(calls.within).toBe(1);
    // Another distance, point, test or limit is another question.
    expect((await store.within(layer.id, at, 200, { match: pharmacies })).map((f) => f.tags['name']).sort()).toEqual(namesWithin(200, 'pharmacy'));
    expect((await store.within(layer.id, at, 300)).map((f) => f.tags['name']).sort()).toEqual(namesWithin(300));
    expect(await store.within(layer.id, at, 300, { match: pharmacies, limit: 2 })).toHaveLength(2);
    expect(await store.within(layer.id, [8.011, 47.01], 300, { match: pharmacies })).not.toEqual(first);
    expect(calls.within).toBe(5);
    const near = await store.nearest(layer.id, at, 3, { match: pharmacies });
    expect(await store.nearest(layer.id, at, 3, { match: pharmacies })).toEqual(near);
    expect(calls.nearest).toBe(1);
    expect(store.size.answers).toBe(6);
  });

  it('forgets everything on a layer change, and on a removal through it', async () => {
    const { wrapped, calls } = counted(inner);
    const store = cachingLayerStore(wrapped);
    await store.within(layer.id, at, 300);
    store.forget();
    expect(store.size).toEqual({ answers: 0, features: 0 });
    await store.within(layer.id, at, 300);
    expect(calls.within).toBe(2);
    // A question out while the change is heard of is answered but not kept.
    const out = store.within(layer.id, at, 250);
    store.forget();
    expect((await out).map((f) => f.tags['name']).sort()).toEqual(namesWithin(250));
    expect(store.size.answers).toBe(0);

    const w = await store.create({ name: 'gone', sourceFile: '/gone.geojson', format: 'geojson', licence: null, sourceText: 'gone' });
    await w.add(features.slice(0, 10));
    const gone = await w.commit([]);
    expect(await store.within(gone.id, at, 5000)).toHaveLength(10);
    expect(await store.remove(gone.id)).toBe(true);
    // Not answered from memory: the store says the layer is not there.
    await expect(store.within(gone.id, at, 5000)).rejects.toThrow(/no layer/);
  });

  it('keeps at most the features it is given, the least recently used going first, and no answer past a quarter of them', async () => {
    const { wrapped, calls } = counted(inner);
    // Room for 12 features; answers of more than 3 are not kept.
    const store = cachingLayerStore(wrapped, 12);
    // Within 80, 90, 100 and 110 m: the same 3 points each (a haversine count); 50 m: 1; 115 m: 5.
    expect([80, 90, 100, 110, 50, 115].map((r) => namesWithin(r).length)).toEqual([3, 3, 3, 3, 1, 5]);
    for (const r of [80, 90, 100, 110]) await store.within(layer.id, at, r);
    expect(store.size).toEqual({ answers: 4, features: 12 });
    // 80 m used again is the most recent; 50 m then pushes out the least recently used, 90 m.
    await store.within(layer.id, at, 80);
    await store.within(layer.id, at, 50);
    expect(store.size).toEqual({ answers: 4, features: 10 });
    expect(calls.within).toBe(5);
    for (const r of [80, 100, 110, 50]) await store.within(layer.id, at, r);
    expect(calls.within).toBe(5);
    expect((await store.within(layer.id, at, 90)).map((f) => f.tags['name']).sort()).toEqual(namesWithin(90));
    expect(calls.within).toBe(6);
    // Five features: answered, not kept.
    expect((await store.within(layer.id, at, 115)).map((f) => f.tags['name']).sort()).toEqual(namesWithin(115));
    await store.within(layer.id, at, 115);
    expect(calls.within).toBe(8);
  });
});
