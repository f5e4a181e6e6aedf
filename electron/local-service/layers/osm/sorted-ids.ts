/** The index of the last of the first `count` ascending values that is at most `id`, or -1. */
export function lastAtMost(sorted: ArrayLike<number>, count: number, id: number): number {
  let lo = 0;
  let hi = count - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! <= id) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}
