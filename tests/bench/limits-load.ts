import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rawRequest, type RawResponse } from '../support/raw-http';
import type { Figures } from './figures';
import { BENCH_KEYS, computeRequests, run, spawnService, type ServiceProcess } from './service-harness';

const MIB = 1024 * 1024;
const auth = { authorization: `Bearer ${BENCH_KEYS.bearer}` };
const sleep = (ms: number) => new Promise((ok) => setTimeout(ok, ms));

/**
 * One multipart request of `parts` files of the same bytes, written as the socket takes them
 * (the client holds one file's bytes, not the body). Resolves with the answer, which may come
 * before the body is sent (a refusal).
 */
async function sendParts(url: string, bytes: Buffer, parts: number): Promise<RawResponse> {
  const boundary = 'fieldlens-bench-' + randomBytes(6).toString('hex');
  const head = (i: number) =>
    Buffer.from(`--${boundary}\r\ncontent-disposition: form-data; name="files"; filename="part${i}.csv"\r\ncontent-type: text/csv\r\n\r\n`);
  const query = Buffer.from(`--${boundary}\r\ncontent-disposition: form-data; name="query"\r\n\r\nmy sites\r\n`);
  const tail = Buffer.from(`--${boundary}--\r\n`);
  let length = query.length + tail.length;
  for (let i = 0; i < parts; i++) length += head(i).length + bytes.length + 2;
  const req = rawRequest(url, { path: '/v1/compute', headers: { ...auth, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': String(length) } });
  let answered = false;
  void req.response.then(() => (answered = true), () => (answered = true));
  const write = async (b: Buffer) => answered || (await req.write(b));
  await write(query);
  for (let i = 0; i < parts && !answered; i++) {
    await write(head(i));
    // In 1 MiB writes, so a refusal is seen between them.
    for (let at = 0; at < bytes.length && !answered; at += MIB) await write(bytes.subarray(at, at + MIB));
    await write(Buffer.from('\r\n'));
  }
  await write(tail);
  try {
    return await req.response;
  } finally {
    req.socket.destroy();
  }
}

/** `/health` asked one at a time until stop(): the slowest answer, and how many got none. */
function healthProbe(url: string) {
  let worst = 0;
  let failures = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      const t = performance.now();
      const ok = await fetch(`${url}/health`).then((r) => r.arrayBuffer().then(() => r.ok), () => false);
      if (ok) worst = Math.max(worst, performance.now() - t);
      else failures++;
      await sleep(50);
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return { worst, failures };
    },
  };
}

/** `mib` MiB of valid CSV: a header, then rows of named points with coordinates spread over France. */
export function sitesCsv(mib: number): Buffer {
  const rows: string[] = ['name,lat,lon,kind'];
  let size = rows[0]!.length + 1;
  for (let i = 0; size < mib * MIB; i++) {
    const row = `site ${i},${(43 + ((i * 7919) % 5000) / 1000).toFixed(4)},${(-1 + ((i * 104729) % 7000) / 1000).toFixed(4)},${i % 3 ? 'well' : 'depot'}`;
    rows.push(row);
    size += row.length + 1;
  }
  return Buffer.from(rows.join('\n') + '\n').subarray(0, mib * MIB);
}

/** The service's own figures (GET /v1/status): heap and external memory, and the upload budget held. */
async function status(url: string): Promise<{ heap_used_mb: number; external_mb: number; upload_budget_in_use_mb?: number } | null> {
  try {
    const r = await fetch(`${url}/v1/status`, { headers: auth });
    return r.ok ? ((await r.json()) as { heap_used_mb: number; external_mb: number }) : null;
  } catch {
    return null;
  }
}

/**
 * 4 requests at once of 10 files of 20 MiB of valid CSV rows with coordinates (each file read,
 * and its rows answered as "my sites"), retried after Retry-After when the upload budget answers
 * 503: the service's peak RSS, its peak heap and external memory (sampled every second from
 * /v1/status, so where the memory goes), and the slowest /health meanwhile.
 */
export async function concurrentUploads(svc: ServiceProcess, requests = 4, parts = 10, partMib = 20): Promise<Figures> {
  const bytes = sitesCsv(partMib);
  const startRss = svc.rssKb();
  let peak = startRss;
  const sampler = setInterval(() => (peak = Math.max(peak, svc.rssKb())), 25);
  let heapPeak = 0;
  let externalPeak = 0;
  let sampling = true;
  const phases = (async () => {
    while (sampling) {
      const s = await status(svc.baseUrl);
      if (s) {
        heapPeak = Math.max(heapPeak, s.heap_used_mb);
        externalPeak = Math.max(externalPeak, s.external_mb);
      }
      await sleep(1000);
    }
  })();
  const probe = healthProbe(svc.baseUrl);
  const t0 = performance.now();
  const statuses: number[] = [];
  let busy = 0;
  try {
    await Promise.all(
      Array.from({ length: requests }, async () => {
        for (;;) {
          const res = await sendParts(svc.baseUrl, bytes, parts);
          if (res.status !== 503) return void statuses.push(res.status);
          busy++;
          await sleep(Number(res.headers['retry-after'] ?? 1) * 1000);
        }
      }),
    );
  } finally {
    clearInterval(sampler);
    sampling = false;
  }
  await phases;
  const health = await probe.stop();
  return {
    upload_concurrent_requests: requests,
    upload_concurrent_statuses_200: statuses.filter((s) => s === 200).length,
    upload_concurrent_statuses_4xx: statuses.filter((s) => s >= 400 && s < 500).length,
    upload_concurrent_5xx_other_than_503: statuses.filter((s) => s >= 500).length,
    upload_concurrent_503_retries: busy,
    upload_concurrent_ms: Math.round(performance.now() - t0),
    upload_concurrent_start_rss_mb: Math.round(startRss / 1024),
    upload_concurrent_peak_rss_mb: Math.round(peak / 1024),
    upload_concurrent_peak_heap_used_mb: heapPeak,
    upload_concurrent_peak_external_mb: externalPeak,
    upload_concurrent_health_worst_ms: Math.round(health.worst * 10) / 10,
    upload_concurrent_health_failures: health.failures,
  };
}

/** A request declaring 1 GiB: time from its head until the answer (413), with a mebibyte of body sent. */
async function oversize(svc: ServiceProcess): Promise<Figures> {
  const t = performance.now();
  const req = rawRequest(svc.baseUrl, {
    path: '/v1/compute',
    headers: { ...auth, 'content-type': 'multipart/form-data; boundary=x', 'content-length': String(1024 * MIB) },
  });
  void req.write(Buffer.alloc(MIB, 0x61));
  const res = await req.response;
  const ms = performance.now() - t;
  req.socket.destroy();
  return { oversize_413_status: res.status, oversize_413_ms: Math.round(ms * 10) / 10 };
}

/** Wrong keys one after another from one address: how many before the first 429, and the right key meanwhile. */
async function wrongKeys(svc: ServiceProcess, tries = 1000): Promise<Figures> {
  let before = -1;
  for (let i = 0; i < tries; i++) {
    const res = await fetch(`${svc.baseUrl}/v1/areas`, { headers: { authorization: `Bearer wrong-bench-key-${i}` } });
    await res.arrayBuffer();
    if (res.status === 429) {
      before = i;
      break;
    }
  }
  const right = await fetch(`${svc.baseUrl}/v1/areas`, { headers: auth });
  await right.arrayBuffer();
  return { wrong_key_429_after: before, wrong_key_right_key_status: right.status };
}

/**
 * Saved searches made by `seconds` of compute load, then the service started again on the same
 * data with a size bound of `boundMb`: how many there were and how many retention kept.
 */
async function retention(seconds: number, boundMb: number): Promise<Figures> {
  const dataDir = mkdtempSync(join(tmpdir(), 'fieldlens-bench-retention-'));
  const status = async (svc: ServiceProcess) =>
    ((await (await fetch(`${svc.baseUrl}/v1/status`, { headers: auth })).json()) as { saved_queries: number }).saved_queries;
  try {
    let svc = await spawnService({ dataDir, args: ['--retention-mb', '0', '--retention-days', '0'] });
    await run({ url: svc.baseUrl, connections: 16, duration: seconds, requests: computeRequests() });
    const before = await status(svc);
    await svc.stop();
    const t = performance.now();
    svc = await spawnService({ dataDir, args: ['--retention-mb', String(boundMb)] });
    const startMs = performance.now() - t;
    const after = await status(svc);
    await svc.stop();
    return {
      saved_searches_load_seconds: seconds,
      saved_searches_before_retention: before,
      saved_searches_retention_bound_mb: boundMb,
      saved_searches_after_retention: after,
      saved_searches_restart_with_retention_ms: Math.round(startMs),
    };
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * The limits part of bench:hardening: uploads at once (at the default upload budget, then at each
 * of `largerBudgetsMb`, figures named `upload_budget_<n>_…`), an oversize request, wrong keys,
 * retention. The service runs as it ships: its sample photos looked at by the detectors.
 */
export async function limitsFigures(opts: { retentionSeconds: number; retentionBoundMb: number; uploadPartMib: number; largerBudgetsMb: number[] }): Promise<Figures> {
  const figures: Figures = {};
  for (const mb of opts.largerBudgetsMb) {
    const svc = await spawnService({ args: ['--upload-budget-mb', String(mb)] });
    try {
      const f = await concurrentUploads(svc, 4, 10, opts.uploadPartMib);
      for (const [k, v] of Object.entries(f)) figures[k.replace(/^upload_concurrent_/, `upload_budget_${mb}_`)] = v;
    } finally {
      await svc.stop();
    }
  }
  const svc = await spawnService();
  try {
    Object.assign(figures, await concurrentUploads(svc, 4, 10, opts.uploadPartMib));
    Object.assign(figures, await oversize(svc));
    Object.assign(figures, await wrongKeys(svc));
  } finally {
    await svc.stop();
  }
  Object.assign(figures, await retention(opts.retentionSeconds, opts.retentionBoundMb));
  return figures;
}
