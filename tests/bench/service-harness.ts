import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';

export const BENCH_KEYS = { bearer: 'bench-bearer-key', search: 'bench-search-key' };
const root = resolve(import.meta.dirname, '..', '..');

/** Three representative questions: a radius around a place, country + population filter, ranking. */
export const QUESTIONS = [
  { query: 'large airports within 30 km of Paris', limit: 100 },
  { query: 'cities in France over 100k people', limit: 100 },
  { query: 'top 10 largest cities in Japan', limit: 100 },
];

export interface ServiceProcess {
  baseUrl: string;
  searchBaseUrl: string;
  dataDir: string;
  child: ChildProcess;
  /** Photos the detectors had not looked at when the wait for them ended (0: all were). */
  photosPending: number;
  rssKb(): number;
  stop(): Promise<void>;
}

/**
 * Waits until the first scan of the photos is done and the detectors have looked at them all, so a
 * measurement starts from the service's steady state, not from its first minute's indexing. A busy
 * machine only makes this slower: the wait prints a progress line every 5 s to stderr and goes on
 * while photos are still being looked at; after PHOTOS_SETTLE_MS (180,000 by default) it stops
 * waiting and answers how many photos are still pending, for the figures to report.
 */
async function photosSettled(baseUrl: string, ms = Number(process.env['PHOTOS_SETTLE_MS'] ?? 180_000)): Promise<number> {
  const t0 = Date.now();
  let said = t0;
  for (;;) {
    const r = await fetch(`${baseUrl}/v1/imagery/catalog`, { headers: { authorization: `Bearer ${BENCH_KEYS.bearer}` } });
    const b = (await r.json()) as { lastScan?: unknown; photos?: number; perception?: { state: string; done: number; total: number } | null };
    if (r.ok && b.lastScan && b.perception?.state !== 'running') return 0;
    const p = b.perception;
    // The run counts its photos a batch at a time; the service starts on a fresh folder, so every photo of the catalog is to be looked at.
    const pending = p ? Math.max(0, p.total - p.done, (b.photos ?? 0) - p.done) : 0;
    if (Date.now() - t0 > ms) {
      process.stderr.write(`photos: ${pending} still pending after ${ms} ms; measuring now (reported as photos_pending)\n`);
      return pending;
    }
    if (Date.now() - said >= 5000) {
      said = Date.now();
      process.stderr.write(`photos: ${p ? `${p.done} of ${Math.max(p.total, b.photos ?? 0)} looked at` : 'first scan running'} (${Math.round((said - t0) / 1000)} s)\n`);
    }
    await new Promise((ok) => setTimeout(ok, 250));
  }
}

/** The service in its own process, so the load generator does not share its event loop. */
/** `dataDir`: a folder of the caller's, left in place on stop() (a restart on the same data); `args`: more service flags. */
export async function spawnService(opts: { nodeFlags?: string[]; dataDir?: string; args?: string[] } = {}): Promise<ServiceProcess> {
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'fieldlens-bench-'));
  const child = spawn(
    process.execPath,
    [...(process.env['SERVICE_NODE_FLAGS'] ?? '').split(' ').filter(Boolean), ...(opts.nodeFlags ?? []), '--import', 'tsx', join(root, 'electron/local-service/cli.ts'), '--json', '--data-dir', dataDir, ...(opts.args ?? [])],
    {
      cwd: root,
      env: { ...process.env, FIELDLENS_SERVICE_KEY: BENCH_KEYS.bearer, FIELDLENS_SERVICE_SEARCH_KEY: BENCH_KEYS.search },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const line = await new Promise<string>((ok, fail) => {
    const rl = createInterface({ input: child.stdout! });
    rl.once('line', ok);
    child.once('exit', (code) => fail(new Error(`service exited with ${code}`)));
  });
  const { baseUrl, searchBaseUrl } = JSON.parse(line) as { baseUrl: string; searchBaseUrl: string };
  const photosPending = await photosSettled(baseUrl);
  return {
    photosPending,
    baseUrl,
    searchBaseUrl,
    dataDir,
    child,
    rssKb() {
      const m = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
      return m ? Number(m[1]) : NaN;
    },
    async stop() {
      const exited = new Promise((ok) => child.once('exit', ok));
      child.kill('SIGTERM');
      await exited;
      if (!opts.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Memory of the service after a full collection (the process must run with --expose-gc). */
export async function memoryAfterGc(svc: ServiceProcess): Promise<{ rssMb: number; heapUsedMb: number }> {
  // Asked twice, a moment apart: the first collection's freed pages reach the allocator (and the
  // system) only after it, so one reading right after a load overstates what the process keeps.
  let s = { rss_mb: NaN, heap_used_mb: NaN };
  for (let i = 0; i < 2; i++) {
    if (i) await new Promise((ok) => setTimeout(ok, 250));
    const res = await fetch(`${svc.baseUrl}/v1/status?gc=1`, { headers: { authorization: `Bearer ${BENCH_KEYS.bearer}` } });
    s = (await res.json()) as { rss_mb: number; heap_used_mb: number };
  }
  return { rssMb: s.rss_mb, heapUsedMb: s.heap_used_mb };
}

export function computeRequests() {
  return QUESTIONS.map((q) => ({
    method: 'POST' as const,
    path: '/v1/compute',
    headers: { authorization: `Bearer ${BENCH_KEYS.bearer}`, 'content-type': 'application/json' },
    body: JSON.stringify(q),
  }));
}

export function run(opts: autocannon.Options): Promise<autocannon.Result> {
  return new Promise((ok, fail) => {
    autocannon(opts, (err, res) => (err ? fail(err) : ok(res)));
  });
}

/** Status-class counts of one run (autocannon counts 2xx..5xx separately). */
export const errorsOf = (r: autocannon.Result) => ({ non2xx: r.non2xx, '5xx': r['5xx'], errors: r.errors, timeouts: r.timeouts });
