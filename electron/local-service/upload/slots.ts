/**
 * A first-come queue of `n` places: what holds one runs, the others wait their turn. The uploads
 * of a request are read and answered while it holds a place, so the features held at once (a
 * 20 MiB CSV is about 200 MB of them) are bounded by the places, not by the upload budget, which
 * only bounds bytes waiting on disk.
 */
export interface Slots {
  /** Resolves with the function that gives the place back (calling it twice gives back once). */
  take(): Promise<() => void>;
  readonly waiting: number;
}

export function createSlots(n: number): Slots {
  let free = Math.max(1, n);
  const queue: (() => void)[] = [];
  const give = () => {
    const next = queue.shift();
    if (next) next();
    else free++;
  };
  return {
    async take() {
      if (free > 0) free--;
      else await new Promise<void>((ok) => queue.push(ok));
      let given = false;
      return () => {
        if (given) return;
        given = true;
        give();
      };
    },
    get waiting() {
      return queue.length;
    },
  };
}
