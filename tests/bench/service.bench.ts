/**
 * Load benchmark of the local service: autocannon at 32 connections on POST /v1/compute
 * (three representative questions, in turn) and on GET /health of the same server.
 * Prints readable figures, then as its LAST line one JSON object of all figures.
 *
 *   npm run bench:service            (SECONDS_PER_RUN=10 by default)
 *
 * Imagery indexing, search and stream figures join the same final line (SOURCES below).
 */
import { resolve } from 'node:path';
import { mergeFigures, printFigures, type FigureSource, type Figures } from './figures';
import { benchImagery } from './imagery.bench';
import { computeRequests, errorsOf, run, spawnService, type ServiceProcess } from './service-harness';

const SECONDS = Number(process.env['SECONDS_PER_RUN'] ?? 10);
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
  };
};

/**
 * Imagery figures (issue: 1,000-photo folder indexed, then /search and /v1/stream timed over
 * HTTP). They need a generated photo folder, so they run on their own instance of the plugin.
 */
export const benchImageryFigures: FigureSource = async () => {
  const f = await benchImagery(1000, (line) => process.stdout.write(line + '\n'));
  return { imagery_index_per_s: f.imagery_index_per_s, search_p50_ms: f.search_p50_ms, stream_p50_ms: f.stream_p50_ms };
};

/** Every figure source of the final line, in order. */
export const SOURCES: FigureSource[] = [benchCompute, benchImageryFigures];

export async function benchAll(sources = SOURCES): Promise<Figures> {
  const svc = await spawnService();
  try {
    const figures: Figures = {};
    for (const source of sources) mergeFigures(figures, await source(svc));
    return figures;
  } finally {
    await svc.stop();
  }
}

if (process.argv[1] && import.meta.filename === resolve(process.argv[1])) printFigures(await benchAll());
