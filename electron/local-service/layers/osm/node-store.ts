import Database from 'better-sqlite3';

/**
 * Node locations for way assembly, bounded in memory.
 *
 * Nodes arrive sorted by id in PBF files (and in what osmium writes), so the first
 * `memoryNodes` of them go into fixed-size chunks of typed arrays (f64 id, i32 lon and lat in
 * 1e-7 degrees: 16 bytes a node, no per-node objects) searched by binary search. Past that
 * budget, and for any node that arrives out of order, locations go to a table in the scratch
 * SQLite file of the import (rowid = node id, so inserts in id order append and lookups are one
 * B-tree probe). A direct-indexed array by id would need 12 billion slots for planet ids; a
 * JS Map costs ~80 bytes a node; both break the memory bound on a 1 GB extract (~100M nodes).
 */

const CHUNK = 1 << 20;
const SCALE = 1e7;

export interface NodeStoreOptions {
  /** How many node locations stay in memory before the rest go to disk (16 bytes each). */
  memoryNodes: number;
  /** Opens (once, lazily) the scratch database the spilled nodes go to. */
  scratch: () => Database.Database;
}

export class NodeStore {
  private readonly ids: Float64Array[] = [];
  private readonly lons: Int32Array[] = [];
  private readonly lats: Int32Array[] = [];
  private count = 0;
  private lastId = -Infinity;
  private spilled = 0;
  private insert: Database.Statement | null = null;
  private select: Database.Statement | null = null;
  private range: Database.Statement | null = null;
  private db: Database.Database | null = null;
  private pending: [number, number, number][] = [];

  constructor(private readonly opts: NodeStoreOptions) {}

  get size(): number {
    return this.count + this.spilled;
  }

  get spilledCount(): number {
    return this.spilled;
  }

  add(id: number, lon: number, lat: number): void {
    this.addE7(id, Math.round(lon * SCALE), Math.round(lat * SCALE));
  }

  /** A node at longitude and latitude in 1e-7 degrees (as PBF blocks decode). */
  addE7(id: number, lon: number, lat: number): void {
    if (id > this.lastId && this.count < this.opts.memoryNodes) {
      const c = this.count >>> 20;
      const i = this.count & (CHUNK - 1);
      if (i === 0) {
        this.ids.push(new Float64Array(CHUNK));
        this.lons.push(new Int32Array(CHUNK));
        this.lats.push(new Int32Array(CHUNK));
      }
      this.ids[c]![i] = id;
      this.lons[c]![i] = lon;
      this.lats[c]![i] = lat;
      this.count++;
      this.lastId = id;
      return;
    }
    this.pending.push([id, lon, lat]);
    this.spilled++;
    if (this.pending.length >= 50_000) this.flush();
  }

  private open(): void {
    if (this.db) return;
    this.db = this.opts.scratch();
    this.db.exec('CREATE TABLE IF NOT EXISTS nodes (id INTEGER PRIMARY KEY, lon INTEGER NOT NULL, lat INTEGER NOT NULL)');
    this.insert = this.db.prepare('INSERT OR REPLACE INTO nodes (id, lon, lat) VALUES (?, ?, ?)');
    this.select = this.db.prepare('SELECT lon, lat FROM nodes WHERE id = ?').raw(true);
    this.range = this.db.prepare('SELECT id, lon, lat FROM nodes WHERE id BETWEEN ? AND ?').raw(true);
  }

  /** Writes spilled nodes out; called before lookups and in batches while adding. */
  flush(): void {
    if (!this.pending.length) return;
    this.open();
    const batch = this.pending;
    this.pending = [];
    this.db!.transaction(() => {
      for (const [id, lon, lat] of batch) this.insert!.run(id, lon, lat);
    })();
  }

  /**
   * [lon, lat] of each node of a way (null where the file lacks one). Nodes on disk are read
   * with one range query when the way's ids are close together, as they usually are, instead
   * of one lookup per node.
   */
  getMany(ids: ArrayLike<number>): ([number, number] | null)[] {
    const out: ([number, number] | null)[] = new Array(ids.length);
    let lo = Infinity;
    let hi = -Infinity;
    let missing = 0;
    for (let i = 0; i < ids.length; i++) {
      const p = this.fromMemory(ids[i]!);
      out[i] = p;
      if (!p) {
        missing++;
        if (ids[i]! < lo) lo = ids[i]!;
        if (ids[i]! > hi) hi = ids[i]!;
      }
    }
    if (!missing || !this.spilled) return out;
    this.flush();
    if (hi - lo < 8 * missing + 64) {
      const found = new Map<number, [number, number]>();
      for (const [id, lon, lat] of this.range!.all(lo, hi) as [number, number, number][]) found.set(id, [lon / SCALE, lat / SCALE]);
      for (let i = 0; i < ids.length; i++) if (!out[i]) out[i] = found.get(ids[i]!) ?? null;
    } else {
      for (let i = 0; i < ids.length; i++) if (!out[i]) out[i] = this.fromDisk(ids[i]!);
    }
    return out;
  }

  /** [lon, lat] of a node, or null when the file does not hold it. */
  get(id: number): [number, number] | null {
    const p = this.fromMemory(id);
    if (p || !this.spilled) return p;
    this.flush();
    return this.fromDisk(id);
  }

  private fromDisk(id: number): [number, number] | null {
    const row = this.select!.get(id) as [number, number] | undefined;
    return row ? [row[0] / SCALE, row[1] / SCALE] : null;
  }

  private fromMemory(id: number): [number, number] | null {
    if (this.count && id <= this.lastId) {
      let lo = 0;
      let hi = this.count - 1;
      while (lo <= hi) {
        const mid = (lo + hi) >>> 1;
        const v = this.ids[mid >>> 20]![mid & (CHUNK - 1)]!;
        if (v === id) {
          const c = mid >>> 20;
          const i = mid & (CHUNK - 1);
          return [this.lons[c]![i]! / SCALE, this.lats[c]![i]! / SCALE];
        }
        if (v < id) lo = mid + 1;
        else hi = mid - 1;
      }
    }
    return null;
  }
}
