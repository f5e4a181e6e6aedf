/**
 * Load benchmark of the local service: autocannon at 32 connections on POST /v1/compute
 * (three representative questions, in turn) and on GET /health of the same server.
 * Prints readable figures, then as its LAST line one JSON object of all figures.
 *
 *   npm run bench:service            (SECONDS=10 by default per run)
 *
 * Other benchmarks add their figures to the same final line by pushing a function onto
 * EXTRA_FIGURES (see bench/figures.ts); keys must be unique.
 */
import { EXTRA_FIGURES, printFigures, type Figures } from './figures';
import { computeRequests, errorsOf, run, spawnService } from './service-harness';

const SECONDS = Number(process.env['SECONDS_PER_RUN'] ?? 10);
const CONNECTIONS = 32;

export async function benchService(): Promise<Figures> {
  const svc = await spawnService();
  try {
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
  } finally {
    await svc.stop();
  }
}

if (process.argv[1] && import.meta.filename === (await import('node:path')).resolve(process.argv[1])) {
  const figures: Figures = await benchService();
  for (const extra of EXTRA_FIGURES) Object.assign(figures, await extra());
  printFigures(figures);
}
