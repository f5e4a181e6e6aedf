import type Database from 'better-sqlite3';
import { hilbertKey, type BBox } from './geo';

/** Features per cell of the spatial index: a few pages of members, a small R*Tree. */
export const CELL_FEATURES = 32;
/**
 * Boxes kept in memory (48 bytes each: 24 MB, 36 while the array grows) before they go to a
 * temporary table: a town's never touch the disk, a country's stay within the same memory.
 */
export const MEMORY_BOXES = 500_000;
const SLOTS = 6;

/**
 * The cells index of one layer import (see sqlite-layer-store.ts): each feature's box and the
 * Hilbert key of its centre are collected while the features are written, then sorted once and
 * written as `lm_<n>` (members, CELL_FEATURES to a cell, in key order) and `lr_<n>` (one R*Tree
 * box per cell). Boxes stay in typed arrays and are sorted in memory up to `memoryBoxes`; past
 * that they go to a temporary table that SQLite sorts. Sorting in SQL and writing each box twice
 * was a third of a 300,000-feature import.
 */
export class CellIndexBuilder {
  private boxes = new Float64Array(SLOTS * 1024);
  private count = 0;
  private spilled = false;
  private pending: number[] = [];
  private insertOne: Database.Statement | null = null;
  private insertMany: Database.Statement | null = null;

  constructor(
    private readonly db: Database.Database,
    private readonly n: number,
    private readonly memoryBoxes = MEMORY_BOXES,
  ) {}

  add(fid: number, b: BBox): void {
    const k = hilbertKey((b[0] + b[2]) / 2, (b[1] + b[3]) / 2);
    if (this.spilled) {
      this.pending.push(fid, b[0], b[2], b[1], b[3], k);
      if (this.pending.length === CELL_FEATURES * SLOTS) this.flush();
      return;
    }
    if (this.count >= this.memoryBoxes) {
      this.spill();
      this.add(fid, b);
      return;
    }
    if (this.count * SLOTS === this.boxes.length) {
      const grown = new Float64Array(this.boxes.length * 2);
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
    a[o + 5] = k;
  }

  /** Writes boxes waiting for a full statement (spilled imports); called at the end of each batch. */
  flush(): void {
    const p = this.pending;
    if (!p.length) return;
    if (p.length === CELL_FEATURES * SLOTS) this.insertMany!.run(p);
    else for (let i = 0; i < p.length; i += SLOTS) this.insertOne!.run(p.slice(i, i + SLOTS));
    p.length = 0;
  }

  private spill(): void {
    const t = `temp.bb_${this.n}`;
    this.db.exec(`CREATE TEMP TABLE bb_${this.n} (fid INTEGER PRIMARY KEY, x0 REAL, x1 REAL, y0 REAL, y1 REAL, k INTEGER)`);
    this.insertOne = this.db.prepare(`INSERT INTO ${t} (fid, x0, x1, y0, y1, k) VALUES ${rows(1)}`);
    this.insertMany = this.db.prepare(`INSERT INTO ${t} (fid, x0, x1, y0, y1, k) VALUES ${rows(CELL_FEATURES)}`);
    this.spilled = true;
    for (let i = 0; i < this.count; i++) {
      for (let s = 0; s < SLOTS; s++) this.pending.push(this.boxes[i * SLOTS + s]!);
      if (this.pending.length === CELL_FEATURES * SLOTS) this.flush();
    }
    this.flush();
    this.boxes = new Float64Array(0);
    this.count = 0;
  }

  /** Writes `lm_<n>` and `lr_<n>`; inside the transaction that commits the layer. */
  finish(): void {
    const { db, n } = this;
    db.exec(
      `CREATE TABLE lm_${n} (cell INTEGER NOT NULL, fid INTEGER NOT NULL, x0 REAL NOT NULL, x1 REAL NOT NULL, y0 REAL NOT NULL, y1 REAL NOT NULL,
         PRIMARY KEY (cell, fid)) WITHOUT ROWID;`,
    );
    if (this.spilled) {
      this.flush();
      // Members in key order, CELL_FEATURES to a cell: one sort in SQLite, then an append in key order.
      db.exec(
        `INSERT INTO lm_${n} SELECT (row_number() OVER (ORDER BY k, fid) - 1) / ${CELL_FEATURES}, fid, x0, x1, y0, y1 FROM temp.bb_${n};
         DROP TABLE temp.bb_${n};`,
      );
    } else {
      const a = this.boxes;
      const order = new Uint32Array(this.count);
      for (let i = 0; i < order.length; i++) order[i] = i;
      order.sort((x, y) => a[x * SLOTS + 5]! - a[y * SLOTS + 5]! || a[x * SLOTS]! - a[y * SLOTS]!);
      const one = db.prepare(`INSERT INTO lm_${n} (cell, fid, x0, x1, y0, y1) VALUES ${rows(1)}`);
      const cell = db.prepare(`INSERT INTO lm_${n} (cell, fid, x0, x1, y0, y1) VALUES ${rows(CELL_FEATURES)}`);
      const values: number[] = [];
      for (let r = 0; r < order.length; r++) {
        const o = order[r]! * SLOTS;
        values.push(Math.floor(r / CELL_FEATURES), a[o]!, a[o + 1]!, a[o + 2]!, a[o + 3]!, a[o + 4]!);
        if (values.length === CELL_FEATURES * SLOTS) {
          cell.run(values);
          values.length = 0;
        }
      }
      for (let i = 0; i < values.length; i += SLOTS) one.run(values.slice(i, i + SLOTS));
      this.boxes = new Float64Array(0);
    }
    db.exec(
      `CREATE VIRTUAL TABLE lr_${n} USING rtree(cell, x0, x1, y0, y1);
       INSERT INTO lr_${n} SELECT cell, min(x0), max(x1), min(y0), max(y1) FROM lm_${n} GROUP BY cell;`,
    );
  }
}

/** `(?, ?, ?, ?, ?, ?), ...` for `count` rows of six values. */
const rows = (count: number) => Array.from({ length: count }, () => '(?, ?, ?, ?, ?, ?)').join(', ');
