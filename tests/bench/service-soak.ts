/**
 * Soak run of the local service: 64 connections for 60 s on a mix of compute and stream (base
 * host) and imagery search (search host). Reports 5xx and other failures, and RSS and heap after a
 * full collection before and after the run (warm-up excluded). Not part of `npm test` (which runs
 * the same for 10 s):  npm run soak:service
 * SOAK_SECONDS changes the length; SERVICE_NODE_FLAGS passes more V8 flags to the service process.
 */
import { spawnService } from './service-harness';
import { LOAD_SERVICE_ARGS, mixedLoad } from './service-load';

const SECONDS = Number(process.env['SOAK_SECONDS'] ?? 60);
const svc = await spawnService({ nodeFlags: ['--expose-gc'], args: LOAD_SERVICE_ARGS });
try {
  const f = await mixedLoad(svc, SECONDS, 64);
  process.stdout.write(
    JSON.stringify({
      soak_seconds: f.seconds,
      soak_connections: f.connections,
      soak_requests: f.requests,
      soak_rps: f.rps,
      soak_p99_ms: f.p99Ms,
      soak_5xx: f['5xx'],
      soak_non2xx: f.non2xx,
      soak_errors: f.errors + f.timeouts,
      soak_rss_after_gc_start_mb: f.rssBeforeMb,
      soak_rss_after_gc_end_mb: f.rssAfterMb,
      soak_rss_growth_pct: f.rssGrowthPct,
      soak_heap_start_mb: f.heapBeforeMb,
      soak_heap_end_mb: f.heapAfterMb,
      soak_rss_peak_mb: f.rssPeakMb,
    }) + '\n',
  );
} finally {
  await svc.stop();
}
