import type { Kind } from '../catalog/catalog';
import type { Slicer } from '../upload/slice';
import type { Item } from './item';
import { sortSliced } from './sort-sliced';

/**
 * Results as the executor and the saved set hold them: an array of items, or CompactItems. Both
 * answer these; an Item is made only for what is read (a page, the written answer's first few).
 */
export interface ItemList {
  readonly length: number;
  at(j: number): Item | undefined;
  slice(start?: number, end?: number): Item[];
  some(test: (x: Item) => boolean): boolean;
  [Symbol.iterator](): Iterator<Item>;
}

/** Millimetres up to 2^35 (34,000 km) cover every great-circle distance. */
const MM_BITS = 35;

/**
 * Items of one kind, each only its number and perhaps a distance, held as typed arrays: millions
 * of uploaded rows take 4 bytes each (12 with distances) where an object each took some 40.
 * Numbers are distinct, as a source's features are.
 */
export class CompactItems implements ItemList {
  readonly k: Kind;
  private idx: Int32Array;
  private dist: Float64Array | null = null;
  private n = 0;

  /** Room for `capacity` items (the candidates' count bounds them). */
  constructor(k: Kind, capacity: number) {
    this.k = k;
    this.idx = new Int32Array(Math.max(capacity, 1));
  }

  get length(): number {
    return this.n;
  }

  /** Whether any item carries a distance. */
  get hasDistances(): boolean {
    return this.dist !== null;
  }

  push(i: number, d?: number): void {
    if (this.n === this.idx.length) this.grow();
    if (d !== undefined && !this.dist) this.dist = new Float64Array(this.idx.length).fill(NaN);
    this.idx[this.n] = i;
    if (this.dist) this.dist[this.n] = d ?? NaN;
    this.n++;
  }

  private grow(): void {
    const idx = new Int32Array(this.idx.length * 2);
    idx.set(this.idx);
    this.idx = idx;
    if (this.dist) {
      const dist = new Float64Array(idx.length).fill(NaN);
      dist.set(this.dist);
      this.dist = dist;
    }
  }

  /** Number of the j-th item. */
  index(j: number): number {
    return this.idx[j]!;
  }

  /** Distance of the j-th item in meters, undefined when it has none. */
  distance(j: number): number | undefined {
    const d = this.dist?.[j];
    return d === undefined || Number.isNaN(d) ? undefined : d;
  }

  /** The numbers, in order (a view, not a copy). */
  indices(): Int32Array {
    return this.idx.subarray(0, this.n);
  }

  /** The distances, NaN for none, in order (a view), or null when no item has one. */
  distances(): Float64Array | null {
    return this.dist?.subarray(0, this.n) ?? null;
  }

  at(j: number): Item | undefined {
    if (j < 0) j += this.n;
    if (j < 0 || j >= this.n) return undefined;
    const x: Item = { k: this.k, i: this.idx[j]! };
    const d = this.distance(j);
    if (d !== undefined) x.d = d;
    return x;
  }

  slice(start = 0, end = this.n): Item[] {
    const from = Math.max(0, start < 0 ? start + this.n : start);
    const to = Math.min(this.n, end < 0 ? end + this.n : end);
    const out: Item[] = [];
    for (let j = from; j < to; j++) out.push(this.at(j)!);
    return out;
  }

  some(test: (x: Item) => boolean): boolean {
    for (let j = 0; j < this.n; j++) if (test(this.at(j)!)) return true;
    return false;
  }

  *[Symbol.iterator](): Iterator<Item> {
    for (let j = 0; j < this.n; j++) yield this.at(j)!;
  }

  /** Keeps the first n. */
  truncate(n: number): void {
    if (n < this.n) this.n = n;
  }

