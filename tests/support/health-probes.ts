import { readFileSync } from 'node:fs';

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

/** Probe times, sorted: as measured (`raw`), and less this thread's waits for a core (`held`). */
export interface Probes {
  held: number[];
  raw: number[];
}

/**
 * Asks `url` every 20 ms or so until `until()`. Timing tests judge `held`: with other jobs on both
 * cores the wait for a core alone reaches hundreds of ms, and it is the machine's, not the code's
 * under test (the service runs in this process's thread). A probe other than 200 throws.
 */
export async function probe(url: string, until: () => boolean): Promise<Probes> {
  const held: number[] = [];
  const raw: number[] = [];
  while (!until()) {
    const w = runqueueWaitMs();
    const t = performance.now();
    const res = await fetch(url);
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`${url} answered ${res.status}`);
    const ms = performance.now() - t;
    raw.push(ms);
    held.push(ms - (runqueueWaitMs() - w));
    await new Promise((ok) => setTimeout(ok, 20));
  }
  return { held: held.sort((a, b) => a - b), raw: raw.sort((a, b) => a - b) };
}
