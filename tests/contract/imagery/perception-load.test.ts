import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tagJpeg } from '../../../electron/local-service/imagery/photo-writer';
import { JIMP_IMAGES } from '../../support/labelled-photos';
import { probe as probeHealth, type Probes } from '../../support/health-probes';
import { BACKEND, startHarness, type Harness } from './harness';

/** A car park, two figurines and a 3.3 MP photo of hands, geotagged: the detectors and the text reader run on each. */
function writeFolder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'fl-perception-load-'));
  const put = (file: string, width: number, height: number) =>
    writeFileSync(
      join(dir, file),
      tagJpeg(readFileSync(join(JIMP_IMAGES, file)), { width, height, latitude: 45.76, longitude: 4.84, takenAt: '2024:05:01 10:00:00', make: 'TestCam' }),
    );
  put('fillbytes.jpg', 704, 576);
  put('cops.jpg', 640, 426);
  put('hands.jpg', 2376, 1408);
  return dir;
}

describe(`the service while its photos are looked at (${BACKEND})`, () => {
  let dir: string;
  let h: Harness;
  let url: string;
  beforeAll(async () => {
    dir = writeFolder();
    h = await startHarness(
      {
        photoDirs: [dir],
        perception: { workers: 1 },
        routes: (base) => base.get('/health', { config: { auth: false } }, async () => ({ ok: true })),
      },
      // As the service opens its database: a commit in WAL mode is not synced to disk on its own.
      { sqlite: (db) => db.pragma('synchronous = NORMAL') },
    );
    url = await h.base.listen({ host: '127.0.0.1', port: 0 });
    // The client's first request opens its connection: not a probe.
    await (await fetch(`${url}/health`)).arrayBuffer();
  }, 60_000);
  afterAll(async () => {
    await h?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  // Each probe's time less this thread's waits for a core (the machine's doing); both are printed.
  const probe = (until: () => boolean) => probeHealth(`${url}/health`, until);
  const at = (l: number[], q: number) => l[Math.floor((l.length - 1) * q)]!;
  const stats = ({ held: l, raw, heldLessGc }: Probes) => ({
    n: l.length,
    p50: at(l, 0.5),
    p95: at(l, 0.95),
    max: l.at(-1)!,
    second: l.at(-2) ?? 0,
    rawP95: at(raw, 0.95),
    rawMax: raw.at(-1)!,
    lessGcMax: heldLessGc.at(-1)!,
    lessGcSecond: heldLessGc.at(-2) ?? 0,
  });

  it('answers /health promptly while the detectors run, as it does with none running', { timeout: 150_000 }, async () => {
    // Collections of this thread's heap and the loop's longest delay, printed beside the probes, so
    // a slow probe can be told from a pause of the heap or a wait for a core.
    let gcMax = 0;
    const gc = new PerformanceObserver((list) => {
      for (const e of list.getEntries()) gcMax = Math.max(gcMax, e.duration);
    });
    gc.observe({ entryTypes: ['gc'] });
    const loop = monitorEventLoopDelay({ resolution: 10 });
    loop.enable();
    const t0 = performance.now();
    const running = () => {
      const p = h.plugin.perception()!;
      return p.state === 'running' || p.done < 3;
    };
    const during = stats(await probe(() => !running() || performance.now() - t0 > 100_000));
    const ms = performance.now() - t0;
    loop.disable();
    gc.disconnect();
    const p = h.plugin.perception()!;
    expect(p).toMatchObject({ state: 'idle', done: 3, failed: 0 });
    // The same probes with nothing to look at: on a shared machine the scheduler alone stalls a
    // probe now and then, and such a stall is not the detectors' doing.
    // As many probes, or 20 s of them when the detectors were slow on a busy machine.
    let budget = during.n;
    const c0 = performance.now();
    const control = stats(await probe(() => budget-- <= 0 || performance.now() - c0 > 20_000));
    const f = (x: number) => x.toFixed(1);
    process.stdout.write(
      `3 photos looked at in ${Math.round(ms)} ms; /health meanwhile: ${during.n} probes, p50 ${f(during.p50)} ms, p95 ${f(during.p95)} ms, worst two ${f(during.second)} and ${f(during.max)} ms (less collections of the heap: ${f(during.lessGcSecond)} and ${f(during.lessGcMax)} ms; as measured, waits for a core included: p95 ${f(during.rawP95)}, worst ${f(during.rawMax)} ms); longest collection ${f(gcMax)} ms, event loop max ${f(loop.max / 1e6)} ms; control: p50 ${f(control.p50)} ms, p95 ${f(control.p95)} ms, max ${f(control.max)} ms (less collections ${f(control.lessGcMax)}, as measured ${f(control.rawMax)} ms)\n`,
    );
    // A probe every 20 ms or so throughout: the service's thread was not held while the workers ran.
    expect(during.n).toBeGreaterThan(ms / 200);
    expect(during.p50).toBeLessThan(control.p50 + 25);
    expect(during.p95).toBeLessThan(control.p95 + 50);
    // Waits for a core and collections of the heap (the test's and the service's: one process;
    // on a busy machine a major collection's helpers wait for cores, 40 ms becoming 275 ms) left
    // out, at most one probe past the control's worst by more than 150 ms. How often collections
    // land in probes is still judged by the p50 and p95 above, which keep them.
    expect(during.lessGcSecond).toBeLessThan(control.lessGcMax + 150);
  });
});
