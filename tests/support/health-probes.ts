import { readFileSync } from 'node:fs';
import { PerformanceObserver } from 'node:perf_hooks';

/**
 * Milliseconds this process's main thread has spent runnable but waiting for a core
 * (/proc/<pid>/task/<pid>/schedstat, second field, in ns); 0 where the kernel does not say.
 */
export function runqueueWaitMs(): number {
  try {
    return Number(readFileSync(`/proc/${process.pid}/task/${process.pid}/schedstat`, 'utf8').split(' ')[1]) / 1e6;
  } catch {
    return 0;
  }
}

/**
 * Probe times, sorted: as measured (`raw`), less this thread's waits for a core (`held`), and that
 * less the garbage collections of this process's heap the probe waited through (`heldLessGc`).
 */
export interface Probes {
  held: number[];
  raw: number[];
  heldLessGc: number[];
}

/**
 * Asks `url` every 20 ms or so until `until()`. Timing tests judge `held`: with other jobs on both
 * cores the wait for a core alone reaches hundreds of ms, and it is the machine's, not the code's
 * under test (the service runs in this process's thread). A probe other than 200 throws.
 */
export async function probe(url: string, until: () => boolean): Promise<Probes> {
  const held: number[] = [];
  const raw: number[] = [];
  const windows: [start: number, end: number, held: number][] = [];
  // A collection's helper threads wait for cores too, and that wait is in no runqueue figure of
  // this thread: the pauses are read from V8's own record instead.
  const pauses: [start: number, end: number][] = [];
  const gc = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) pauses.push([e.startTime, e.startTime + e.duration]);
  });
  gc.observe({ entryTypes: ['gc'] });
  try {
    while (!until()) {
      const w = runqueueWaitMs();
      const t = performance.now();
      const res = await fetch(url);
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`${url} answered ${res.status}`);
      const end = performance.now();
      const ms = end - t;
      raw.push(ms);
      held.push(ms - (runqueueWaitMs() - w));
      windows.push([t, end, held.at(-1)!]);
      await new Promise((ok) => setTimeout(ok, 20));
    }
    // The observer reports after the fact: let the last entries arrive.
    await new Promise((ok) => setTimeout(ok, 50));
  } finally {
    gc.disconnect();
  }
  const heldLessGc = windows.map(([t, end, h]) => {
    let paused = 0;
    for (const [a, b] of pauses) paused += Math.max(0, Math.min(b, end) - Math.max(a, t));
    return Math.max(0, h - paused);
  });
  const up = (a: number, b: number) => a - b;
  return { held: held.sort(up), raw: raw.sort(up), heldLessGc: heldLessGc.sort(up) };
}
