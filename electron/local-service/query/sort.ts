import type { KindLayer } from '../catalog/kinds/registry';
import type { Item } from './item';

/** Millimetres up to 2^35 (34,000 km) cover every great-circle distance. */
const MM_BITS = 35;
const byDistance = (a: Item, b: Item) => (a.d ?? Infinity) - (b.d ?? Infinity) || a.i - b.i;

/**
 * Nearest first, ties by item number. Large sets sort one packed number per item (distance in
 * steps of 1 mm, or coarser when item numbers need more than 18 of the 53 bits, times 2^bits
 * plus the item number) with the native numeric sort, several times faster than a comparator
 * over objects; one insertion pass then orders the items that share a step exactly.
 */
export function sortByDistance(items: Item[]): void {
  const n = items.length;
  let maxI = 0;
  for (let j = 0; j < n; j++) if (items[j]!.i > maxI) maxI = items[j]!.i;
  const iBits = Math.max(18, Math.ceil(Math.log2(maxI + 1)));
  if (n < 2000 || iBits > 24) {
    items.sort(byDistance);
    return;
  }
  const scale = 2 ** iBits;
  const stepMm = 2 ** Math.max(0, MM_BITS - (53 - iBits));
  const maxStep = 2 ** (53 - iBits) - 1;
  const keys = new Float64Array(n);
  const at = new Int32Array(maxI + 1);
  for (let j = 0; j < n; j++) {
    const x = items[j]!;
    const step = x.d === undefined ? maxStep : Math.min(maxStep, Math.floor((x.d * 1000) / stepMm));
    keys[j] = step * scale + x.i;
    at[x.i] = j;
  }
  keys.sort();
  const copy = items.slice();
  for (let j = 0; j < n; j++) items[j] = copy[at[keys[j]! % scale]!]!;
  // Within one step the packed order is by item number; the exact distances decide.
  for (let j = 1; j < n; j++) {
    const x = items[j]!;
    let k = j - 1;
    if (byDistance(items[k]!, x) <= 0) continue;
    while (k >= 0 && byDistance(items[k]!, x) > 0) {
      items[k + 1] = items[k]!;
      k--;
    }
    items[k + 1] = x;
  }
}

/** A kind's own order of results when none was asked for (its entry's `order` columns). */
export function defaultOrder(K: KindLayer): (a: number, b: number) => number {
  const keys = (K.entry.order ?? []).map((o) => ({ col: K.cols[o.column]!, sign: o.desc ? -1 : 1 }));
  return (a, b) => {
    for (const { col, sign } of keys) {
      const x = col[a];
      const y = col[b];
      if (x === y) continue;
      const c = typeof x === 'number' && typeof y === 'number' ? x - y : String(x) < String(y) ? -1 : 1;
      return c * sign;
    }
    return a - b;
  };
}
