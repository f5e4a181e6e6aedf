import { PerformanceObserver } from 'node:perf_hooks';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compute, computeForm, fileForm, savedCount, scalar, startService, stopService, storedBytes, type Running } from './harness';
import { sitesCsv } from './sites';

let r: Running;
beforeAll(async () => {
  r = await startService();
});
afterAll(async () => {
  await stopService(r);
});

describe('large uploads', () => {
  it('keeps /health answering within 100 ms while a 10 MB CSV is read, queried and saved', { timeout: 180_000 }, async () => {
    const csv = sitesCsv(300_000);
    expect(csv.length).toBeGreaterThan(10_000_000);
    // Built before probing: the test's own client shares the service's thread here.
    const form = fileForm({ query: 'my sites', limit: '10', answer: 'false' }, [{ name: 'sites.csv', text: csv }]);
    const probe = async (until: () => boolean) => {
      const latencies: number[] = [];
      while (!until()) {
        const t = performance.now();
        const res = await fetch(`${r.baseUrl}/health`);
        await res.arrayBuffer();
        latencies.push(performance.now() - t);
        await new Promise((ok) => setTimeout(ok, 20));
      }
      return latencies.sort((a, b) => a - b);
    };
    const stats = (l: number[]) => ({ n: l.length, p99: l[Math.floor((l.length - 1) * 0.99)]!, max: l.at(-1)!, second: l.at(-2) ?? 0 });

    // Collections of this thread's heap, printed beside the probes, so a slow probe can be told from a pause of the heap.
    let gcMax = 0;
    const gc = new PerformanceObserver((list) => {
      for (const e of list.getEntries()) gcMax = Math.max(gcMax, e.duration);
    });
    gc.observe({ entryTypes: ['gc'] });
    let done = false;
    const during = probe(() => done);
    const t0 = performance.now();
    const res = await computeForm(r, form);
    const ms = performance.now() - t0;
    done = true;
    const loaded = stats(await during);
    gc.disconnect();
    // The same probes with no upload: on a shared machine the scheduler alone stalls a probe now
    // and then, and such a stall is not the service's doing.
    let budget = loaded.n;
    const control = stats(await probe(() => budget-- <= 0));
    expect(res.results.numberMatched).toBe(300_000);
    const f = (x: number) => x.toFixed(1);
    process.stdout.write(
      `10 MB CSV: ${Math.round(ms)} ms; /health during it: ${loaded.n} probes, p99 ${f(loaded.p99)} ms, worst two ${f(loaded.second)} and ${f(loaded.max)} ms; longest collection ${f(gcMax)} ms; control: p99 ${f(control.p99)} ms, max ${f(control.max)} ms\n`,
    );
    // A probe every 20 ms or so throughout: the request thread was never held for long.
    expect(loaded.n).toBeGreaterThan(ms / 200);
    expect(loaded.p99).toBeLessThan(100);
    // Every probe but one within 100 ms of the worst the machine gives with no upload (on a quiet
    // machine a few ms): parse, layer, query and save all answer other requests in between. With
    // other test files busy on both cores, a single probe has reached 165 ms while the control
    // stayed under 10 ms; one such probe is the scheduler, two are the service holding the thread.
    expect(loaded.second).toBeLessThan(control.max + 100);
    expect(loaded.max).toBeLessThan(control.max + 400);
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

