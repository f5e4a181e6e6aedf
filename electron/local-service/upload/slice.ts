import { setImmediate as nextTurn } from 'node:timers/promises';

/**
 * Cuts long synchronous work into slices of at most `budgetMs`: between slices the event loop
 * answers other requests (a 10 MB upload otherwise held `/health` for seconds).
 */
export interface Slicer {
  /** True when the current slice has used its budget. */
  due(): boolean;
  /** Lets the event loop run, then starts a new slice. */
  pause(): Promise<void>;
}

export function createSlicer(budgetMs = 8): Slicer {
  let start = performance.now();
  return {
    due: () => performance.now() - start > budgetMs,
    async pause() {
      await nextTurn();
      start = performance.now();
    },
  };
}
