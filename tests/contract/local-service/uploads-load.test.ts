import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { PerformanceObserver } from 'node:perf_hooks';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probe as probeHealth } from '../../support/health-probes';
import { ComputeResponseExact, type ComputeResponse } from '../../../shared/service/compute';
import { compute, computeForm, fileForm, KEYS, savedCount, scalar, startService, stopService, storedBytes, type Running } from './harness';
import { sitesCsv } from './sites';

let r: Running;
beforeAll(async () => {
  r = await startService();
});
afterAll(async () => {
  await stopService(r);
});

/** A compute form with one file, posted by a separate Node process. */
async function computeFromChild(r: Running, fields: Record<string, string>, file: string): Promise<ComputeResponse> {
  const script = `
    const { readFileSync } = require('node:fs');
    const [url, key, fields, file] = process.argv.slice(1);
    const form = new FormData();
    for (const [k, v] of Object.entries(JSON.parse(fields))) form.append(k, v);
    form.append('files', new Blob([readFileSync(file)]), require('node:path').basename(file));
    fetch(url, { method: 'POST', headers: { authorization: 'Bearer ' + key }, body: form })
      .then(async (res) => process.stdout.write(JSON.stringify({ status: res.status, body: await res.json() })));
  `;
  const out = await new Promise<string>((ok, fail) =>
    execFile(process.execPath, ['-e', script, `${r.baseUrl}/v1/compute`, KEYS.bearer, JSON.stringify(fields), file], { maxBuffer: 64 << 20 }, (err, stdout) =>
      err ? fail(err) : ok(stdout),
    ),
  );
  rmSync(dirname(file), { recursive: true, force: true });
  const { status, body } = JSON.parse(out) as { status: number; body: unknown };
  if (status !== 200) throw new Error(`compute ${status}: ${JSON.stringify(body)}`);
  return ComputeResponseExact.parse(body);
}

