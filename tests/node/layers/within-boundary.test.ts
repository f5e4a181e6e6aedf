import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLayerImport } from '../../../electron/local-service/layers/import-job';
import { asAsyncLayerStore } from '../../../electron/local-service/layers/store/async-layer-store';
import type { LayerInfo, LayerStore } from '../../../electron/local-service/layers/store/layer-store';
import { openPostgisLayerStore } from '../../../electron/local-service/layers/store/postgis-layer-store';
import { openSqliteLayerStore } from '../../../electron/local-service/layers/store/sqlite-layer-store';
import { exactlyAt, METRE_RADII, TURF_RADIUS_M } from '../../support/boundary';
import { startPgCluster, type PgCluster } from '../../support/pg-cluster';

/**
 * A layer store's `within` keeps a feature exactly at the radius, on each backend's own sphere:
 * turf's mean radius for the embedded store, PostGIS's (2a + b) / 3 of WGS 84 for geography on the
 * sphere. The point is placed by tests/support/boundary.ts, not by the store.
 */
const WGS84_A = 6378137;
const WGS84_B = 6356752.314245179;
const POSTGIS_SPHERE_M = (2 * WGS84_A + WGS84_B) / 3;
const LON = 4.5;

let dir: string;
let cluster: PgCluster;
let pool: pg.Pool;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fieldlens-within-edge-'));
  cluster = startPgCluster();
  pool = new pg.Pool({ connectionString: await cluster.createDatabase(), max: 2 });
});
afterAll(async () => {
  await pool?.end();
  cluster?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const BACKENDS = [
  { name: 'embedded SQLite', sphere: TURF_RADIUS_M, open: async (): Promise<LayerStore> => asAsyncLayerStore(openSqliteLayerStore({ dataDir: join(dir, 'sqlite') })) },
  { name: 'PostGIS', sphere: POSTGIS_SPHERE_M, open: (): Promise<LayerStore> => openPostgisLayerStore({ pool }) },
];

describe.each(BACKENDS)('within on $name', ({ name, sphere, open }) => {
  const edge = exactlyAt(sphere, METRE_RADII, 1e-6);
  let store: LayerStore;
  let layer: LayerInfo;
  beforeAll(async () => {
    store = await open();
    const file = join(dir, `${name.replace(/\W/g, '')}.geojson`);
    const point = (n: string, lat: number) => ({ type: 'Feature', properties: { name: n }, geometry: { type: 'Point', coordinates: [LON, lat] } });
    writeFileSync(file, JSON.stringify({ type: 'FeatureCollection', features: [point('edge', edge.lat), point('inside', edge.lat / 2), point('beyond', edge.lat * 2)] }));
    layer = await startLayerImport({ store, file, tempDir: join(dir, 'tmp') }).done;
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
