/**
 * Perception benchmark: the detectors (NanoDet + BlazeFace on the TensorFlow.js WebAssembly
 * backend, worker threads) over real photos. Prints, last, one JSON object with
 * detect_ms_per_photo_p50 (one warm worker, one photo at a time), index_photos_per_s (a folder of
 * `count` geotagged photos indexed by the imagery plugin on a real server, detectors in one worker
 * per spare core, from the end of the scan until every photo was looked at), peak_rss_mb (the
 * whole process, workers included, sampled every 50 ms while indexing), service_health_worst_ms_while_indexing
 * (GET /health over HTTP every 50 ms meanwhile) and ocr_ms_per_photo_p50 (PaddleOCR alone, one
 * warm worker). Indexing runs the detectors and the text reader on every photo.
 *
 *   npx tsx tests/bench/perception.bench.ts [count=200]
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import Fastify from 'fastify';
import { createMemoryLogger } from '../../electron/ground/logger';
import { createImageryPlugin } from '../../electron/local-service/imagery';
import { tagJpeg } from '../../electron/local-service/imagery/photo-writer';
import { readModels } from '../../electron/local-service/imagery/perception/models';
import { createDetectorPool, spareCores } from '../../electron/local-service/imagery/perception/pool';
import { openDatabase } from '../../electron/local-service/store';
import { JIMP_IMAGES } from '../support/labelled-photos';

const count = Number(process.argv[2] ?? 200);
const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;
const round = (x: number, d = 1) => Math.round(x * 10 ** d) / 10 ** d;

// Real photos of several sizes: a CCTV car park, figurines, hands (2376 x 1408), the sample imagery.
const sources = [
  ...['fillbytes.jpg', 'cops.jpg', 'hands.jpg'].map((f) => join(JIMP_IMAGES, f)),
  ...readdirSync('resources/sample-photos').filter((f) => f.endsWith('.jpg')).map((f) => join('resources/sample-photos', f)),
];

let peakRss = 0;
const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 50);

// 1. A folder indexed by the plugin on a real server while /health is probed.
const dir = mkdtempSync(join(tmpdir(), 'fl-bench-perception-'));
const dataDir = mkdtempSync(join(tmpdir(), 'fl-bench-perception-data-'));
const bytes = sources.map((s) => readFileSync(s));
for (let i = 0; i < count; i++) {
  const k = i % bytes.length;
  writeFileSync(
    join(dir, `p${String(i).padStart(4, '0')}.jpg`),
    tagJpeg(bytes[k]!, { width: 0, height: 0, latitude: 45 + i / 1000, longitude: 4 + i / 1000, takenAt: '2024:05:01 10:00:00', make: 'Bench' }),
  );
}
// Opened as the service opens its own (WAL, commits not synced one by one).
const db = openDatabase(dataDir);
const plugin = createImageryPlugin({ photoDirs: [dir], watch: false, perception: {} });
const app = Fastify();
app.get('/health', async () => ({ ok: true }));
await plugin.registerBase!(app, {
  dataDir,
  db,
  logger: createMemoryLogger(),
  clock: () => new Date(),
  baseUrl: () => 'http://127.0.0.1',
  searchBaseUrl: () => 'http://127.0.0.1',
});
const url = await app.listen({ host: '127.0.0.1', port: 0 });
await plugin.catalog()!.ready();
// The service before any detector ran (its city table for addresses included).
const baseRss = process.memoryUsage().rss;
// How long the service's own thread was held at a time: a /health answer slower than this
// waited for a core, not for the detectors.
const loop = monitorEventLoopDelay({ resolution: 10 });
loop.enable();
const t0 = performance.now();
let worst = 0;
let probing = true;
const probe = (async () => {
  while (probing) {
    const t = performance.now();
    const r = await fetch(`${url}/health`);
    await r.text();
    if (r.status !== 200) throw new Error(`/health answered ${r.status}`);
    worst = Math.max(worst, performance.now() - t);
    await new Promise((ok) => setTimeout(ok, 50));
  }
})();
for (;;) {
  const p = plugin.perception()!;
  if (p.state !== 'running' && p.done >= count) break;
  if (p.state !== 'running' && performance.now() - t0 > 5000 && p.done < count) throw new Error(`indexing stopped: ${JSON.stringify(p)}`);
  await new Promise((ok) => setTimeout(ok, 100));
}
const indexS = (performance.now() - t0) / 1000;
loop.disable();
console.log(`rss: ${Math.round(baseRss / 1024 / 1024)} MB before the detectors started, ${Math.round(peakRss / 1024 / 1024)} MB at the peak while indexing`);
console.log(`event loop while indexing: p50 ${round(loop.percentile(50) / 1e6)} ms, p99 ${round(loop.percentile(99) / 1e6)} ms, max ${round(loop.max / 1e6)} ms`);
probing = false;
await probe;
const progress = plugin.perception()!;
const seen = db.prepare('SELECT label, count(*) AS n FROM imagery_detection GROUP BY label ORDER BY n DESC LIMIT 5').all();
console.log(`index: ${count} photos in ${round(indexS, 2)} s with ${spareCores()} worker(s); failed ${progress.failed}; most seen ${JSON.stringify(seen)}`);
await plugin.close!();
await app.close();
db.close();
clearInterval(sampler);
const indexPeakRss = peakRss;
rmSync(dir, { recursive: true, force: true });
rmSync(dataDir, { recursive: true, force: true });

// 2. Then one warm worker, one photo at a time: detectors, then the text reader alone.
const models = readModels();
const single = createDetectorPool({ models, workers: 1 });
await single.detect(sources[0]!, true);
const times: number[] = [];
for (let round = 0; round < 2; round++)
  for (const s of sources) {
    const t = performance.now();
    await single.detect(s, true);
    times.push(performance.now() - t);
  }
const ocrTimes: number[] = [];
if (single.reads)
  for (const s of sources) {
    const t = performance.now();
    await single.read(s);
    ocrTimes.push(performance.now() - t);
  }
await single.close();
console.log(`detect: ${times.length} photos, p50 ${round(p50(times))} ms, max ${round(Math.max(...times))} ms`);
console.log(`ocr: ${ocrTimes.length} photos, p50 ${ocrTimes.length ? round(p50(ocrTimes)) : '-'} ms`);

console.log(
  JSON.stringify({
    detect_ms_per_photo_p50: round(p50(times)),
    index_photos_per_s: round(count / indexS, 2),
    peak_rss_mb: Math.round(indexPeakRss / 1024 / 1024),
    ocr_ms_per_photo_p50: ocrTimes.length ? round(p50(ocrTimes)) : null,
    service_health_worst_ms_while_indexing: round(worst),
  }),
);
