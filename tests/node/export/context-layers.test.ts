import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../../../electron/ground/logger';
import { exportContextLayers } from '../../../electron/root/export-context';
import { packLayers } from '../../../electron/root/pack-layers';
import type { ExportLayer } from '../../../electron/export/types';
import { computeBody, openSide } from '../../support/pack-fixture';

const dir = mkdtempSync(join(tmpdir(), 'fieldlens-context-'));
const side = openSide(join(dir, 'data'));
afterAll(() => {
  side.close();
  rmSync(dir, { recursive: true, force: true });
});

const CSV = 'name,lat,lon\nNorth gate,50.45,10.45\nSouth gate,50.55,10.55\n';
const meta = (query: string, uploads: unknown[] = []) => ({ profileId: 'local', request: { query }, startedAt: 1, finishedAt: 2, uploads });
const store = (query: string, points: [number, number][], uploads: unknown[] = []) => {
  const body = computeBody(query, points);
  return side.cache.storeCompute(meta(query, uploads) as never, body, Buffer.from(JSON.stringify(body)));
};
// The entry spans 10.4-10.6 E, 50.4-50.6 N; asked with a CSV of two sites.
const withUpload = store('sites near the river', [[10.4, 50.4], [10.6, 50.6]], [
  { field: 'files', name: 'sites.csv', contentType: 'text/csv', content: Buffer.from(CSV) },
]);
const far = store('schools in Prague', [[14.4, 50.1]]);
const w = side.store.create({ name: 'roads', sourceFile: '/data/roads.geojson', format: 'geojson', licence: null, sourceText: 'roads.geojson' });
w.add([
  { sourceId: 'stop', geometry: { type: 'Point', coordinates: [10.5, 50.5] }, properties: { highway: 'bus_stop', name: 'Dom' } },
  { sourceId: 'far', geometry: { type: 'Point', coordinates: [12.5, 50.5] }, properties: { highway: 'bus_stop', name: 'Far' } },
  { sourceId: 'road', geometry: { type: 'LineString', coordinates: [[10.5, 50.5], [11.5, 50.5]] }, properties: { highway: 'primary' } },
]);
side.layers.announce({ type: 'added', layer: w.commit([]) });

const context = exportContextLayers(side.cache, () => packLayers(side.store, side.layers), createMemoryLogger());
const features = (l: ExportLayer) => [...(l.features as Iterable<{ id: string; geometry: { coordinates: unknown }; properties: { name: string } }>)];

describe('what a QGIS project holds beside the entries', () => {
  it('adds the entry’s uploaded file and the data layer clipped to the entry’s extent', async () => {
    const layers = await context([String(withUpload)]);
    expect(layers.map((l) => [l.name, l.count, l.colour])).toEqual([
      ['sites.csv', 2, '#8c564b'],
      ['Layer roads', 2, '#5b6770'],
    ]);
    expect(features(layers[0]!).map((f) => [f.properties.name, f.geometry.coordinates])).toEqual([
      ['North gate', [10.45, 50.45]],
      ['South gate', [10.55, 50.55]],
    ]);
    const roads = features(layers[1]!);
    expect(roads.map((f) => f.id).sort()).toEqual(['road', 'stop']);
    // The road runs on to 11.5 E; the entry's extent ends at 10.6 E.
    const road = roads.find((f) => f.id === 'road')!.geometry.coordinates as number[][];
    expect(Math.max(...road.map((p) => p[0]!))).toBeCloseTo(10.6, 9);
  });

  it('adds nothing for an entry without uploads far from every data layer', async () => {
    expect(await context([String(far)])).toEqual([]);
  });
});
