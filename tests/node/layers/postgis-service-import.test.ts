import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../../../electron/ground/logger';
import { defaultCatalogDir, loadCatalog } from '../../../electron/local-service/catalog/catalog';
import type { LayerInfo } from '../../../electron/local-service/layers/store/layer-store';
import { DEFAULT_POOL_SIZE } from '../../../electron/local-service/pg/database';
import { createLocalService, type LocalService } from '../../../electron/local-service/server';
import { startPgCluster, type PgCluster } from '../../support/pg-cluster';
import { syntheticFeatures, writeSyntheticGeoJson } from '../../support/synthetic-layer';
import { gridTownCounts, writeGridTownPbf } from '../../support/town/grid';

/**
 * Imports into PostGIS through the service itself, past the writer's first COPY chunk (10,000
 * rows): started as the CLI starts it (`--layer FILE --database URL`, a pool of two), and
 * through its layers API with as many imports at once as its pool has connections. A deadline
 * turns a hang (an import waiting for a connection while it holds one, or while its COPY
 * streams hold the pool) into a failure naming what the database connections wait for. Sizes:
 * FIELDLENS_PG_IMPORT_FEATURES (GeoJSON features, 25,000) and FIELDLENS_PG_IMPORT_TOWN_NODES
 * (grid-town PBF nodes, 100,000: 15,000 features); the service's peak RSS is printed.
 */
const FEATURES = Number(process.env['FIELDLENS_PG_IMPORT_FEATURES'] ?? 25_000);
const TOWN_NODES = Number(process.env['FIELDLENS_PG_IMPORT_TOWN_NODES'] ?? 100_000);
/** Generous for a shared two-core machine; the imports here take a fraction of it. */
const DEADLINE_MS = Number(process.env['FIELDLENS_PG_IMPORT_DEADLINE_S'] ?? 150) * 1000;
/** Imports at once through the API: one per connection of the service's pool, so none can have a second. */
const AT_ONCE = DEFAULT_POOL_SIZE;
/** The first two just past one COPY chunk (their streams open before they commit); the others small. */
const BIG = 10_001;
const SMALL = 300;
const sizeOf = (i: number) => (i < 2 ? BIG : SMALL);
const ROOT = join(import.meta.dirname, '../../..');

let cluster: PgCluster;
let dir: string;
let geojson: string;
let big: string;
let small: string;
let pbf: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fieldlens-pg-service-import-'));
  cluster = startPgCluster();
  geojson = join(dir, 'synthetic.geojson');
  writeSyntheticGeoJson(geojson, FEATURES);
  big = join(dir, 'big.geojson');
  writeSyntheticGeoJson(big, BIG);
  small = join(dir, 'small.geojson');
  writeSyntheticGeoJson(small, SMALL);
  pbf = join(dir, 'town.osm.pbf');
  await writeGridTownPbf(pbf, TOWN_NODES);
}, 300_000);
afterAll(() => {
  // Stopping the server first also ends any connection a failed test left waiting.
  cluster?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** What n synthetic features hold, counted from the generator. */
function expectedSynthetic(n: number) {
  const types: Record<string, number> = {};
  let pharmacies = 0;
  for (const f of syntheticFeatures(n)) {
    types[f.geometry.type] = (types[f.geometry.type] ?? 0) + 1;
    if (f.properties['amenity'] === 'pharmacy') pharmacies++;
  }
  return { types, pharmacies };
}

async function sql<R extends pg.QueryResultRow>(url: string, text: string): Promise<R[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query<R>(text)).rows;
  } finally {
    await c.end();
  }
}

/** What the database's connections are doing: the message of a deadline that passed. */
const activity = async (url: string) =>
  JSON.stringify(
    await sql(url, "SELECT state, wait_event, left(query, 60) AS query FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()").catch((e: unknown) => String(e)),
  );

