import { closeSync, openSync, readSync, writeSync } from 'node:fs';
import { lastAtMost } from './sorted-ids';

/**
 * Node locations past the memory budget, in a scratch file: nodes come in id order, so they are
 * appended in pages of PAGE nodes (f64 ids, then i32 lons and lats in 1e-7 degrees: 16 KB a page)
 * and found by a binary search over the pages' first ids (8 bytes a page held in memory), then
 * within the page. Recently read pages stay in a small cache: a way's nodes are usually close in
 * the file. A SQLite table (one B-tree insert and one probe a node) made a 50,000,000-node import
 * spend most of its time there and its page cache grow past the memory bound.
 */

const PAGE = 1024;
const PAGE_BYTES = PAGE * 16;
/** Pages kept in memory after reading (16 KB each: 4 MB). */
const CACHED_PAGES = 256;

interface Page {
  bytes: Uint8Array;
  ids: Float64Array;
  lons: Int32Array;
  lats: Int32Array;
}

const newPage = (): Page => {
  const buf = new ArrayBuffer(PAGE_BYTES);
  return { bytes: new Uint8Array(buf), ids: new Float64Array(buf, 0, PAGE), lons: new Int32Array(buf, PAGE * 8, PAGE), lats: new Int32Array(buf, PAGE * 12, PAGE) };
};

export class NodeFile {
  private fd: number | null = null;
  /** First id of each page written to the file. */
  private firsts = new Float64Array(1024);
  private pages = 0;
  /** The page being filled, not yet written. */
  private tail = newPage();
  private tailCount = 0;
  private readonly cache = new Map<number, Page>();
  private hintPage = -1;
  private hintAt = 0;
  count = 0;
  lastId = -Infinity;

  constructor(private readonly path: () => string) {}

  /** A node whose id is above every id added before. */
  append(id: number, lon: number, lat: number): void {
    const t = this.tail;
    t.ids[this.tailCount] = id;
    t.lons[this.tailCount] = lon;
    t.lats[this.tailCount] = lat;
    this.count++;
    this.lastId = id;
    if (++this.tailCount === PAGE) this.writeTail();
  }

  private writeTail(): void {
    this.fd ??= openSync(this.path(), 'w+');
    writeSync(this.fd, this.tail.bytes, 0, PAGE_BYTES, this.pages * PAGE_BYTES);
    if (this.pages === this.firsts.length) {
      const grown = new Float64Array(this.firsts.length * 2);
      grown.set(this.firsts);
      this.firsts = grown;
    }
    this.firsts[this.pages++] = this.tail.ids[0]!;
    this.tailCount = 0;
  }

  /** Writes [lon, lat] of a node into `out` at `at`; false when the file holds no such node. */
  find(id: number, lons: Int32Array, lats: Int32Array, at: number): boolean {
    if (!this.count || id > this.lastId) return false;
    // The node after the last one found: consecutive nodes of a way need no search.
    if (this.hintPage >= 0) {
      const p = this.hintPage === this.pages ? this.tail : this.cache.get(this.hintPage);
      if (p && this.hintAt < (this.hintPage === this.pages ? this.tailCount : PAGE) && p.ids[this.hintAt] === id) {
        lons[at] = p.lons[this.hintAt]!;
        lats[at] = p.lats[this.hintAt]!;
        this.hintAt++;
        return true;
      }
    }
    let page: Page;
    let n: number;
    let pi: number;
    if (this.tailCount && id >= this.tail.ids[0]!) {
      page = this.tail;
      n = this.tailCount;
      pi = this.pages;
    } else {
      pi = this.pageOf(id);
      if (pi < 0) return false;
      page = this.read(pi);
      n = PAGE;
    }
    const ids = page.ids;
    let lo = 0;
    let hi = n - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const v = ids[mid]!;
      if (v === id) {
        lons[at] = page.lons[mid]!;
        lats[at] = page.lats[mid]!;
        this.hintPage = pi;
        this.hintAt = mid + 1;
        return true;
      }
      if (v < id) lo = mid + 1;
      else hi = mid - 1;
    }
    return false;
  }

  /** The last page whose first id is at most `id`, or -1. */
  private pageOf(id: number): number {
    return lastAtMost(this.firsts, this.pages, id);
  }

  private read(pi: number): Page {
    const hit = this.cache.get(pi);
    if (hit) {
      // Most recently used last: the first entry is the one to evict.
      this.cache.delete(pi);
      this.cache.set(pi, hit);
      return hit;
    }
    let page: Page;
    if (this.cache.size >= CACHED_PAGES) {
      const [oldest, p] = this.cache.entries().next().value as [number, Page];
      this.cache.delete(oldest);
      page = p;
    } else page = newPage();
    readSync(this.fd!, page.bytes, 0, PAGE_BYTES, pi * PAGE_BYTES);
    this.cache.set(pi, page);
    return page;
  }

  close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
    this.cache.clear();
  }
}
