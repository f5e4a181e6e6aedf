/**
 * Data-layer benchmark: import of a generated OSM PBF of 2,000,000 nodes and 200,000 ways
 * (the grid town of tests/support/town/grid.ts, its XML piped through `osmium cat`), in a
 * child process so its peak RSS is its own; import of the same data as a GeoPackage written by
 * GDAL; and nearest-10 / within-500 m questions over a layer of 1,000,000 features, asked through
 * HTTP compute of the local service (vocabulary, engine and store). In the same run, when the
 * tools are installed, the C++ anchors on the same files: osm2pgsql (default style, indexes
 * included) loads the PBF into a throwaway PostGIS cluster, and ogr2ogr copies the GeoPackage into
 * SQLite with its spatial index.
 * Sizes: `-- --nodes N` (default 2,000,000; 50000000 is the big case, outside CI),
 * `-- --query-features N` (default 1,000,000).
 * Last line: one JSON object with pbf_import_features_per_s, pbf_import_nodes_per_s,
 * pbf_import_peak_rss_mb, osm2pgsql_nodes_per_s, pbf_import_ratio_vs_osm2pgsql,
 * gpkg_import_features_per_s, ogr2ogr_gpkg_features_per_s, layer_query_p50_ms (an anchor whose
 * tool is missing is null).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { parseArgs } from 'node:util';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startLayerImport } from '../../electron/local-service/layers/import-job';
import { openSqliteLayerStore } from '../../electron/local-service/layers/store/sqlite-layer-store';
import { createMemoryLogger } from '../../electron/ground/logger';
import { createLocalService } from '../../electron/local-service/server';
import { startPgCluster } from '../support/pg-cluster';
import { writeSyntheticLayer } from '../support/synthetic-layer';
import { writeGridTownPbf } from '../support/town/grid';

const BENCH_KEYS = { bearer: 'bench-bearer-key', search: 'bench-search-key' };

const size = (v: string | undefined, fallback: number) => {
  const n = v === undefined ? fallback : Number(v);
  if (!Number.isInteger(n) || n < 10) throw new Error(`not a size: ${v}`);
  return n;
};
const QUERIES = 400;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Imports one file into a fresh store and prints {ms, features, maxRssKb}. */
async function child(file: string, dataDir: string) {
  const store = openSqliteLayerStore({ dataDir });
  const t0 = performance.now();
  const info = await startLayerImport({ store, file, tempDir: join(dataDir, 'tmp') }).done;
  const ms = performance.now() - t0;
  store.close();
  process.stdout.write(JSON.stringify({ ms, features: info.featureCount, sizeBytes: info.sizeBytes, maxRssKb: process.resourceUsage().maxRSS }) + '\n');
}

function importInChild(file: string, dataDir: string): { ms: number; features: number; sizeBytes: number; maxRssKb: number } {
  const res = spawnSync(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--child', file, dataDir], { encoding: 'utf8' });
  if (res.status !== 0) throw new Error(`import child failed: ${res.stderr}`);
  return JSON.parse(res.stdout.trim().split('\n').at(-1)!);
}

/** Whether a command-line tool is on PATH. */
const installed = (tool: string) => spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0;

/** Wall time of a tool's whole run, in ms. */
function timed(cmd: string, args: string[]): number {
  const t = performance.now();
  const res = spawnSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'ignore', 'pipe'] });
  if (res.status !== 0) throw new Error(`${cmd} failed (${res.status}): ${res.stderr.slice(-2000)}`);
  return performance.now() - t;
}

/** osm2pgsql with its default style into a fresh PostGIS database (tables and their indexes). */
async function osm2pgsql(pbf: string): Promise<number | null> {
  if (!installed('osm2pgsql')) {
    process.stdout.write('osm2pgsql: not installed (apt-get install osm2pgsql), anchor skipped\n');
    return null;
  }
  const cluster = startPgCluster();
  try {
    const url = new URL(await cluster.createDatabase());
    return timed('osm2pgsql', ['--create', '--host', url.hostname, '--port', url.port, '--username', url.username, '--database', url.pathname.slice(1), pbf]);
  } finally {
    cluster.stop();
  }
}

