/**
 * Export benchmark: GeoPackage of 100k points against `ogr2ogr -f GPKG` of the same features
 * (as GeoJSON) in the same run, and the peak RSS of a 1M-feature GeoJSON export in a child process.
 * Last line: one JSON object with gpkg_100k_ms, ogr2ogr_100k_ms, ratio_vs_ogr2ogr, geojson_1m_peak_rss_mb.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startExport } from '../../electron/export/job';
import type { ComputeFeature } from '../../shared/service/compute';
import { pointFeatures } from '../interop/export/features';

const RUNS = 3;
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
    const n = 100_000;
    const features = pointFeatures(n);
    const geojson = join(dir, 'in.geojson');
    writeFileSync(geojson, JSON.stringify({ type: 'FeatureCollection', features }));
    const ours: number[] = [];
    const ogr: number[] = [];
    for (let r = 0; r < RUNS; r++) {
      const a = join(dir, `ours-${r}.gpkg`);
      const t0 = performance.now();
      await startExport({ layers: [{ name: 'points', kind: 'compute', features, count: n }], format: 'gpkg', destination: a });
      ours.push(performance.now() - t0);
      const b = join(dir, `ogr-${r}.gpkg`);
      const t1 = performance.now();
      execFileSync('ogr2ogr', ['-f', 'GPKG', b, geojson]);
      ogr.push(performance.now() - t1);
      process.stdout.write(
        `run ${r + 1}: fieldlens ${ours[r]!.toFixed(0)} ms (${(statSync(a).size / 1e6).toFixed(1)} MB), ` +
          `ogr2ogr ${ogr[r]!.toFixed(0)} ms (${(statSync(b).size / 1e6).toFixed(1)} MB)\n`,
      );
      rmSync(a);
      rmSync(b);
    }

    const out = join(dir, 'big.geojson');
    const res = spawnSync(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--child', out, '1000000'], {
      encoding: 'utf8',
    });
    if (res.status !== 0) throw new Error(`GeoJSON child failed: ${res.stderr}`);
    const c = JSON.parse(res.stdout.trim().split('\n').at(-1)!) as { ms: number; maxRssKb: number; bytes: number };
    process.stdout.write(`geojson 1M: ${c.ms.toFixed(0)} ms, ${(c.bytes / 1e6).toFixed(0)} MB file, peak RSS ${(c.maxRssKb / 1024).toFixed(0)} MB\n`);

    const gpkg = median(ours);
    const ogrMs = median(ogr);
    process.stdout.write(
      JSON.stringify({
        gpkg_100k_ms: Math.round(gpkg),
        ogr2ogr_100k_ms: Math.round(ogrMs),
        ratio_vs_ogr2ogr: Number((gpkg / ogrMs).toFixed(3)),
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
