import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLayerImport } from '../../../electron/local-service/layers/import-job';
import type { LayerInfo, LayerStore } from '../../../electron/local-service/layers/store/layer-store';
import { exactlyAt, METRE_RADII, TURF_RADIUS_M } from '../../support/boundary';
import { bothLayerBackends } from '../../support/layer-backends';

/**
 * A layer store's `within` keeps a feature exactly at the radius, on each backend's own sphere:
 * turf's mean radius for the embedded store, PostGIS's (2a + b) / 3 of WGS 84 for geography on the
 * sphere. The point is placed by tests/support/boundary.ts, not by the store.
 */
const WGS84_A = 6378137;
const WGS84_B = 6356752.314245179;
const POSTGIS_SPHERE_M = (2 * WGS84_A + WGS84_B) / 3;
const LON = 4.5;

const { place, backends } = bothLayerBackends('fieldlens-within-edge-');
const SPHERE = { 'embedded SQLite': TURF_RADIUS_M, PostGIS: POSTGIS_SPHERE_M };
const BACKENDS = backends.map((b) => ({ ...b, sphere: SPHERE[b.name] }));

describe.each(BACKENDS)('within on $name', ({ name, sphere, open }) => {
  const edge = exactlyAt(sphere, METRE_RADII, 1e-6);
  let store: LayerStore;
  let layer: LayerInfo;
  beforeAll(async () => {
    store = await open();
    const file = join(place.dir, `${name.replace(/\W/g, '')}.geojson`);
    const point = (n: string, lat: number) => ({ type: 'Feature', properties: { name: n }, geometry: { type: 'Point', coordinates: [LON, lat] } });
    writeFileSync(file, JSON.stringify({ type: 'FeatureCollection', features: [point('edge', edge.lat), point('inside', edge.lat / 2), point('beyond', edge.lat * 2)] }));
    layer = await startLayerImport({ store, file, tempDir: join(place.dir, 'tmp') }).done;
  });
  afterAll(() => store?.close());

  it('keeps the feature exactly at the radius, nearest first, and drops it a millimetre shorter', async () => {
    expect(sphere * ((edge.lat * Math.PI) / 180)).toBeCloseTo(edge.r, 6);
    const at = await store.within(layer.id, [LON, 0], edge.r);
    expect(at.map((f) => f.tags['name'])).toEqual(['inside', 'edge']);
    expect(at[1]!.distanceMeters).toBeCloseTo(edge.r, 6);
    const short = await store.within(layer.id, [LON, 0], edge.r - 0.001);
    expect(short.map((f) => f.tags['name'])).toEqual(['inside']);
  });
});
