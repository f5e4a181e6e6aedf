/**
 * Peak RSS of the service while 4 requests at once each send 10 files of 20 MiB of readable CSV
 * (503s retried after Retry-After), and the slowest /health meanwhile. Service flags after `--`.
 *
 *   tsx tests/bench/upload-memory.ts [-- --upload-budget-mb 1000]
 */
import { randomBytes } from 'node:crypto';
import { rawRequest } from '../support/raw-http';
import { sitesCsv } from '../contract/local-service/sites';
import { BENCH_KEYS, spawnService } from './service-harness';

const MIB = 1024 * 1024;
const REQUESTS = Number(process.env['REQUESTS'] ?? 4);
const PARTS = Number(process.env['PARTS'] ?? 10);
const PART_MIB = Number(process.env['PART_MIB'] ?? 20);
const sleep = (ms: number) => new Promise((ok) => setTimeout(ok, ms));
const text = sitesCsv(Math.ceil((PART_MIB * MIB) / 35));
const bytes = Buffer.from(text).subarray(0, PART_MIB * MIB);
const file = Buffer.concat([bytes.subarray(0, bytes.lastIndexOf(10) + 1)]);

async function send(url: string) {
  const boundary = 'b' + randomBytes(6).toString('hex');
  const head = (i: number) => Buffer.from(`--${boundary}\r\ncontent-disposition: form-data; name="files"; filename="part${i}.csv"\r\ncontent-type: text/csv\r\n\r\n`);
  const fields = Buffer.from(`--${boundary}\r\ncontent-disposition: form-data; name="query"\r\n\r\nmy sites\r\n--${boundary}\r\ncontent-disposition: form-data; name="limit"\r\n\r\n5\r\n--${boundary}\r\ncontent-disposition: form-data; name="answer"\r\n\r\nfalse\r\n`);
  const tail = Buffer.from(`--${boundary}--\r\n`);
  let length = fields.length + tail.length;
  for (let i = 0; i < PARTS; i++) length += head(i).length + file.length + 2;
  const req = rawRequest(url, { path: '/v1/compute', headers: { authorization: `Bearer ${BENCH_KEYS.bearer}`, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': String(length) } });
  let answered = false;
  void req.response.then(() => (answered = true), () => (answered = true));
  const write = async (b: Buffer) => answered || (await req.write(b));
  await write(fields);
  for (let i = 0; i < PARTS && !answered; i++) {
    await write(head(i));
    for (let at = 0; at < file.length && !answered; at += MIB) await write(file.subarray(at, at + MIB));
    await write(Buffer.from('\r\n'));
  }
  await write(tail);
  try {
    return await req.response;
  } finally {
    req.socket.destroy();
  }
}

const svc = await spawnService({ args: process.argv.slice(2).filter((a) => a !== '--') });
const start = svc.rssKb();
let peak = start;
const sampler = setInterval(() => (peak = Math.max(peak, svc.rssKb())), 25);
let worst = 0;
let probing = true;
const probe = (async () => {
  while (probing) {
    const t = performance.now();
    await (await fetch(`${svc.baseUrl}/health`)).arrayBuffer();
    worst = Math.max(worst, performance.now() - t);
    await sleep(50);
  }
})();
const t0 = performance.now();
const statuses: string[] = [];
let busy = 0;
try {
  await Promise.all(
    Array.from({ length: REQUESTS }, async () => {
      for (;;) {
        const res = await send(svc.baseUrl);
        if (res.status !== 503) {
          const b = JSON.parse(res.body) as { results?: { numberMatched: number }; code?: string };
          return void statuses.push(`${res.status} ${b.results?.numberMatched ?? b.code}`);
        }
        busy++;
        await sleep(Number(res.headers['retry-after'] ?? 1) * 1000);
      }
    }),
  );
} finally {
  clearInterval(sampler);
  probing = false;
  await probe;
  await svc.stop();
}
process.stdout.write(
  JSON.stringify({ file_mb: +(file.length / MIB).toFixed(1), statuses, retries_503: busy, ms: Math.round(performance.now() - t0), start_rss_mb: Math.round(start / 1024), peak_rss_mb: Math.round(peak / 1024), health_worst_ms: Math.round(worst) }) + '\n',
);
