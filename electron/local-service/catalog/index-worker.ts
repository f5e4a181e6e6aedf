import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import KDBush from 'kdbush';

/**
 * Builds KDBush indexes of large point sets on a worker thread: sorting 300,000 uploaded points
 * into the tree takes 100-300 ms that would otherwise hold every other request. The worker gets
 * the coordinates (transferred, not copied) and hands back the index bytes, which KDBush.from
 * opens without any work. Plain CommonJS evaluated in place, so it needs no build step; kdbush
 * is an ES module, loaded by its resolved path.
 */
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const ready = import(workerData.kdbush).then((m) => m.default);
parentPort.on('message', async ({ id, lon, lat }) => {
  try {
    const KDBush = await ready;
    const n = lon.length;
    const index = new KDBush(Math.max(n, 1));
    for (let i = 0; i < n; i++) index.add(lon[i], lat[i]);
    if (!n) index.add(0, 0);
    index.finish();
    parentPort.postMessage({ id, data: index.data }, [index.data]);
  } catch (e) {
    parentPort.postMessage({ id, error: String(e && e.stack || e) });
  }
});
`;

export interface PointIndexer {
  /** A finished index of the points (item i at lon[i], lat[i]); the arrays stay the caller's. */
  build(lon: Float64Array, lat: Float64Array): Promise<KDBush>;
  close(): Promise<void>;
}

/** The index built on this thread: what the worker does, for when it cannot run. */
export function buildIndexHere(lon: Float64Array, lat: Float64Array): KDBush {
  const n = lon.length;
  const index = new KDBush(Math.max(n, 1));
  for (let i = 0; i < n; i++) index.add(lon[i]!, lat[i]!);
  if (!n) index.add(0, 0);
  index.finish();
  return index;
}

/**
 * One worker, started on the first build and kept (unref'd) for the next. When it cannot start
 * or dies, builds run on this thread: slower for other requests, never a failed request.
 */
export function createPointIndexer(onError: (e: unknown) => void): PointIndexer {
  let worker: Worker | null = null;
  let broken = false;
  let closing = false;
  let next = 0;
  const waiting = new Map<number, { ok: (k: KDBush) => void; fail: (e: Error) => void; lon: Float64Array; lat: Float64Array }>();

  const failAll = (e: unknown) => {
    if (!closing) onError(e);
    broken = true;
    worker = null;
    // The arrays went to the dead worker; the waiting builds are answered from copies kept below.
    for (const [id, w] of waiting) {
      waiting.delete(id);
      w.ok(buildIndexHere(w.lon, w.lat));
    }
  };

  const start = (): Worker | null => {
    if (worker || broken) return worker;
    try {
      const kdbush = pathToFileURL(createRequire(import.meta.url).resolve('kdbush')).href;
      worker = new Worker(WORKER, { eval: true, workerData: { kdbush } });
    } catch (e) {
      failAll(e);
      return null;
    }
    worker.on('message', (m: { id: number; data?: ArrayBuffer; error?: string }) => {
      const w = waiting.get(m.id);
      if (!w) return;
      waiting.delete(m.id);
      if (m.data) w.ok(KDBush.from(m.data));
      else w.fail(new Error(m.error ?? 'index build failed'));
      if (!waiting.size) worker?.unref();
    });
    worker.on('error', failAll);
    worker.on('exit', (code) => {
      if (waiting.size) failAll(new Error(`index worker exited with code ${code}`));
      worker = null;
    });
    worker.unref();
    return worker;
  };

  return {
    build(lon, lat) {
      const w = start();
      if (!w) return Promise.resolve(buildIndexHere(lon, lat));
      const id = next++;
      return new Promise((ok, fail) => {
        // Shared memory is read in place; else copies are sent and the originals kept: a worker
        // that dies mid-build is replaced by this thread.
        const shared = lon.buffer instanceof SharedArrayBuffer && lat.buffer instanceof SharedArrayBuffer;
        const wlon = shared ? lon : lon.slice();
        const wlat = shared ? lat : lat.slice();
        waiting.set(id, { ok, fail, lon, lat });
        w.ref();
        w.postMessage({ id, lon: wlon, lat: wlat }, shared ? [] : [wlon.buffer as ArrayBuffer, wlat.buffer as ArrayBuffer]);
      });
    },
    async close() {
      const w = worker;
      worker = null;
      broken = closing = true;
      if (w) await w.terminate();
    },
  };
}
