import { closeSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import type Database from 'better-sqlite3';
import { hilbertKey, type BBox } from './geo';

/** Features per cell of the spatial index: a few pages of members, a small R*Tree. */
export const CELL_FEATURES = 32;
/**
 * Boxes kept in memory (48 bytes each: 19 MB, 29 while the array grows) before a sorted run of
 * them goes to a scratch file: a town's never touch the disk, a country's stay within the same memory.
 */
export const MEMORY_BOXES = 400_000;
const SLOTS = 6;
/** Boxes read at a time from each run while merging (192 KB a run). */
const MERGE_BUFFER = 4096;

/** A sorted run in the scratch file, read back a buffer at a time while merging. */
interface Run {
  /** Next box of the run in the file, and boxes left there. */
  at: number;
  left: number;
  buf: Float64Array;
  pos: number;
  len: number;
}

/**
 * The cells index of one layer import (see sqlite-layer-store.ts): each feature's box and the
 * Hilbert key of its centre are collected while the features are written, then sorted once and
 * written as `lm_<n>` (members, CELL_FEATURES to a cell, in key order) and `lr_<n>` (one R*Tree
 * box per cell). Boxes stay in typed arrays and are sorted in memory up to `memoryBoxes`; past
 * that each full array is sorted and written to a scratch file as a run, and the runs are merged
 * at the end. Sorting in SQL (a temporary table, then ORDER BY) was a quarter of a
 * 10,000,000-node import; sorting in SQL and writing each box twice was a third of a
 * 300,000-feature one.
 */
export class CellIndexBuilder {
  private boxes = new Float64Array(SLOTS * 1024);
  private count = 0;
  private fd: number | null = null;
  private written = 0;
  private readonly runs: { at: number; count: number }[] = [];

  constructor(
    private readonly db: Database.Database,
    private readonly n: number,
    /** The scratch file of sorted runs (made only when the boxes outgrow memory). */
    private readonly runFile: string,
    private readonly memoryBoxes = MEMORY_BOXES,
  ) {}

  add(fid: number, b: BBox): void {
    if (this.count >= this.memoryBoxes) this.writeRun();
    if (this.count * SLOTS === this.boxes.length) {
      const grown = new Float64Array(Math.min(this.boxes.length * 2, Math.max(this.memoryBoxes, 1) * SLOTS));
      grown.set(this.boxes);
      this.boxes = grown;
    }
    const o = this.count++ * SLOTS;
    const a = this.boxes;
    a[o] = fid;
    a[o + 1] = b[0];
    a[o + 2] = b[2];
    a[o + 3] = b[1];
    a[o + 4] = b[3];
    a[o + 5] = hilbertKey((b[0] + b[2]) / 2, (b[1] + b[3]) / 2);
  }

  /** The boxes in memory by key, then fid. */
  private sorted(): Uint32Array {
    const a = this.boxes;
    const order = new Uint32Array(this.count);
    for (let i = 0; i < order.length; i++) order[i] = i;
    return order.sort((x, y) => a[x * SLOTS + 5]! - a[y * SLOTS + 5]! || a[x * SLOTS]! - a[y * SLOTS]!);
  }

  /** Sorts the boxes in memory and appends them to the scratch file as one run. */
  private writeRun(): void {
    const order = this.sorted();
    const a = this.boxes;
    const out = new Float64Array(MERGE_BUFFER * SLOTS);
    this.fd ??= openSync(this.runFile, 'w+');
    this.runs.push({ at: this.written, count: order.length });
    for (let r = 0; r < order.length; r += MERGE_BUFFER) {
      const m = Math.min(MERGE_BUFFER, order.length - r);
      for (let i = 0; i < m; i++) out.set(a.subarray(order[r + i]! * SLOTS, order[r + i]! * SLOTS + SLOTS), i * SLOTS);
      writeSync(this.fd, out, 0, m * SLOTS * 8, this.written * SLOTS * 8);
      this.written += m;
    }
    this.count = 0;
  }

  /** Writes `lm_<n>` and `lr_<n>`; inside the transaction that commits the layer. */
  finish(): void {
    const { db, n } = this;
    db.exec(
      `CREATE TABLE lm_${n} (cell INTEGER NOT NULL, fid INTEGER NOT NULL, x0 REAL NOT NULL, x1 REAL NOT NULL, y0 REAL NOT NULL, y1 REAL NOT NULL,
         PRIMARY KEY (cell, fid)) WITHOUT ROWID;`,
    );
    const one = db.prepare(`INSERT INTO lm_${n} (cell, fid, x0, x1, y0, y1) VALUES ${rows(1)}`);
    const cell = db.prepare(`INSERT INTO lm_${n} (cell, fid, x0, x1, y0, y1) VALUES ${rows(CELL_FEATURES)}`);
    const values: number[] = [];
    let r = 0;
    // Members in key order, CELL_FEATURES to a cell, appended in key order.
    const emit = (a: Float64Array, o: number) => {
      values.push(Math.floor(r++ / CELL_FEATURES), a[o]!, a[o + 1]!, a[o + 2]!, a[o + 3]!, a[o + 4]!);
      if (values.length === CELL_FEATURES * SLOTS) {
        cell.run(values);
        values.length = 0;
      }
    };
    try {
      if (!this.runs.length) {
        const order = this.sorted();
        for (let i = 0; i < order.length; i++) emit(this.boxes, order[i]! * SLOTS);
      } else {
        if (this.count) this.writeRun();
        this.boxes = new Float64Array(0);
        this.merge(emit);
      }
      for (let i = 0; i < values.length; i += SLOTS) one.run(values.slice(i, i + SLOTS));
    } finally {
      this.dispose();
    }
    db.exec(
      `CREATE VIRTUAL TABLE lr_${n} USING rtree(cell, x0, x1, y0, y1);
       INSERT INTO lr_${n} SELECT cell, min(x0), max(x1), min(y0), max(y1) FROM lm_${n} GROUP BY cell;`,
    );
  }

  /** Every run's boxes in key, then fid order: a heap of the runs by their next box. */
  private merge(emit: (a: Float64Array, o: number) => void): void {
    const runs: Run[] = this.runs.map(({ at, count }) => ({ at, left: count, buf: new Float64Array(MERGE_BUFFER * SLOTS), pos: 0, len: 0 }));
    const fill = (run: Run): boolean => {
      const m = Math.min(MERGE_BUFFER, run.left);
      if (!m) return false;
      readSync(this.fd!, run.buf, 0, m * SLOTS * 8, run.at * SLOTS * 8);
      run.at += m;
      run.left -= m;
      run.pos = 0;
      run.len = m * SLOTS;
      return true;
    };
    const less = (x: Run, y: Run) => {
      const kx = x.buf[x.pos + 5]!;
      const ky = y.buf[y.pos + 5]!;
      return kx < ky || (kx === ky && x.buf[x.pos]! < y.buf[y.pos]!);
    };
    const heap = runs.filter(fill);
    const down = (i: number) => {
      for (;;) {
        const l = 2 * i + 1;
        if (l >= heap.length) return;
        const c = l + 1 < heap.length && less(heap[l + 1]!, heap[l]!) ? l + 1 : l;
        if (!less(heap[c]!, heap[i]!)) return;
        [heap[c], heap[i]] = [heap[i]!, heap[c]!];
        i = c;
      }
    };
    for (let i = (heap.length >> 1) - 1; i >= 0; i--) down(i);
    while (heap.length) {
      const top = heap[0]!;
      emit(top.buf, top.pos);
      top.pos += SLOTS;
      if (top.pos === top.len && !fill(top)) {
        heap[0] = heap[heap.length - 1]!;
        heap.pop();
      }
      if (heap.length) down(0);
    }
  }

  /** Removes the scratch file of runs (after the merge, or when the import stops). */
  dispose(): void {
    if (this.fd === null) return;
    closeSync(this.fd);
    this.fd = null;
    rmSync(this.runFile, { force: true });
  }
}

/** `(?, ?, ?, ?, ?, ?), ...` for `count` rows of six values. */
const rows = (count: number) => Array.from({ length: count }, () => '(?, ?, ?, ?, ?, ?)').join(', ');
