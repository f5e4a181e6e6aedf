import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../../../electron/ground/logger';
import { latestBundleSha256 } from '../../../electron/fieldkit/evidence/service';
import { exportContextLayers, withEvidence } from '../../../electron/root/export-context';
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

describe('evidence hashes in an export', () => {
  it('gives each entry the SHA-256 of the newest bundle made from it, and none where none was made', async () => {
    const dataDir = join(dir, 'evidence-data');
    mkdirSync(join(dataDir, 'evidence'), { recursive: true });
    const older = Buffer.from('older bundle');
    const newer = Buffer.from('newer bundle');
    writeFileSync(join(dataDir, 'evidence', 'evidence-7-2026-03-01T10-00-00-000Z.zip'), older);
    writeFileSync(join(dataDir, 'evidence', 'evidence-7-2026-03-02T09-00-00-000Z.zip'), newer);
    writeFileSync(join(dataDir, 'evidence', 'evidence-17-2026-03-03T09-00-00-000Z.zip'), Buffer.from('another entry'));
    const prov = { queryText: 'q', kind: 'compute' as const, time: '2026-03-01T00:00:00Z', profileLabel: 'Local', baseUrl: '', searchBaseUrl: '' };
    const load = withEvidence(
      async ({ queryIds }) => queryIds.map((id) => ({ kind: 'compute' as const, name: id, features: [], provenance: prov })),
      (id) => latestBundleSha256(dataDir, id),
    );
    const layers = await load({ queryIds: ['7', '8'] });
    expect(layers.map((l) => l.provenance?.evidenceSha256 ?? null)).toEqual([createHash('sha256').update(newer).digest('hex'), null]);
    expect(latestBundleSha256(join(dir, 'no-such-folder'), 7)).toBeNull();
  });
});
