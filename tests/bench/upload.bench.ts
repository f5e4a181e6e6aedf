/**
 * Upload figures of the local service: a generated 10 MB CSV (about 300,000 rows) sent six
 * times to POST /v1/compute while GET /health is probed every 10 ms. Prints the request time,
 * the worst /health latency during it, the service's peak RSS and the database size after each
 * upload; last line one JSON object. A status other than 200 (of the upload or of a probe) or
 * a matched count other than the rows sent stops the run: a fast refusal is not an upload time.
 *
 *   npm run bench:upload                 300,000 rows
 *   BENCH_ROWS=20000 npm run bench:upload
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { sitesCsv } from '../contract/local-service/sites';
import { BENCH_KEYS, spawnService } from './service-harness';

const dbBytes = (dir: string) =>
  readdirSync(dir)
    .filter((f) => f.startsWith('local-service.sqlite'))
    .reduce((s, f) => s + statSync(join(dir, f)).size, 0);

const peakRssMb = (pid: number) => {
  const m = /VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Math.round(Number(m[1]) / 1024) : NaN;
};

const ROWS = Number(process.env['BENCH_ROWS'] ?? 300_000);
const csv = sitesCsv(ROWS);
const svc = await spawnService();
const figures: Record<string, unknown> = { rows: ROWS, csv_mb: Math.round((csv.length / 1048576) * 10) / 10 };
try {
  const dataDir = svc.dataDir;
  const sizes = [dbBytes(dataDir)];
  for (let n = 0; n < 6; n++) {
    let worst = 0;
    let probeFailures = 0;
    let probing = true;
    const probe = (async () => {
      while (probing) {
        const t = performance.now();
        const h = await fetch(`${svc.baseUrl}/health`);
        await h.arrayBuffer();
        if (h.status !== 200) probeFailures++;
        worst = Math.max(worst, performance.now() - t);
        await new Promise((ok) => setTimeout(ok, 10));
      }
    })();
    const form = new FormData();
    form.append('query', 'my sites');
    form.append('limit', '10');
    form.append('answer', 'false');
    form.append('files', new Blob([csv]), 'sites.csv');
    const t0 = performance.now();
    const res = await fetch(`${svc.baseUrl}/v1/compute`, { method: 'POST', headers: { authorization: `Bearer ${BENCH_KEYS.bearer}` }, body: form });
    const body = (await res.json()) as { results?: { numberMatched: number } };
    const ms = performance.now() - t0;
    probing = false;
    await probe;
    if (res.status !== 200) throw new Error(`upload ${n + 1}: HTTP ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
    if (body.results?.numberMatched !== ROWS) throw new Error(`upload ${n + 1}: ${body.results?.numberMatched} matched, ${ROWS} rows sent`);
    if (probeFailures) throw new Error(`upload ${n + 1}: ${probeFailures} /health probe(s) answered other than 200`);
    await new Promise((ok) => setTimeout(ok, 1500)); // saves are written behind
    sizes.push(dbBytes(dataDir));
    process.stdout.write(
      `upload ${n + 1}: ${res.status}, ${body.results?.numberMatched} matched, ${Math.round(ms)} ms, /health worst ${Math.round(worst)} ms, peak RSS ${peakRssMb(svc.child.pid!)} MB, db ${(sizes.at(-1)! / 1048576).toFixed(1)} MB\n`,
    );
    if (n === 0) Object.assign(figures, { first_ms: Math.round(ms), first_health_worst_ms: Math.round(worst) });
    figures[`upload${n + 1}_ms`] = Math.round(ms);
    figures[`upload${n + 1}_health_worst_ms`] = Math.round(worst);
  }
  figures['peak_rss_mb'] = peakRssMb(svc.child.pid!);
  figures['db_mb_after_each'] = sizes.map((s) => Math.round((s / 1048576) * 10) / 10);
} finally {
  await svc.stop();
}
process.stdout.write(JSON.stringify(figures) + '\n');