describe('large uploads', () => {
  it('keeps /health answering within 100 ms while a 10 MB CSV is read, queried and saved', { timeout: 300_000 }, async () => {
    const csv = sitesCsv(300_000);
    expect(csv.length).toBeGreaterThan(10_000_000);
    // Sent by another process: a client in this one would share the service's thread, and its
    // own copying of 10 MB (hundreds of ms on a loaded machine) would be counted as the service's.
    const file = join(mkdtempSync(join(tmpdir(), 'fieldlens-upload-')), 'sites.csv');
    writeFileSync(file, csv);
    // Each probe's time less this thread's waits for a core (the machine's doing); both are printed.
    const probe = (until: () => boolean) => probeHealth(`${r.baseUrl}/health`, until);
    const stats = ({ held: l, raw }: { held: number[]; raw: number[] }) => ({
      n: l.length,
      p99: l[Math.floor((l.length - 1) * 0.99)]!,
      max: l.at(-1)!,
      rawP99: raw[Math.floor((raw.length - 1) * 0.99)]!,
      rawMax: raw.at(-1)!,
    });

    // Collections of this thread's heap, printed beside the probes, so a slow probe can be told from a pause of the heap.
    let gcMax = 0;
    const gc = new PerformanceObserver((list) => {
      for (const e of list.getEntries()) gcMax = Math.max(gcMax, e.duration);
    });
    gc.observe({ entryTypes: ['gc'] });
    // The probes' connection is opened before, and the client process started (a spawn holds this
    // thread for tens of ms) before the first probe: neither is the service's work.
    await (await fetch(`${r.baseUrl}/health`)).arrayBuffer();
    let done = false;
    const t0 = performance.now();
    const sent = computeFromChild(r, { query: 'my sites', limit: '10', answer: 'false' }, file);
    const during = probe(() => done);
    const res = await sent.finally(() => (done = true));
    const ms = performance.now() - t0;
    const loaded = stats(await during);
    gc.disconnect();
    // The same probes with no upload: on a shared machine the scheduler alone stalls a probe now
    // and then, and such a stall is not the service's doing.
    let budget = loaded.n;
    const control = stats(await probe(() => budget-- <= 0));
    expect(res.results.numberMatched).toBe(300_000);
    const f = (x: number) => x.toFixed(1);
    process.stdout.write(
      `10 MB CSV: ${Math.round(ms)} ms; /health during it: ${loaded.n} probes, p99 ${f(loaded.p99)} ms, worst ${f(loaded.max)} ms (as measured, waits for a core included: p99 ${f(loaded.rawP99)}, worst ${f(loaded.rawMax)} ms); longest collection ${f(gcMax)} ms; control: p99 ${f(control.p99)} ms, max ${f(control.max)} ms (as measured ${f(control.rawMax)} ms)\n`,
    );
    // A probe every 20 ms or so throughout: the request thread was never held for long.
    expect(loaded.n).toBeGreaterThan(ms / 200);
    expect(loaded.p99).toBeLessThan(100);
    // Every probe within 100 ms of the worst the same probes take with no upload, waits for a core
    // left out: parse, layer, query and save all answer other requests in between. At load average
    // 18, code that scanned the 300,000 rows in one go (an upload's columns, its value words) held
    // one probe 246 ms while the rest stayed under 50 ms.
    expect(loaded.max).toBeLessThan(control.max + 100);
  });

  it('stores six identical uploads once', { timeout: 120_000 }, async () => {
    const svc = await startService();
    try {
      const csv = sitesCsv(30_000);
      const before = await storedBytes(svc);
      const ids: string[] = [];
      for (let n = 0; n < 6; n++) {
        const res = await computeForm(svc, fileForm({ query: 'my sites', limit: '1', answer: 'false' }, [{ name: 'sites.csv', text: csv }]));
        expect(res.results.numberMatched).toBe(30_000);
        ids.push(res.id);
      }
      expect(await savedCount(svc, 6)).toBe(6); // saves are written behind
      const growth = (await storedBytes(svc)) - before;
      // One gzipped copy of the file plus six packed result sets (13 bytes an item), and room for pages.
      const bound = gzipSync(Buffer.from(csv), { level: 1 }).length + 6 * (8 + 30_000 * 13) + 512 * 1024;
      process.stdout.write(`six identical ${(csv.length / 1048576).toFixed(1)} MB uploads: database grew ${(growth / 1048576).toFixed(2)} MB (bound ${(bound / 1048576).toFixed(2)} MB)\n`);
      expect(growth).toBeLessThan(bound);
      expect(await scalar(svc, 'SELECT count(*) FROM uploads')).toBe(1);
      expect(await scalar(svc, 'SELECT count(DISTINCT search_id) FROM search_uploads')).toBe(6);
    } finally {
      await stopService(svc);
    }
  });

  it('continues a saved upload across a restart from the stored file', async () => {
    const first = await startService();
    const dataDir = first.dataDir;
    const text = 'name,lat,lon\nParis,48.8566,2.3522\nLyon,45.764,4.8357\nMadrid,40.4168,-3.7038\nBerlin,52.52,13.405\n';
    const a = await computeForm(first, fileForm({ query: 'my sites', answer: 'false' }, [{ name: 'capitals.csv', text }]));
    expect(a.results.numberMatched).toBe(4);
    await stopService(first, false);
    const second = await startService({ dataDir });
    try {
      const b = await compute(second, { query: 'only those in France', search_id: a.id, answer: false });
      expect(b.results.features.map((f) => f.properties.name).sort()).toEqual(['Lyon', 'Paris']);
      expect(b.results.features[0]!.properties.attributes).toEqual({ name: b.results.features[0]!.properties.name });
      // The continuation links the same stored file.
      expect(await savedCount(second, 2)).toBe(2);
      expect(await scalar(second, 'SELECT count(*) FROM uploads')).toBe(1);
    } finally {
      await stopService(second);
    }
  });
});

