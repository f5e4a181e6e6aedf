import type autocannon from 'autocannon';
import { BENCH_KEYS, QUESTIONS, memoryAfterGc, run, type ServiceProcess } from './service-harness';

/** Street-level and imagery questions over the sample photos, beside the compute questions. */
const STREAMS = [{ query: 'Paris' }, { query: 'bridge', limit: 20 }, { query: 'street', year: 2019 }];
const SEARCHES = [{ query: 'Paris' }, { query: 'market in France', limit: 20 }, { query: '*', limit: 50, page: 2 }];

export interface LoadFigures {
  seconds: number;
  connections: number;
  requests: number;
  rps: number;
  p99Ms: number;
  '5xx': number;
  non2xx: number;
  errors: number;
  timeouts: number;
  /** RSS after a full collection, before and after the run (warm-up excluded), and its growth. */
  rssBeforeMb: number;
  rssAfterMb: number;
  rssGrowthPct: number;
  heapBeforeMb: number;
  heapAfterMb: number;
  rssPeakMb: number;
}

/**
 * Load before the first memory reading. The allocator's working set at 64 connections keeps
 * growing for about 10 s and then holds (six 10 s windows in a row after a 3 s warm-up: +10.2 %
 * in the first, -1.3 to +3.6 % in each later one, 278 -> 277 MB over the whole minute), so a
 * shorter warm-up counts that growth as a leak.
 */
export const WARMUP_SECONDS = 10;

/**
 * What a memory reading leaves out: the photo detectors. Their worker threads hold about 130 MB
 * each and retire 30 s after the last photo, which can fall inside a run; their memory under load
 * is measured by the perception load test and bench:perception.
 */
export const LOAD_SERVICE_ARGS = ['--no-detect'];

const json = (headers: Record<string, string>) => ({ ...headers, 'content-type': 'application/json' });

/**
 * The local service under a mix of its three operations at once: compute and stream on the base
 * host and imagery search on the search host, `connections` in all (two thirds on the base host).
 * The service process must run with --expose-gc, so memory is compared after full collections.
 */
export async function mixedLoad(svc: ServiceProcess, seconds: number, connections = 64, warmupSeconds = WARMUP_SECONDS): Promise<LoadFigures> {
  const bearer = json({ authorization: `Bearer ${BENCH_KEYS.bearer}` });
  const base: autocannon.Request[] = QUESTIONS.flatMap((q, i) => [
    { method: 'POST', path: '/v1/compute', headers: bearer, body: JSON.stringify(q) },
    { method: 'POST', path: '/v1/stream', headers: bearer, body: JSON.stringify(STREAMS[i]) },
  ]);
  const search: autocannon.Request[] = SEARCHES.map((q) => ({ method: 'POST', path: '/search', headers: json({ 'x-api-key': BENCH_KEYS.search }), body: JSON.stringify(q) }));
  const onBase = Math.round((connections * 2) / 3);
  const both = (duration: number) =>
    Promise.all([
      run({ url: svc.baseUrl, connections: onBase, duration, requests: base }),
      run({ url: svc.searchBaseUrl, connections: connections - onBase, duration, requests: search }),
    ]);
  await both(warmupSeconds);
  const before = await memoryAfterGc(svc);
  let peak = svc.rssKb();
  const sampler = setInterval(() => (peak = Math.max(peak, svc.rssKb())), 500);
  const [a, b] = await both(seconds).finally(() => clearInterval(sampler));
  const after = await memoryAfterGc(svc);
  return {
    seconds,
    connections,
    requests: a.requests.total + b.requests.total,
    rps: Math.round(a.requests.average + b.requests.average),
    p99Ms: Math.max(a.latency.p99, b.latency.p99),
    '5xx': a['5xx'] + b['5xx'],
    non2xx: a.non2xx + b.non2xx,
    errors: a.errors + b.errors,
    timeouts: a.timeouts + b.timeouts,
    rssBeforeMb: before.rssMb,
    rssAfterMb: after.rssMb,
    rssGrowthPct: Math.round(((after.rssMb - before.rssMb) / before.rssMb) * 1000) / 10,
    heapBeforeMb: before.heapUsedMb,
    heapAfterMb: after.heapUsedMb,
    rssPeakMb: Math.round(peak / 1024),
  };
}
