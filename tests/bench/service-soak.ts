/**
 * Soak run of the local service: 64 connections for 60 s on POST /v1/compute (three questions
 * in turn). Reports 5xx responses and RSS growth of the service process after warm-up (end and
 * peak). Not part of `npm test`:  npm run soak:service
 * SERVICE_NODE_FLAGS passes V8 flags to the service process (e.g. --max-old-space-size=192).
 */
import { BENCH_KEYS, computeRequests, errorsOf, run, spawnService } from './service-harness';

const SECONDS = Number(process.env['SOAK_SECONDS'] ?? 60);
const svc = await spawnService();
try {
  await run({ url: svc.baseUrl, connections: 64, duration: 5, requests: computeRequests() });
  const rssStart = svc.rssKb();
  const samples: number[] = [];
  const status: string[] = [];
  const timer = setInterval(() => {
    samples.push(svc.rssKb());
    void fetch(`${svc.baseUrl}/v1/status`, { headers: { authorization: `Bearer ${BENCH_KEYS.bearer}` } })
      .then((r) => r.json() as Promise<{ heap_used_mb: number; heap_total_mb: number; external_mb: number }>)
      .then((s) => status.push(`${s.heap_used_mb}/${s.heap_total_mb}/${s.external_mb}`));
  }, 5000);
  const res = await run({ url: svc.baseUrl, connections: 64, duration: SECONDS, requests: computeRequests() });
  clearInterval(timer);
  const rssEnd = svc.rssKb();
  const growth = (rssEnd - rssStart) / rssStart;
  process.stdout.write(`rss samples (MiB): ${samples.map((s) => (s / 1024).toFixed(0)).join(' ')}\n`);
  process.stdout.write(`heap used/total/external (MiB): ${status.join(' ')}\n`);
  process.stdout.write(
    JSON.stringify({
      soak_seconds: SECONDS,
      soak_connections: 64,
      soak_requests: res.requests.total,
      soak_rps: res.requests.average,
      soak_p99_ms: res.latency.p99,
      soak_5xx: res['5xx'],
      soak_non2xx: res.non2xx,
      soak_errors: errorsOf(res).errors + res.timeouts,
      soak_rss_start_mb: Math.round(rssStart / 1024),
      soak_rss_end_mb: Math.round(rssEnd / 1024),
      soak_rss_growth_pct: Math.round(growth * 1000) / 10,
      // The highest 5 s sample during the run: V8 lets garbage build up between full collections.
      soak_rss_peak_mb: Math.round(Math.max(rssEnd, ...samples) / 1024),
      soak_rss_peak_growth_pct: Math.round(((Math.max(rssEnd, ...samples) - rssStart) / rssStart) * 1000) / 10,
    }) + '\n',
  );
} finally {
  await svc.stop();
}
