/**
 * Imagery benchmark: indexes a generated 1,000-photo folder, then times POST /search and
 * POST /v1/stream over real HTTP on 127.0.0.1. The last line is a JSON object with
 * imagery_index_per_s, search_p50_ms and stream_p50_ms.
 *
 *   npx tsx tests/bench/imagery.bench.ts [photoCount] [--postgis]
 *
 * With --postgis the catalog is kept in a throwaway PostgreSQL cluster (tests/support/pg-cluster.ts)
 * as a service started with --database keeps it.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import Fastify, { type FastifyInstance } from 'fastify';
import pg from 'pg';
import { createMemoryLogger } from '../../electron/ground/logger';
import { createImageryPlugin } from '../../electron/local-service/imagery';
import { createDefaultGeocoder, RegionTable } from '../../electron/local-service/imagery/geocoder';
import { drawJpeg, tagJpeg } from '../../electron/local-service/imagery/photo-writer';
import { startPgCluster } from '../support/pg-cluster';

const KEY = 'bench-key-0123456789';
const CITIES: [string, number, number][] = [
  ['Paris', 2.35, 48.86], ['Berlin', 13.4, 52.52], ['London', -0.12, 51.5], ['Rome', 12.5, 41.9],
  ['Madrid', -3.7, 40.42], ['Lisbon', -9.14, 38.72], ['Vienna', 16.37, 48.21], ['Warsaw', 21.01, 52.23],
  ['Cairo', 31.24, 30.04], ['Nairobi', 36.82, -1.29], ['Lagos', 3.38, 6.52], ['Cape Town', 18.42, -33.92],
  ['Tokyo', 139.7, 35.68], ['Seoul', 126.98, 37.57], ['Delhi', 77.21, 28.61], ['Bangkok', 100.5, 13.75],
  ['Sydney', 151.21, -33.87], ['Auckland', 174.76, -36.85], ['New York', -74.0, 40.71], ['Chicago', -87.63, 41.88],
  ['Mexico City', -99.13, 19.43], ['Lima', -77.04, -12.05], ['Buenos Aires', -58.38, -34.6], ['Toronto', -79.38, 43.65],
];
const KEYWORDS = ['street', 'bridge', 'market', 'park', 'station', 'river', 'church', 'square', 'harbour', 'tower'];

const p50 = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor((s.length - 1) / 2)]!;
};
const round = (x: number, d = 2) => Math.round(x * 10 ** d) / 10 ** d;

function authHook(app: FastifyInstance, check: (h: Record<string, unknown>) => boolean) {
  app.addHook('onRequest', async (req, reply) => {
    if (req.routeOptions.config?.auth === false) return;
    if (!check(req.headers)) await reply.code(401).send({ title: 'Unauthorized', status: 401 });
  });
}

/** Writes `count` generated geotagged photos into `dir` (a few drawn scenes, each with its own EXIF). */
export function writeBenchPhotos(dir: string, count: number): void {
  // Drawing is not what is measured: a few scenes, tagged per photo.
  const scenes = Array.from({ length: 8 }, (_, i) => drawJpeg(320, 240, i + 1, undefined, 60));
  const pano = drawJpeg(480, 240, 99, undefined, 60);
  for (let i = 0; i < count; i++) {
    const [, lon, lat] = CITIES[i % CITIES.length]!;
    const isPano = i % 50 === 0;
    const bytes = tagJpeg(isPano ? pano : scenes[i % scenes.length]!, {
      width: isPano ? 480 : 320,
      height: 240,
      latitude: lat + (((i * 7919) % 1000) - 500) / 10_000,
      longitude: lon + (((i * 104_729) % 1000) - 500) / 10_000,
      direction: (i * 37) % 360,
      takenAt: `${2015 + (i % 10)}:${String((i % 12) + 1).padStart(2, '0')}:${String((i % 28) + 1).padStart(2, '0')} 12:00:00`,
      description: `Survey photo ${i}`,
      keywords: [KEYWORDS[i % KEYWORDS.length]!, KEYWORDS[(i * 3) % KEYWORDS.length]!],
      make: 'BenchCam',
    });
    writeFileSync(join(dir, `p${String(i).padStart(5, '0')}.jpg`), bytes);
  }
}

/** The /search and /v1/stream request bodies timed, over the places and words of the generated photos. */
export function imageryRequests() {
  const searchBodies = [
    ...CITIES.map(([name]) => ({ query: name, limit: 20 })),
    ...KEYWORDS.map((k) => ({ query: `${k} photos`, limit: 50, page: 2 })),
    { query: 'market in France', limit: 20 },
    { query: '*', limit: 100, page: 3 },
  ];
  const streamBodies = [
    ...CITIES.map(([name]) => ({ query: `${name} street` })),
    ...CITIES.map(([, lon, lat]) => ({ query: 'bridge', position: { points: [{ latitude: lat, longitude: lon }] } })),
    ...KEYWORDS.map((k, i) => ({ query: k, year: 2015 + i, limit: 20 })),
    { query: 'park', region_id: '250' },
  ];
  return { searchBodies, streamBodies };
}

