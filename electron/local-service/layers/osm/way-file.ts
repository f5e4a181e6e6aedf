import { closeSync, openSync, readSync, writeSync } from 'node:fs';
import { lastAtMost } from './sorted-ids';

/**
 * Way geometries past the memory budget, in a scratch file, for the relations that follow: ways
 * come in id order, so they are appended to pages of 64 KB (each way: its id as two i32, its
 * node count, then lon, lat pairs in 1e-7 degrees; a zero count ends a page) and found by a
 * binary search over the pages' first ids, then a walk along the page. Only relations read them
 * back, a few times per thousand ways; a SQLite insert per way cost more than the rest of the
 * way's assembly.
 */

const PAGE_INTS = 1 << 14;
/** Pages kept in memory after reading (64 KB each). */
const CACHED_PAGES = 16;
const HI = 2 ** 32;

export class WayFile {
  private fd: number | null = null;
  private firsts = new Float64Array(256);
  private pages = 0;
  private tail = new Int32Array(PAGE_INTS);
  private used = 0;
  /** Id of the first way in the page being filled. */
  private firstOfTail = 0;
  private readonly cache = new Map<number, Int32Array>();
  lastId = -Infinity;

  constructor(private readonly path: () => string) {}

  /** Whether a way of `n` nodes with this id can be appended (ids ascending, one page at most). */
  fits(id: number, n: number): boolean {
    return id > this.lastId && 3 + 2 * n <= PAGE_INTS && id < HI * HI;
  }

  /** Appends a way whose node coordinates are the first `n` of `lon` and `lat`. */
  append(id: number, lon: Int32Array, lat: Int32Array, n: number): void {
    const need = 3 + 2 * n;
    if (this.used + need > PAGE_INTS) this.writeTail();
    const t = this.tail;
    let o = this.used;
    if (o === 0) this.firstOfTail = id;
    t[o++] = id % HI | 0;
    t[o++] = Math.floor(id / HI);
    t[o++] = n;
    for (let i = 0; i < n; i++) {
      t[o++] = lon[i]!;
      t[o++] = lat[i]!;
    }
    this.used = o;
    this.lastId = id;
  }

  private writeTail(): void {
    this.tail.fill(0, this.used);
    this.fd ??= openSync(this.path(), 'w+');
    writeSync(this.fd, this.tail, 0, PAGE_INTS * 4, this.pages * PAGE_INTS * 4);
    if (this.pages === this.firsts.length) {
      const grown = new Float64Array(this.firsts.length * 2);
      grown.set(this.firsts);
      this.firsts = grown;
    }
    this.firsts[this.pages++] = this.firstOfTail;
    this.used = 0;
  }

  /** The way's coordinates (lon, lat pairs), or null when the file does not hold it. */
  get(id: number): Int32Array | null {
    if (id > this.lastId) return null;
    let page: Int32Array;
    if (this.used && id >= this.firstOfTail) page = this.tail;
    else {
      const pi = lastAtMost(this.firsts, this.pages, id);
      if (pi < 0) return null;
      page = this.read(pi);
    }
    const end = page === this.tail ? this.used : PAGE_INTS;
    for (let o = 0; o + 3 <= end; ) {
      const n = page[o + 2]!;
      if (n === 0) break;
      const at = (page[o]! >>> 0) + page[o + 1]! * HI;
      if (at === id) return page.slice(o + 3, o + 3 + 2 * n);
      if (at > id) break;
      o += 3 + 2 * n;
    }
    return null;
  }

  private read(pi: number): Int32Array {
    const hit = this.cache.get(pi);
    if (hit) return hit;
    let page: Int32Array;
    if (this.cache.size >= CACHED_PAGES) {
      const [oldest, p] = this.cache.entries().next().value as [number, Int32Array];
      this.cache.delete(oldest);
      page = p;
    } else page = new Int32Array(PAGE_INTS);
    readSync(this.fd!, page, 0, PAGE_INTS * 4, pi * PAGE_INTS * 4);
    this.cache.set(pi, page);
    return page;
  }

  close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
    this.cache.clear();
  }
}