  /**
   * Ordered by a number per item (NaN last), ties by item number: one packed key per item (the
   * number's rank, then the item number) sorted natively, several times faster than a comparator.
   */
  async sortBy(value: (j: number) => number, desc = false, slice?: Slicer): Promise<void> {
    const n = this.n;
    if (n < 2) return;
    const vals = new Float64Array(n);
    let sorted = true;
    for (let j = 0; j < n; j++) {
      if (slice && (j & 4095) === 4095 && slice.due()) await slice.pause();
      const v = value(j);
      vals[j] = Number.isNaN(v) ? Infinity : desc ? -v : v;
      if (j && (vals[j]! < vals[j - 1]! || (vals[j] === vals[j - 1] && this.idx[j]! < this.idx[j - 1]!))) sorted = false;
    }
    if (sorted) return;
    // NaN last either way: a value is ranked among the distinct values, then packed with its position.
    const order = new Uint32Array(n);
    for (let j = 0; j < n; j++) order[j] = j;
    const idx = this.idx;
    await sortSliced(order, (a, b) => vals[a]! - vals[b]! || (vals[a] === vals[b] ? 0 : vals[a]! < vals[b]! ? -1 : 1) || idx[a]! - idx[b]!, slice);
    await this.permute(order, slice);
  }

  /** Nearest first, none last; with `desc` the reverse (none first); ties by item number. */
  async sortByDistance(desc = false, slice?: Slicer): Promise<void> {
    const d = this.dist;
    if (!d) return this.sortBy(() => 0, false, slice);
    const far = (j: number) => (Number.isNaN(d[j]!) ? (desc ? Infinity : NaN) : d[j]!);
    // Large sets: distance in steps of 1 mm packed with the item number, sorted natively, then
    // one insertion pass orders the items that share a step.
    let maxI = 0;
    for (let j = 0; j < this.n; j++) if (this.idx[j]! > maxI) maxI = this.idx[j]!;
    const iBits = Math.max(18, Math.ceil(Math.log2(maxI + 1)));
    if (this.n < 2000 || iBits > 24) return this.sortBy(far, desc, slice);
    const n = this.n;
    const scale = 2 ** iBits;
    const stepMm = 2 ** Math.max(0, MM_BITS - (53 - iBits));
    const maxStep = 2 ** (53 - iBits) - 1;
    const keys = new Float64Array(n);
    const at = new Int32Array(maxI + 1);
    for (let j = 0; j < n; j++) {
      if (slice && (j & 4095) === 4095 && slice.due()) await slice.pause();
      const x = d[j]!;
      const step = Number.isNaN(x) ? maxStep : Math.min(maxStep - 1, Math.floor((x * 1000) / stepMm));
      keys[j] = (desc ? maxStep - step : step) * scale + this.idx[j]!;
      at[this.idx[j]!] = j;
    }
    await sortSliced(keys, undefined, slice);
    const order = new Uint32Array(n);
    for (let j = 0; j < n; j++) order[j] = at[keys[j]! % scale]!;
    await this.permute(order, slice);
    const idx = this.idx;
    const dist = this.dist!;
    const key = (j: number) => {
      const x = Number.isNaN(dist[j]!) ? Infinity : dist[j]!;
      return desc ? -x : x;
    };
    for (let j = 1; j < n; j++) {
      if (slice && (j & 4095) === 4095 && slice.due()) await slice.pause();
      const ki = key(j);
      const xi = idx[j]!;
      const xd = dist[j]!;
      let k = j - 1;
      while (k >= 0 && (key(k) > ki || (key(k) === ki && idx[k]! > xi))) {
        idx[k + 1] = idx[k]!;
        dist[k + 1] = dist[k]!;
        k--;
      }
      idx[k + 1] = xi;
      dist[k + 1] = xd;
    }
  }

  /** Puts the item at order[j] in place j. */
  private async permute(order: Uint32Array, slice?: Slicer): Promise<void> {
    const n = this.n;
    const idx = new Int32Array(n);
    for (let j = 0; j < n; j++) {
      idx[j] = this.idx[order[j]!]!;
      if (slice && (j & 16383) === 16383 && slice.due()) await slice.pause();
    }
    const dist = this.dist && new Float64Array(n);
    if (dist)
      for (let j = 0; j < n; j++) {
        dist[j] = this.dist![order[j]!]!;
        if (slice && (j & 16383) === 16383 && slice.due()) await slice.pause();
      }
    this.idx = idx;
    this.dist = dist;
  }
}

/** The numbers of the items of one kind, in order. */
export function indicesOf(items: ItemList, k: Kind): number[] {
  if (items instanceof CompactItems) return items.k === k ? Array.from(items.indices()) : [];
  const out: number[] = [];
  for (const x of items) if (x.k === k) out.push(x.i);
  return out;
}
