/**
 * Data-layer benchmark: import of a generated OSM PBF of 2,000,000 nodes and 200,000 ways
 * (the grid town of tests/support/town/grid.ts, converted with `osmium cat`), in a
 * child process so its peak RSS is its own; import of the same data as a GeoPackage written by
 * GDAL; and nearest-10 / within-500 m questions over a layer of 1,000,000 features, asked through
 * HTTP compute of the local service (vocabulary, engine and store).
 * Last line: one JSON object with pbf_import_features_per_s, pbf_import_nodes_per_s,
 * pbf_import_peak_rss_mb, gpkg_import_features_per_s, layer_query_p50_ms.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startLayerImport } from '../../electron/local-service/layers/import-job';
import { openSqliteLayerStore } from '../../electron/local-service/layers/store/sqlite-layer-store';
import type { LayerFeature } from '../../electron/local-service/layers/types';
import { createMemoryLogger } from '../../electron/ground/logger';
import { createLocalService } from '../../electron/local-service/server';
import { osmiumCat, writeGridTownXml } from '../support/town/grid';

const BENCH_KEYS = { bearer: 'bench-bearer-key', search: 'bench-search-key' };

const NODES = 2_000_000;
const QUERY_FEATURES = 1_000_000;
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

/** 1M features around Paris: 90 % points, 10 % two-segment lines, written straight to a layer. */
function* syntheticFeatures(n: number): Generator<LayerFeature> {
  let s = 99;
  const rand = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 4294967296);
  for (let i = 0; i < n; i++) {
    const lon = 2 + rand() * 1.5;
    const lat = 48.5 + rand() * 1;
    const geometry: LayerFeature['geometry'] =
      i % 10 === 0 ? { type: 'LineString', coordinates: [[lon, lat], [lon + 0.001, lat + 0.0005], [lon + 0.002, lat]] } : { type: 'Point', coordinates: [lon, lat] };
    yield { sourceId: String(i + 1), geometry, properties: { amenity: i % 3 ? 'cafe' : 'pharmacy', name: `F ${i + 1}` } };
  }
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'fieldlens-bench-layers-'));
  try {
    const xml = join(dir, 'grid.osm');
    const pbf = join(dir, 'grid.osm.pbf');
    const t0 = performance.now();
    const grid = writeGridTownXml(xml, NODES);
    osmiumCat(xml, pbf);
    rmSync(xml);
    process.stdout.write(`generated ${grid.nodes} nodes, ${grid.ways} ways: ${(statSync(pbf).size / 1e6).toFixed(1)} MB PBF in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);

    const p = importInChild(pbf, join(dir, 'pbf-data'));
    const pbfFeaturesPerS = p.features / (p.ms / 1000);
    const nodesPerS = grid.nodes / (p.ms / 1000);
    process.stdout.write(
      `PBF import: ${p.features} features in ${(p.ms / 1000).toFixed(2)} s (${Math.round(nodesPerS)} nodes/s), ` +
        `peak RSS ${(p.maxRssKb / 1024).toFixed(0)} MB, ${(p.sizeBytes / 1e6).toFixed(1)} MB stored\n`,
    );

    const gpkg = join(dir, 'grid.gpkg');
    execFileSync('ogr2ogr', ['-f', 'GPKG', gpkg, pbf, 'points', 'lines', 'multipolygons'], { stdio: ['ignore', 'ignore', 'pipe'] });
    const g = importInChild(gpkg, join(dir, 'gpkg-data'));
    const gpkgPerS = g.features / (g.ms / 1000);
    process.stdout.write(`GeoPackage import: ${g.features} features in ${(g.ms / 1000).toFixed(2)} s, peak RSS ${(g.maxRssKb / 1024).toFixed(0)} MB\n`);

    const queryDir = join(dir, 'query-data');
    const store = openSqliteLayerStore({ dataDir: queryDir });
    const writer = store.create({ name: 'million', sourceFile: 'synthetic', format: 'geojson', licence: null, sourceText: 'synthetic' });
    let batch: LayerFeature[] = [];
    for (const f of syntheticFeatures(QUERY_FEATURES)) {
      batch.push(f);
      if (batch.length === 10_000) {
        writer.add(batch);
        batch = [];
      }
    }
    writer.add(batch);
    const layer = writer.commit([]);
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
        gpkg_import_features_per_s: Math.round(gpkgPerS),
        layer_query_p50_ms: Number(p50.toFixed(3)),
      }) + '\n',
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const args = process.argv.slice(2);
if (args[0] === '--child') await child(args[1]!, args[2]!);
else await main();
