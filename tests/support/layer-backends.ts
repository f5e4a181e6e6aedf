import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { asAsyncLayerStore } from '../../electron/local-service/layers/store/async-layer-store';
import type { LayerStore } from '../../electron/local-service/layers/store/layer-store';
import { openPostgisLayerStore } from '../../electron/local-service/layers/store/postgis-layer-store';
import { openSqliteLayerStore } from '../../electron/local-service/layers/store/sqlite-layer-store';
import { startPgCluster, type PgCluster } from './pg-cluster';

export interface LayerBackend {
  name: 'embedded SQLite' | 'PostGIS';
  open: () => Promise<LayerStore>;
}

/**
 * For a test file that runs the same checks on both layer stores: a temporary folder and a
 * throwaway PostGIS database for the file (made before its tests, removed after), and the two
 * stores opened over them. `place.dir` is set once the folder exists.
 */
export function bothLayerBackends(prefix: string): { place: { dir: string }; backends: LayerBackend[] } {
  const place = { dir: '' };
  let cluster: PgCluster | undefined;
  let pool: pg.Pool | undefined;
  beforeAll(async () => {
    place.dir = mkdtempSync(join(tmpdir(), prefix));
    cluster = startPgCluster();
    pool = new pg.Pool({ connectionString: await cluster.createDatabase(), max: 4 });
  });
  afterAll(async () => {
    await pool?.end();
    cluster?.stop();
    rmSync(place.dir, { recursive: true, force: true });
  });
  return {
    place,
    backends: [
      { name: 'embedded SQLite', open: async () => asAsyncLayerStore(openSqliteLayerStore({ dataDir: join(place.dir, 'sqlite') })) },
      { name: 'PostGIS', open: () => openPostgisLayerStore({ pool: pool! }) },
    ],
  };
}
