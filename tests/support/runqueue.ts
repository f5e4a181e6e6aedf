import { readFileSync } from 'node:fs';

/**
 * Milliseconds this process's main thread has spent runnable but waiting for a core
 * (/proc/<pid>/task/<pid>/schedstat, second field, in ns); 0 where the kernel does not say.
 * Timing tests subtract it from a request's time: with other jobs on both cores that wait alone
 * reaches hundreds of ms, and it is the machine's, not the code's under test.
 */
export function runqueueWaitMs(): number {
  try {
    return Number(readFileSync(`/proc/${process.pid}/task/${process.pid}/schedstat`, 'utf8').split(' ')[1]) / 1e6;
  } catch {
    return 0;
  }
}
