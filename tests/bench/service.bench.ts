/**
 * Load benchmark of the local service: autocannon at 32 connections on POST /v1/compute
 * (three representative questions, in turn) and on GET /health of the same server.
 * Prints readable figures, then as its LAST line one JSON object of all figures.
 *
 *   npm run bench:service            (SECONDS_PER_RUN=10 by default)
 *
 * Imagery indexing, search and stream figures join the same final line (SOURCES below): the
 * running service indexes a generated 1,000-photo folder (PHOTOS) given with --photos, and its
 * /search and /v1/stream are timed. `non2xx` and `errors_5xx` count the load runs' failed answers.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { mergeFigures, printFigures, type FigureSource, type Figures } from './figures';
import { imageryRequests, writeBenchPhotos } from './imagery.bench';
import { BENCH_KEYS, computeRequests, errorsOf, run, spawnService, type ServiceProcess } from './service-harness';

const SECONDS = Number(process.env['SECONDS_PER_RUN'] ?? 10);
const PHOTOS = Number(process.env['PHOTOS'] ?? 1000);
const CONNECTIONS = 32;

export const benchCompute: FigureSource = async (svc: ServiceProcess): Promise<Figures> => {
  // Warm-up: JIT and caches, not measured.
  await run({ url: svc.baseUrl, connections: 8, duration: 2, requests: computeRequests() });
  const compute = await run({ url: svc.baseUrl, connections: CONNECTIONS, duration: SECONDS, requests: computeRequests() });
  const trivial = await run({ url: svc.baseUrl + '/health', connections: CONNECTIONS, duration: SECONDS });
  process.stdout.write(
    `compute: p50 ${compute.latency.p50} ms, p99 ${compute.latency.p99} ms, ${compute.requests.average} req/s, ${JSON.stringify(errorsOf(compute))}\n` +
      `trivial: p50 ${trivial.latency.p50} ms, p99 ${trivial.latency.p99} ms, ${trivial.requests.average} req/s, ${JSON.stringify(errorsOf(trivial))}\n`,
  );
  return {
    compute_p50_ms: compute.latency.p50,
    compute_p99_ms: compute.latency.p99,
    compute_rps: compute.requests.average,
    trivial_rps: trivial.requests.average,
    non2xx: compute.non2xx + trivial.non2xx,
    errors_5xx: compute['5xx'] + trivial['5xx'],
  };
};

const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;
const round2 = (x: number) => Math.round(x * 100) / 100;

/**
 * Imagery figures of the running service: the scan of the photo folder it was started with (its
 * own report at /v1/imagery/catalog), then /search and /v1/stream, each answer checked.
 */
export const benchImageryFigures: FigureSource = async (svc: ServiceProcess) => {
  const status = await fetch(`${svc.baseUrl}/v1/imagery/catalog`, { headers: { authorization: `Bearer ${BENCH_KEYS.bearer}` } });
  const catalog = (await status.json()) as { photos: number; lastScan: { read: number; durationMs: number } | null };
  if (status.status !== 200 || catalog.photos !== PHOTOS || !catalog.lastScan)
    throw new Error(`imagery catalog: HTTP ${status.status}, ${catalog.photos} photos indexed of ${PHOTOS}`);
  const perS = catalog.lastScan.read / (catalog.lastScan.durationMs / 1000);
  const time = async (url: string, headers: Record<string, string>, body: unknown) => {
    const t0 = performance.now();
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
    const json = (await res.json()) as { isSuccess?: boolean };
    const ms = performance.now() - t0;
    if (res.status !== 200 || json.isSuccess !== true) throw new Error(`${url} answered ${res.status}`);
    return ms;
  };
  const search = { 'x-api-key': BENCH_KEYS.search };
  const stream = { authorization: `Bearer ${BENCH_KEYS.bearer}` };
  const { searchBodies, streamBodies } = imageryRequests();
  await time(`${svc.searchBaseUrl}/search`, search, { query: 'Paris' });
  await time(`${svc.baseUrl}/v1/stream`, stream, { query: 'Paris' });
  const searchMs: number[] = [];
  const streamMs: number[] = [];
  for (let i = 0; i < 5; i++) {
    for (const b of searchBodies) searchMs.push(await time(`${svc.searchBaseUrl}/search`, search, b));
    for (const b of streamBodies) streamMs.push(await time(`${svc.baseUrl}/v1/stream`, stream, b));
  }
  process.stdout.write(
    `imagery: ${catalog.lastScan.read} photos indexed by the service in ${round2(catalog.lastScan.durationMs / 1000)} s; ` +
      `/search p50 ${round2(p50(searchMs))} ms (${searchMs.length}), /v1/stream p50 ${round2(p50(streamMs))} ms (${streamMs.length})\n`,
  );
  return { imagery_index_per_s: Math.round(perS * 10) / 10, search_p50_ms: round2(p50(searchMs)), stream_p50_ms: round2(p50(streamMs)) };
};

/** Every figure source of the final line, in order. */
export const SOURCES: FigureSource[] = [benchCompute, benchImageryFigures];

export async function benchAll(sources = SOURCES): Promise<Figures> {
  const photos = mkdtempSync(join(tmpdir(), 'fieldlens-bench-photos-'));
  writeBenchPhotos(photos, PHOTOS);
  const svc = await spawnService({ args: ['--photos', photos, '--no-sample'] });
  try {
    // The first scan finishes before anything is timed: it would load the compute runs.
    await fetch(`${svc.baseUrl}/v1/imagery/catalog`, { headers: { authorization: `Bearer ${BENCH_KEYS.bearer}` } }).then((r) => r.arrayBuffer());
    const figures: Figures = {};
    for (const source of sources) mergeFigures(figures, await source(svc));
    // Photos the detectors were still looking at while the figures were taken (a busy machine).
    if (svc.photosPending) mergeFigures(figures, { photos_pending: svc.photosPending });
    return figures;
  } finally {
    await svc.stop();
    rmSync(photos, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.filename === resolve(process.argv[1])) printFigures(await benchAll());
