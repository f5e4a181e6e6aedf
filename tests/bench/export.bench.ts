/**
 * Export benchmark: a GeoPackage of 100k points written by our writer and by `ogr2ogr -f GPKG`,
 * both from the same GeoJSON file on disk (ours: read, parse, write; ogr2ogr: its whole run,
 * whose bare process start is printed apart), each output's rows counted back; and the peak RSS
 * of a 1M-feature GeoJSON export in a child process. Sizes: BENCH_POINTS, BENCH_GEOJSON_FEATURES.
 * Last line: one JSON object with gpkg_100k_ms, ogr2ogr_100k_ms, ratio_vs_ogr2ogr,
 * ogr2ogr_start_ms, geojson_1m_peak_rss_mb.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { startExport } from '../../electron/export/job';
import type { ComputeFeature } from '../../shared/service/compute';
import { pointFeatures } from '../interop/export/features';

const RUNS = 3;
const POINTS = Number(process.env['BENCH_POINTS'] ?? 100_000);
const BIG = Number(process.env['BENCH_GEOJSON_FEATURES'] ?? 1_000_000);

/** Rows of the one feature table of a GeoPackage, counted with plain SQL. */
function gpkgRows(file: string): number {
  const db = new Database(file, { readonly: true });
  try {
    const table = db.prepare(`SELECT table_name FROM gpkg_contents WHERE data_type = 'features'`).pluck().get() as string;
    return db.prepare(`SELECT count(*) FROM "${table.replace(/"/g, '""')}"`).pluck().get() as number;
  } finally {
    db.close();
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Features made one at a time, as a cache cursor hands them out, so the input costs no memory. */
function* lazyPoints(n: number): Generator<ComputeFeature> {
  const block = 1000;
  for (let i = 0; i < n; i += block) {
    const chunk = pointFeatures(Math.min(block, n - i), i + 1);
    for (let j = 0; j < chunk.length; j++) yield { ...chunk[j]!, id: `f-${i + j}` };
  }
}

async function child(out: string, n: number) {
  const t0 = performance.now();
  await startExport({ layers: [{ name: 'points', kind: 'compute', features: lazyPoints(n), count: n }], format: 'geojson', destination: out });
  const ms = performance.now() - t0;
  process.stdout.write(JSON.stringify({ ms, maxRssKb: process.resourceUsage().maxRSS, bytes: statSync(out).size }) + '\n');
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'fieldlens-bench-'));
  try {
    const n = POINTS;
    const geojson = join(dir, 'in.geojson');
    writeFileSync(geojson, JSON.stringify({ type: 'FeatureCollection', features: pointFeatures(n) }));
    const ours: number[] = [];
    const ogr: number[] = [];
    const start: number[] = [];
    for (let r = 0; r < RUNS; r++) {
      const a = join(dir, `ours-${r}.gpkg`);
      const t0 = performance.now();
      const features = (JSON.parse(readFileSync(geojson, 'utf8')) as { features: ComputeFeature[] }).features;
      await startExport({ layers: [{ name: 'points', kind: 'compute', features, count: n }], format: 'gpkg', destination: a });
      ours.push(performance.now() - t0);
      const b = join(dir, `ogr-${r}.gpkg`);
      const t1 = performance.now();
      execFileSync('ogr2ogr', ['-f', 'GPKG', b, geojson]);
      ogr.push(performance.now() - t1);
      const t2 = performance.now();
      execFileSync('ogr2ogr', ['--version']);
      start.push(performance.now() - t2);
      for (const [who, file] of [['fieldlens', a], ['ogr2ogr', b]] as const) {
        const rows = gpkgRows(file);
        if (rows !== n) throw new Error(`${who} wrote ${rows} rows of ${n}`);
      }
      process.stdout.write(
        `run ${r + 1}: fieldlens ${ours[r]!.toFixed(0)} ms (${(statSync(a).size / 1e6).toFixed(1)} MB), ` +
          `ogr2ogr ${ogr[r]!.toFixed(0)} ms (${(statSync(b).size / 1e6).toFixed(1)} MB; its process start alone ${start[r]!.toFixed(0)} ms), ${n} rows each\n`,
      );
      rmSync(a);
      rmSync(b);
    }

    const out = join(dir, 'big.geojson');
    const res = spawnSync(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--child', out, String(BIG)], {
      encoding: 'utf8',
    });
    if (res.status !== 0) throw new Error(`GeoJSON child failed: ${res.stderr}`);
    const c = JSON.parse(res.stdout.trim().split('\n').at(-1)!) as { ms: number; maxRssKb: number; bytes: number };
    process.stdout.write(`geojson ${BIG}: ${c.ms.toFixed(0)} ms, ${(c.bytes / 1e6).toFixed(0)} MB file, peak RSS ${(c.maxRssKb / 1024).toFixed(0)} MB\n`);

    const gpkg = median(ours);
    const ogrMs = median(ogr);
    process.stdout.write(
      JSON.stringify({
        points: n,
        gpkg_100k_ms: Math.round(gpkg),
        ogr2ogr_100k_ms: Math.round(ogrMs),
        ratio_vs_ogr2ogr: Number((gpkg / ogrMs).toFixed(3)),
        ogr2ogr_start_ms: Math.round(median(start)),
        geojson_1m_peak_rss_mb: Math.round(c.maxRssKb / 1024),
      }) + '\n',
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const args = process.argv.slice(2);
if (args[0] === '--child') await child(args[1]!, Number(args[2]));
else await main();