/** Rejects after ms with the message `what()` gives; the timer goes when the promise settles. */
async function within<T>(p: Promise<T>, ms: number, what: () => Promise<string>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, fail) => {
    timer = setTimeout(() => void what().then((m) => fail(new Error(m))), ms);
  });
  try {
    return await Promise.race([p, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Each ready layer's row with what its table holds, by name. */
async function layersIn(url: string) {
  const rows = await sql<{ id: number; name: string; state: string; feature_count: string; geometry_types: Record<string, number>; summary: boolean }>(
    url,
    'SELECT l.id, l.name, l.state, l.feature_count, l.geometry_types, s.layer_id IS NOT NULL AS summary FROM layers l LEFT JOIN layer_summaries s ON s.layer_id = l.id ORDER BY l.id',
  );
  const out = new Map<string, { state: string; count: number; types: Record<string, number>; summary: boolean; rows: number; pharmacies: number }>();
  for (const r of rows) {
    const [t] = await sql<{ rows: number; pharmacies: number }>(
      url,
      `SELECT count(*)::int AS rows, (count(*) FILTER (WHERE tags->>'amenity' = 'pharmacy'))::int AS pharmacies FROM layer_features_${Number(r.id)}`,
    );
    out.set(r.name, { state: r.state, count: Number(r.feature_count), types: r.geometry_types, summary: r.summary, ...t! });
  }
  return out;
}

/** Load tables of imports (left only by an import that did not finish). */
const loadTables = (url: string) => sql<{ n: number }>(url, "SELECT count(*)::int AS n FROM pg_tables WHERE tablename LIKE 'layer_features_%_load'");

describe('PostGIS imports through the service', () => {
  it('the service started as the CLI does imports the GeoJSON and the town PBF, then listens', { timeout: DEADLINE_MS + 60_000 }, async () => {
    const url = await cluster.createDatabase();
    const args = ['--import', 'tsx', 'electron/local-service/cli.ts', '--key', 'k1', '--search-key', 'k2', '--json', '--no-sample', '--no-detect'];
    const child: ChildProcess = spawn(process.execPath, [...args, '--data-dir', join(dir, 'cli'), '--database', url, '--layer', geojson, '--layer', pbf], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (d) => (stderr += String(d)));
    const t0 = performance.now();
    try {
      const listening = new Promise<{ baseUrl: string }>((ok, fail) => {
        let out = '';
        child.stdout!.on('data', (d) => {
          out += String(d);
          if (out.includes('\n')) ok(JSON.parse(out.split('\n')[0]!));
        });
        child.on('exit', (code) => fail(new Error(`service exited with ${code}: ${stderr}`)));
      });
      const { baseUrl } = await within(listening, DEADLINE_MS, async () => `not listening after ${DEADLINE_MS} ms; connections: ${await activity(url)}; stderr: ${stderr.slice(-2000)}`);
      const seconds = (performance.now() - t0) / 1000;
      // The process's peak resident set so far (the imports ran in it before it listened).
      const peakMb = Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1]) / 1024;
      process.stdout.write(`service with --layer: ${FEATURES} GeoJSON features and a ${TOWN_NODES}-node town PBF imported and listening after ${seconds.toFixed(1)} s, peak RSS ${peakMb.toFixed(0)} MB\n`);
      expect((await fetch(`${baseUrl}/readyz`)).status).toBe(200);
    } finally {
      child.kill('SIGTERM');
      const exited = new Promise((ok) => child.once('exit', ok));
      if (child.exitCode === null && !(await Promise.race([exited.then(() => true), new Promise((ok) => setTimeout(() => ok(false), 20_000))]))) {
        child.kill('SIGKILL');
        await exited;
      }
    }
    const town = gridTownCounts(TOWN_NODES);
    const synthetic = expectedSynthetic(FEATURES);
    const layers = await layersIn(url);
    expect([...layers.keys()]).toEqual(['synthetic', 'town']);
    expect(layers.get('synthetic')).toEqual({ state: 'ready', count: FEATURES, types: synthetic.types, summary: true, rows: FEATURES, pharmacies: synthetic.pharmacies });
    const townCount = town.taggedNodes + town.ways;
    expect(layers.get('town')).toEqual({
      state: 'ready',
      count: townCount,
      types: { Point: town.taggedNodes, LineString: town.ways - town.buildings, Polygon: town.buildings },
      summary: true,
      rows: townCount,
      // The generator names every fifth tagged node's amenity a pharmacy.
      pharmacies: Math.ceil(town.taggedNodes / 5),
    });
    expect(await loadTables(url)).toEqual([{ n: 0 }]);
  });

  it(`the layers API imports ${AT_ONCE} files at once, as many as the service's pool has connections, and the service stays ready`, { timeout: DEADLINE_MS + 60_000 }, async () => {
    const url = await cluster.createDatabase();
    const service: LocalService = createLocalService({
      dataDir: mkdtempSync(join(dir, 'api-')),
      keys: { bearer: 'b-0001', search: 's-0001' },
      logger: createMemoryLogger(),
      clock: () => new Date(),
      catalog: loadCatalog(defaultCatalogDir()),
      database: url,
    });
    const { baseUrl } = await service.start();
    try {
      const jobs = Array.from({ length: AT_ONCE }, (_, i) => service.layers.startImport(sizeOf(i) === BIG ? big : small, { name: `copy ${i}` }));
      // Asked while they load: answered once a connection is free.
      let ready = 0;
      const probes = (async () => {
        for (let i = 0; i < 5; i++) {
          if ((await fetch(`${baseUrl}/readyz`).catch(() => null))?.status === 200) ready++;
          await new Promise((ok) => setTimeout(ok, 200));
        }
      })();
      const done = await within(Promise.all(jobs.map((j) => j.done)), DEADLINE_MS, async () => {
        for (const j of jobs) j.cancel();
        return `imports not done after ${DEADLINE_MS} ms; connections: ${await activity(url)}`;
      });
      await within(probes, 30_000, async () => `readiness probes not answered; connections: ${await activity(url)}`);
      expect(ready).toBe(5);
      expect(done.map((l: LayerInfo) => l.featureCount)).toEqual(jobs.map((_, i) => sizeOf(i)));
      expect((await service.layers.list()).map((l) => l.name).sort()).toEqual(jobs.map((_, i) => `copy ${i}`).sort());
      const layers = await layersIn(url);
      for (let i = 0; i < AT_ONCE; i++) {
        const n = sizeOf(i);
        const synthetic = expectedSynthetic(n);
        expect(layers.get(`copy ${i}`)).toEqual({ state: 'ready', count: n, types: synthetic.types, summary: true, rows: n, pharmacies: synthetic.pharmacies });
      }
      expect(await loadTables(url)).toEqual([{ n: 0 }]);
    } finally {
      // Bounded: a stuck import keeps connections the pool's end waits for (the cluster's stop ends them).
      await Promise.race([service.close(), new Promise((ok) => setTimeout(ok, 20_000))]);
    }
  });
});
