import type Database from 'better-sqlite3';
import { NodeFile } from './node-file';

/**
 * Node locations for way assembly, bounded in memory.
 *
 * Nodes arrive sorted by id in PBF files (and in what osmium writes), so the first
 * `memoryNodes` of them go into fixed-size chunks of typed arrays (f64 id, i32 lon and lat in
 * 1e-7 degrees: 16 bytes a node, no per-node objects) searched by binary search. Past that
 * budget, nodes in order go to a paged scratch file (node-file.ts); the few that arrive out of
 * order go to a table in the scratch SQLite file of the import (rowid = node id, one B-tree
 * probe). A direct-indexed array by id would need 12 billion slots for planet ids; a
 * JS Map costs ~80 bytes a node; both break the memory bound on a 1 GB extract (~100M nodes).
 */

const CHUNK = 1 << 20;
const SCALE = 1e7;

export interface NodeStoreOptions {
  /** How many node locations stay in memory before the rest go to disk (16 bytes each). */
  memoryNodes: number;
  /** Opens (once, lazily) the scratch database the nodes out of order go to. */
  scratch: () => Database.Database;
  /** Path of the scratch file the nodes past the memory budget go to (asked once, on first use). */
  scratchFile: () => string;
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
  private hint = 0;
  private found = new Uint8Array(64);
  private readonly file: NodeFile;

  constructor(private readonly opts: NodeStoreOptions) {
    this.file = new NodeFile(opts.scratchFile);
  }

  get size(): number {
    return this.count + this.file.count + this.spilled;
  }

  /** Nodes past the memory budget, in the scratch file or table. */
  get spilledCount(): number {
    return this.file.count + this.spilled;
  }

  close(): void {
    this.file.close();
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
    if (id > this.lastId && id > this.file.lastId) {
      this.file.append(id, lon, lat);
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
   * Longitudes and latitudes (1e-7 degrees) of each node of a way, written into `lon` and `lat`
   * (at least as long as `ids`); false when the file lacks some node. Nodes on disk are read
   * with one range query when the way's ids are close together, as they usually are, instead
   * of one lookup per node.
   */
  locate(ids: ArrayLike<number>, lon: Int32Array, lat: Int32Array): boolean {
    let lo = Infinity;
    let hi = -Infinity;
    let missing = 0;
    if (this.found.length < ids.length) this.found = new Uint8Array(ids.length * 2);
    const found = this.found;
    for (let i = 0; i < ids.length; i++) {
      const k = this.indexOf(ids[i]!);
      found[i] = k >= 0 ? 1 : 0;
      if (k >= 0) {
        lon[i] = this.lons[k >>> 20]![k & (CHUNK - 1)]!;
        lat[i] = this.lats[k >>> 20]![k & (CHUNK - 1)]!;
      } else if (this.file.find(ids[i]!, lon, lat, i)) found[i] = 1;
      else {
        missing++;
        if (ids[i]! < lo) lo = ids[i]!;
        if (ids[i]! > hi) hi = ids[i]!;
      }
    }
    if (!missing) return true;
    if (!this.spilled) return false;
    this.flush();
    if (hi - lo < 8 * missing + 64) {
      const rows = new Map<number, [number, number]>();
      for (const [id, x, y] of this.range!.all(lo, hi) as [number, number, number][]) rows.set(id, [x, y]);
      for (let i = 0; i < ids.length; i++) {
        if (found[i]) continue;
        const r = rows.get(ids[i]!);
        if (!r) return false;
        lon[i] = r[0];
        lat[i] = r[1];
      }
    } else {
      for (let i = 0; i < ids.length; i++) {
        if (found[i]) continue;
        const r = this.select!.get(ids[i]!) as [number, number] | undefined;
        if (!r) return false;
        lon[i] = r[0];
        lat[i] = r[1];
      }
    }
    return true;
  }

  /** [lon, lat] of a node, or null when the file does not hold it. */
  get(id: number): [number, number] | null {
    const k = this.indexOf(id);
    if (k >= 0) return [this.lons[k >>> 20]![k & (CHUNK - 1)]! / SCALE, this.lats[k >>> 20]![k & (CHUNK - 1)]! / SCALE];
    const one = new Int32Array(2);
    if (this.file.find(id, one.subarray(0, 1), one.subarray(1, 2), 0)) return [one[0]! / SCALE, one[1]! / SCALE];
    if (!this.spilled) return null;
    this.flush();
    const row = this.select!.get(id) as [number, number] | undefined;
    return row ? [row[0] / SCALE, row[1] / SCALE] : null;
  }

  /**
   * Where a node is in memory, or -1. The slot after the last one found is tried first: a way's
   * nodes are mostly consecutive in the file, so most lookups need no search.
   */
  private indexOf(id: number): number {
    if (!this.count || id > this.lastId) return -1;
    const h = this.hint;
    if (h < this.count && this.ids[h >>> 20]![h & (CHUNK - 1)] === id) {
      this.hint = h + 1;
      return h;
    }
    let lo = 0;
    let hi = this.count - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const v = this.ids[mid >>> 20]![mid & (CHUNK - 1)]!;
      if (v === id) {
        this.hint = mid + 1;
        return mid;
      }
      if (v < id) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }
}