export interface ImageryBenchFigures {
  imagery_index_per_s: number;
  search_p50_ms: number;
  stream_p50_ms: number;
}

/** Runs the whole benchmark on the imagery plugin alone (bench:service measures the running service). */
export async function benchImagery(
  count = 1000,
  log: (line: string) => void = console.log,
  { postgis = false }: { postgis?: boolean } = {},
): Promise<ImageryBenchFigures> {
  const cluster = postgis ? startPgCluster() : null;
  const photos = mkdtempSync(join(tmpdir(), 'fl-bench-photos-'));
  const dataDir = mkdtempSync(join(tmpdir(), 'fl-bench-data-'));
  try {
    let t = performance.now();
    writeBenchPhotos(photos, count);
    log(`generated ${count} photos in ${round((performance.now() - t) / 1000)} s`);

    const regions = new RegionTable();
    const geocode = createDefaultGeocoder(regions);
    t = performance.now();
    geocode(0, 0);
    log(`city table loaded in ${round(performance.now() - t)} ms (once per process, not in the index rate)`);

    const db = new Database(join(dataDir, 'service.sqlite'));
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    const plugin = createImageryPlugin({ photoDirs: [photos], geocode, watch: false });
    const base = Fastify();
    const search = Fastify();
    authHook(base, (h) => h['authorization'] === `Bearer ${KEY}`);
    authHook(search, (h) => h['x-api-key'] === KEY);
    let baseUrl = '';
    let searchUrl = '';
    const pool = cluster ? new pg.Pool({ connectionString: await cluster.createDatabase() }) : undefined;
    const ctx = { dataDir, db, pool, logger: createMemoryLogger(), clock: () => new Date(), baseUrl: () => baseUrl, searchBaseUrl: () => searchUrl };
    t = performance.now();
    await plugin.registerBase!(base, ctx);
    await plugin.registerSearch!(search, ctx);
    const report = await plugin.catalog()!.start();
    const indexS = (performance.now() - t) / 1000;
    const perS = report.photos / indexS;
    log(`indexed ${report.photos} photos in ${round(indexS)} s: ${round(perS, 0)} photos/s`);
    const rescanT = performance.now();
    await plugin.catalog()!.scan();
    log(`unchanged re-scan: ${round(performance.now() - rescanT)} ms`);

    baseUrl = await base.listen({ host: '127.0.0.1', port: 0 });
    searchUrl = await search.listen({ host: '127.0.0.1', port: 0 });

    const time = async (url: string, headers: Record<string, string>, body: unknown) => {
      const t0 = performance.now();
      const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
      const json = (await res.json()) as { isSuccess?: boolean };
      const ms = performance.now() - t0;
      if (res.status !== 200 || json.isSuccess !== true) throw new Error(`${url} answered ${res.status}`);
      return ms;
    };
    const { searchBodies, streamBodies } = imageryRequests();
    const searchMs: number[] = [];
    const streamMs: number[] = [];
    // Warm-up, then 5 rounds of each request set.
    await time(`${searchUrl}/search`, { 'x-api-key': KEY }, { query: 'Paris' });
    await time(`${baseUrl}/v1/stream`, { authorization: `Bearer ${KEY}` }, { query: 'Paris' });
    for (let round = 0; round < 5; round++) {
      for (const b of searchBodies) searchMs.push(await time(`${searchUrl}/search`, { 'x-api-key': KEY }, b));
      for (const b of streamBodies) streamMs.push(await time(`${baseUrl}/v1/stream`, { authorization: `Bearer ${KEY}` }, b));
    }
    log(`/search: ${searchMs.length} requests, p50 ${round(p50(searchMs))} ms`);
    log(`/v1/stream: ${streamMs.length} requests, p50 ${round(p50(streamMs))} ms`);

    await plugin.close?.();
    await base.close();
    await search.close();
    await pool?.end();
    db.close();
    return {
      imagery_index_per_s: round(perS, 1),
      search_p50_ms: round(p50(searchMs)),
      stream_p50_ms: round(p50(streamMs)),
    };
  } finally {
    rmSync(photos, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
    cluster?.stop();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const args = process.argv.slice(2);
  const count = args.find((a) => /^\d+$/.test(a));
  const figures = await benchImagery(Number(count ?? 1000), console.log, { postgis: args.includes('--postgis') });
  console.log(JSON.stringify(figures));
}
