import type { KindLayer } from '../catalog/kinds/registry';
import type { Item } from './execute';

const I_BITS = 2 ** 18;
const MAX_MM = 2 ** 35 - 1;

/**
 * Nearest first, ties by item number. Large sets sort one packed number per item
 * (millimetres * 2^18 + item number) with the native numeric sort, several times faster than
 * a comparator over objects; sets whose numbers do not fit use the comparator.
 */
export function sortByDistance(items: Item[]): void {
  const n = items.length;
  let maxI = 0;
  for (let j = 0; j < n; j++) if (items[j]!.i > maxI) maxI = items[j]!.i;
  if (n < 2000 || maxI >= I_BITS) {
    items.sort((a, b) => (a.d ?? Infinity) - (b.d ?? Infinity) || a.i - b.i);
    return;
  }
  const keys = new Float64Array(n);
  const at = new Int32Array(maxI + 1);
  for (let j = 0; j < n; j++) {
    const x = items[j]!;
    const mm = x.d === undefined ? MAX_MM : Math.min(MAX_MM, Math.round(x.d * 1000));
    keys[j] = mm * I_BITS + x.i;
    at[x.i] = j;
  }
  keys.sort();
  const copy = items.slice();
  for (let j = 0; j < n; j++) items[j] = copy[at[keys[j]! % I_BITS]!]!;
}


/** A kind's own order of results when none was asked for (its entry's `order` columns). */
export function defaultOrder(K: KindLayer): (a: Item, b: Item) => number {
  const keys = (K.entry.order ?? []).map((o) => ({ col: K.cols[o.column]!, sign: o.desc ? -1 : 1 }));
  return (a, b) => {
    for (const { col, sign } of keys) {
      const x = col[a.i];
      const y = col[b.i];
      if (x === y) continue;
      const c = typeof x === 'number' && typeof y === 'number' ? x - y : String(x) < String(y) ? -1 : 1;
      return c * sign;
    }
    return a.i - b.i;
  };
}
