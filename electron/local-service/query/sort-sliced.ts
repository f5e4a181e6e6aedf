import type { Slicer } from '../upload/slice';

/** Elements sorted at once: a native sort of this many takes some tens of milliseconds. */
const RUN = 1 << 16;
/** Elements merged between two looks at the slicer's clock. */
const STEP = 1 << 14;

type Sortable = Float64Array | Uint32Array;

/**
 * Sorts in place (numeric order, or by `compare`) in slices: runs of RUN sorted natively, then
 * merged pairwise, pausing between slices, so millions of keys never hold the thread for seconds.
 * Without a slicer it is one native sort.
 */
export async function sortSliced<A extends Sortable>(a: A, compare?: (x: number, y: number) => number, slice?: Slicer): Promise<void> {
  const n = a.length;
  if (!slice || n <= RUN) {
    a.sort(compare);
    return;
  }
  const cmp = compare ?? ((x: number, y: number) => (x < y ? -1 : x > y ? 1 : 0));
  for (let s = 0; s < n; s += RUN) {
    a.subarray(s, Math.min(n, s + RUN)).sort(compare);
    if (slice.due()) await slice.pause();
  }
  let src: Sortable = a;
  let dst: Sortable = new (a.constructor as { new (n: number): Sortable })(n);
  let done = 0;
  for (let width = RUN; width < n; width *= 2) {
    for (let lo = 0; lo < n; lo += 2 * width) {
      const mid = Math.min(n, lo + width);
      const hi = Math.min(n, lo + 2 * width);
      let i = lo;
      let j = mid;
      let k = lo;
      while (i < mid && j < hi) {
        dst[k++] = cmp(src[j]!, src[i]!) < 0 ? src[j++]! : src[i++]!;
        if (++done % STEP === 0 && slice.due()) await slice.pause();
      }
      while (i < mid) dst[k++] = src[i++]!;
      while (j < hi) dst[k++] = src[j++]!;
    }
    [src, dst] = [dst, src];
    if (slice.due()) await slice.pause();
  }
  if (src !== a) a.set(src as never);
}