/** Features in all layers of a vector file, as GDAL counts them. */
function ogrFeatureCount(file: string): number {
  const out = execFileSync('ogrinfo', ['-ro', '-so', '-al', file], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  return [...out.matchAll(/^Feature Count: (\d+)$/gm)].reduce((sum, m) => sum + Number(m[1]), 0);
}

async function main(nodes: number, queryFeatures: number) {
  const dir = mkdtempSync(join(tmpdir(), 'fieldlens-bench-layers-'));
  try {
    const pbf = join(dir, 'grid.osm.pbf');
    const t0 = performance.now();
    const grid = await writeGridTownPbf(pbf, nodes);
    process.stdout.write(`generated ${grid.nodes} nodes, ${grid.ways} ways: ${(statSync(pbf).size / 1e6).toFixed(1)} MB PBF in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);

    const p = importInChild(pbf, join(dir, 'pbf-data'));
    const pbfFeaturesPerS = p.features / (p.ms / 1000);
    const nodesPerS = grid.nodes / (p.ms / 1000);
    process.stdout.write(
      `PBF import: ${p.features} features in ${(p.ms / 1000).toFixed(2)} s (${Math.round(nodesPerS)} nodes/s), ` +
        `peak RSS ${(p.maxRssKb / 1024).toFixed(0)} MB, ${(p.sizeBytes / 1e6).toFixed(1)} MB stored\n`,
    );

    const anchorMs = await osm2pgsql(pbf);
    const anchorNodesPerS = anchorMs === null ? null : grid.nodes / (anchorMs / 1000);
    if (anchorNodesPerS !== null)
      process.stdout.write(
        `osm2pgsql into PostGIS (default style, indexes included): ${(anchorMs! / 1000).toFixed(2)} s (${Math.round(anchorNodesPerS)} nodes/s); ` +
          `ours / osm2pgsql ${(nodesPerS / anchorNodesPerS).toFixed(2)}\n`,
      );

    const gpkg = join(dir, 'grid.gpkg');
    execFileSync('ogr2ogr', ['-f', 'GPKG', gpkg, pbf, 'points', 'lines', 'multipolygons'], { stdio: ['ignore', 'ignore', 'pipe'] });
    const g = importInChild(gpkg, join(dir, 'gpkg-data'));
    const gpkgPerS = g.features / (g.ms / 1000);
    process.stdout.write(`GeoPackage import: ${g.features} features in ${(g.ms / 1000).toFixed(2)} s, peak RSS ${(g.maxRssKb / 1024).toFixed(0)} MB\n`);
    // The same GeoPackage copied by GDAL into SQLite, spatial index included; counted by GDAL.
    const ogrMs = timed('ogr2ogr', ['-f', 'SQLite', '-dsco', 'SPATIALITE=YES', join(dir, 'grid-ogr.sqlite'), gpkg]);
    const ogrFeatures = ogrFeatureCount(join(dir, 'grid-ogr.sqlite'));
    if (ogrFeatures !== ogrFeatureCount(gpkg)) throw new Error('ogr2ogr did not copy every feature of the GeoPackage');
    const ogrPerS = ogrFeatures / (ogrMs / 1000);
    process.stdout.write(
      `ogr2ogr of the same GeoPackage into SQLite (SpatiaLite, spatial index): ${ogrFeatures} features in ${(ogrMs / 1000).toFixed(2)} s ` +
        `(${Math.round(ogrPerS)} features/s); ours / ogr2ogr ${(gpkgPerS / ogrPerS).toFixed(2)}\n`,
    );

    const queryDir = join(dir, 'query-data');
    const store = openSqliteLayerStore({ dataDir: queryDir });
    const layer = writeSyntheticLayer(store, queryFeatures);
    store.close();
    // The questions go through the engine: HTTP compute, vocabulary, store queries, results.
    const service = createLocalService({ dataDir: queryDir, keys: BENCH_KEYS, logger: createMemoryLogger(), clock: () => new Date() });
    const { baseUrl } = await service.start();
    let s = 5;
    const rand = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 4294967296);
    const times: number[] = [];
    let hits = 0;
    try {
      for (let q = 0; q < QUERIES; q++) {
        const [lon, lat] = [2 + rand() * 1.5, 48.5 + rand()];
        const query = q % 2 ? 'the 10 nearest pharmacies to me' : 'pharmacies within 500 m of me';
        const t = performance.now();
        const res = await fetch(`${baseUrl}/v1/compute`, {
          method: 'POST',
          headers: { authorization: `Bearer ${BENCH_KEYS.bearer}`, 'content-type': 'application/json' },
          body: JSON.stringify({ query, coordinates: [{ name: 'me', latitude: lat, longitude: lon }], limit: 100 }),
        });
        const body = (await res.json()) as { results?: { numberMatched: number } };
        times.push(performance.now() - t);
        if (res.status !== 200 || !body.results) throw new Error(`compute ${res.status}: ${JSON.stringify(body)}`);
        hits += body.results.numberMatched;
      }
    } finally {
      await service.close();
    }
    const p50 = median(times);
    process.stdout.write(`compute questions (nearest 10 / within 500 m pharmacies) over ${layer.featureCount} features: p50 ${p50.toFixed(2)} ms, p95 ${[...times].sort((a, b) => a - b)[Math.floor(QUERIES * 0.95)]!.toFixed(2)} ms (${(hits / QUERIES).toFixed(1)} results each)\n`);

    process.stdout.write(
      JSON.stringify({
        pbf_import_features_per_s: Math.round(pbfFeaturesPerS),
        pbf_import_nodes_per_s: Math.round(nodesPerS),
        pbf_import_peak_rss_mb: Math.round(p.maxRssKb / 1024),
        osm2pgsql_nodes_per_s: anchorNodesPerS === null ? null : Math.round(anchorNodesPerS),
        pbf_import_ratio_vs_osm2pgsql: anchorNodesPerS === null ? null : Number((nodesPerS / anchorNodesPerS).toFixed(3)),
        gpkg_import_features_per_s: Math.round(gpkgPerS),
        ogr2ogr_gpkg_features_per_s: Math.round(ogrPerS),
        layer_query_p50_ms: Number(p50.toFixed(3)),
      }) + '\n',
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const args = process.argv.slice(2);
if (args[0] === '--child') await child(args[1]!, args[2]!);
else {
  const { values } = parseArgs({ args, options: { nodes: { type: 'string' }, 'query-features': { type: 'string' } } });
  await main(size(values.nodes, 2_000_000), size(values['query-features'], 1_000_000));
}
