/** The timer functions a batch waits with (the page's own by default; tests pass fakes). */
export interface BatchTimers {
  setTimeout: (run: () => void, ms: number) => unknown;
  clearTimeout: (handle: unknown) => void;
}

export interface TileBatch {
  /**
   * Starts `load`; its result goes to `apply` (or its failure to `fail`) together with the other
   * tiles of its batch: once no tile is on its way, or `maxWaitMs` after the batch's first result.
   */
  add<T>(load: () => Promise<T>, apply: (value: T) => void, fail: () => void): void;
}

/**
 * Hands a view's tiles to the map together rather than one by one. A vector tile layer redraws
 * once per tile that arrives, and each redraw lays out the labels of every tile shown again
 * (declutter), so nine tiles arriving one after another cost some forty label passes before the
 * first complete frame; in one batch they cost one. A batch waits at most `maxWaitMs`, so one slow
 * tile does not hold back the rest of a view.
 */
export function createTileBatch(maxWaitMs: number, timers: BatchTimers = { setTimeout: (r, ms) => setTimeout(r, ms), clearTimeout: (h) => clearTimeout(h as number) }): TileBatch {
  let onTheirWay = 0;
  let held: (() => void)[] = [];
  let timer: unknown = null;

  const flush = () => {
    if (timer !== null) timers.clearTimeout(timer);
    timer = null;
    const now = held;
    held = [];
    for (const run of now) run();
  };

  const settle = (run: () => void) => {
    onTheirWay--;
    held.push(run);
    if (onTheirWay === 0) flush();
    else if (timer === null) timer = timers.setTimeout(flush, maxWaitMs);
  };

  return {
    add(load, apply, fail) {
      onTheirWay++;
      let started;
      try {
        started = load();
      } catch {
        started = Promise.reject(new Error('tile load threw'));
      }
      started.then(
        (value) => settle(() => apply(value)),
        () => settle(fail),
      );
    },
  };
}
