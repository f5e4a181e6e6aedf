import type Database from 'better-sqlite3';
import type { Geometry, Position } from 'geojson';
import type { LayerFeature } from '../types';
import { loadAreaRules, type AreaRules } from './area-tags';
import { NodeStore } from './node-store';
import { lineFeature, pointFeature } from './packed-feature';
import { tagTextOf, type DecodedBlock } from './pbf-workers';
import { joinRings, nestRings } from './rings';
import { WayFile } from './way-file';
import { WayIndex } from './way-index';

export interface OsmNode {
  id: number;
  lon: number;
  lat: number;
  tags: Record<string, string>;
}
export interface OsmWay {
  id: number;
  tags: Record<string, string>;
  refs: ArrayLike<number>;
  /** The tags as JSON text, when the decoder wrote them so. */
  tagsJson?: string;
}
export interface OsmMember {
  type: 'node' | 'way' | 'relation';
  id: number;
  role: string;
}
export interface OsmRelation {
  id: number;
  tags: Record<string, string>;
  members: OsmMember[];
}

export interface AssemblerOptions {
  memoryNodes: number;
  scratch: () => Database.Database;
  /** Path of a scratch file of this import by name (spilled node locations and way geometries; removed with the scratch database). */
  scratchFile: (name: string) => string;
  /** Bytes of way geometry kept in memory before the rest go to the scratch file (default 16 MB). */
  wayMemoryBytes?: number;
}

const SCALE = 1e7;

/**
 * Node locations kept in memory (16 bytes each: 32 MB) before the rest go to the scratch file,
 * whose pages read almost as fast when a way's nodes are close in the file. Sized so a whole
 * import, SQLite caches and the V8 heap included, stays under 500 MB.
 */
export const OSM_MEMORY_NODES = 2_000_000;
/**
 * Way geometries kept in memory for the relations that follow before the rest go to the scratch
 * file: a town's ways never touch the disk, a country's stay within the same memory.
 */
const WAY_MEMORY_BYTES = 16 * 1024 * 1024;
/** Int32 slots of a chunk of way geometries (8 MB): memory grows with the ways kept. */
const WAY_CHUNK = 1 << 21;
const NO_TAGS: Record<string, string> = Object.freeze({}) as Record<string, string>;
const hasTags = (t: Record<string, string>) => {
  for (const _ in t) return true;
  return false;
};

/**
 * Turns OSM objects, in file order (nodes, then ways, then relations), into features: tagged
 * nodes as points, tagged ways as lines or (closed, with area tags) polygons, and multipolygon
 * and boundary relations as polygons. Every way's geometry is kept (in memory, then in scratch
 * files) for the relations that follow, so memory stays bounded whatever the extract's size.
 * Objects that cannot be built are counted and reported by `summary()`, never dropped silently.
 */
export class OsmAssembler {
  private readonly nodes: NodeStore;
  private readonly area: AreaRules = loadAreaRules();
  private db: Database.Database | null = null;
  private putWay: Database.Statement | null = null;
  private getWay: Database.Statement | null = null;
  private wayBatch: [number, Buffer][] = [];
  /** Ways written to the scratch table (those that came out of id order). */
  private waysInTable = 0;
  private readonly wayFile: WayFile;
  /**
   * Way geometries kept in memory, up to WAY_MEMORY_BYTES: packed one after another in chunks
   * (a count, then lon, lat pairs in 1e-7 degrees), found by way id; the rest go to the scratch file.
   */
  private readonly wayChunks: Int32Array[] = [];
  private wayUsed = WAY_CHUNK;
  private readonly wayAt = new WayIndex();
  /** A way's node coordinates (1e-7 degrees), reused from way to way. */
  private lon = new Int32Array(256);
  private lat = new Int32Array(256);
  readonly skipped = { waysMissingNodes: 0, relationsIncomplete: 0, relationsOther: 0 };
  counts = { nodes: 0, ways: 0, relations: 0 };

  constructor(private readonly opts: AssemblerOptions) {
    this.nodes = new NodeStore({ memoryNodes: opts.memoryNodes, scratch: () => this.scratch(), scratchFile: () => opts.scratchFile('nodes') });
    this.wayFile = new WayFile(() => opts.scratchFile('ways'));
  }

  /** Closes the scratch files (the caller removes them). */
  close(): void {
    this.nodes.close();
    this.wayFile.close();
  }

  private scratch(): Database.Database {
    if (!this.db) {
      this.db = this.opts.scratch();
      this.db.exec('CREATE TABLE IF NOT EXISTS ways (id INTEGER PRIMARY KEY, coords BLOB NOT NULL)');
      this.putWay = this.db.prepare('INSERT OR REPLACE INTO ways (id, coords) VALUES (?, ?)');
      this.getWay = this.db.prepare('SELECT coords FROM ways WHERE id = ?').pluck(true);
    }
    return this.db;
  }

  /**
   * A decoded PBF block's nodes and ways (see pbf-workers.ts): node locations go to the store
   * straight from the block's arrays; tagged nodes and ways become features, pushed to `out`.
   */
  block(b: DecodedBlock, out: LayerFeature[]): void {
    const n = b.nodeIds.length;
    this.counts.nodes += n;
    for (let i = 0; i < n; i++) this.nodes.addE7(b.nodeIds[i]!, b.nodeLon[i]!, b.nodeLat[i]!);
    const tagged = b.tagged.length;
    for (let k = 0; k < tagged; k++) {
      const i = b.tagged[k]!;
      const json = tagTextOf(b, k);
      out.push(pointFeature(`node/${b.nodeIds[i]!}`, b.nodeLon[i]!, b.nodeLat[i]!, JSON.parse(json) as Record<string, string>, json));
    }
    let start = 0;
    for (let w = 0; w < b.wayIds.length; w++) {
      const end = b.wayRefEnds[w]!;
      const json = tagTextOf(b, tagged + w);
      const f = this.wayOf(b.wayIds[w]!, b.wayRefs.subarray(start, end), json ? (JSON.parse(json) as Record<string, string>) : NO_TAGS, json || undefined);
      if (f) out.push(f);
      start = end;
    }
  }

  node(n: OsmNode): LayerFeature | null {
    this.counts.nodes++;
    this.nodes.add(n.id, n.lon, n.lat);
    if (!hasTags(n.tags)) return null;
    // PBF coordinates come out as offset + granularity * n: round to OSM's 7 decimals.
    const at = [Math.round(n.lon * SCALE) / SCALE, Math.round(n.lat * SCALE) / SCALE];
    return { sourceId: `node/${n.id}`, geometry: { type: 'Point', coordinates: at }, properties: n.tags };
  }

  way(w: OsmWay): LayerFeature | null {
    return this.wayOf(w.id, w.refs, w.tags, w.tagsJson);
  }

  /** A way: its geometry kept for the relations that follow, and a feature when it has tags. */
  private wayOf(id: number, refs: ArrayLike<number>, tags: Record<string, string>, tagsJson: string | undefined): LayerFeature | null {
    this.counts.ways++;
    const n = refs.length;
    if (this.lon.length < n) {
      this.lon = new Int32Array(n * 2);
      this.lat = new Int32Array(n * 2);
    }
    if (!this.nodes.locate(refs, this.lon, this.lat) || n < 2) {
      this.skipped.waysMissingNodes++;
      return null;
    }
    this.keepWay(id, n);
    if (!hasTags(tags)) return null;
    const closed = n >= 4 && refs[0] === refs[n - 1];
    return lineFeature(`way/${id}`, this.lon, this.lat, n, closed && this.area.isArea(tags), tags, tagsJson);
  }

  /** Keeps the geometry of the way whose `n` nodes are in this.lon and this.lat. */
  private keepWay(id: number, n: number): void {
    const need = 1 + n * 2;
    const { lon, lat } = this;
    // A later copy of a way replaces an earlier one, wherever that one is kept.
    this.wayAt.delete(id);
    if (this.wayUsed + need > WAY_CHUNK && need <= WAY_CHUNK && (this.wayChunks.length + 1) * WAY_CHUNK * 4 <= (this.opts.wayMemoryBytes ?? WAY_MEMORY_BYTES)) {
      this.wayChunks.push(new Int32Array(WAY_CHUNK));
      this.wayUsed = 0;
    }
    if (this.wayUsed + need <= WAY_CHUNK && this.wayChunks.length) {
      const chunk = this.wayChunks[this.wayChunks.length - 1]!;
      const at = this.wayUsed;
      chunk[at] = n;
      for (let i = 0; i < n; i++) {
        chunk[at + 1 + 2 * i] = lon[i]!;
        chunk[at + 2 + 2 * i] = lat[i]!;
      }
      this.wayAt.set(id, (this.wayChunks.length - 1) * WAY_CHUNK + at);
      this.wayUsed += need;
      return;
    }
    if (this.wayFile.fits(id, n)) {
      this.wayFile.append(id, lon, lat, n);
      return;
    }
    const packed = new Int32Array(n * 2);
    for (let i = 0; i < n; i++) {
      packed[2 * i] = lon[i]!;
      packed[2 * i + 1] = lat[i]!;
    }
    this.wayBatch.push([id, Buffer.from(packed.buffer)]);
    this.waysInTable++;
    if (this.wayBatch.length >= 20_000) this.flushWays();
  }

  private flushWays(): void {
    if (!this.wayBatch.length) return;
    this.scratch();
    const batch = this.wayBatch;
    this.wayBatch = [];
    this.db!.transaction(() => {
      for (const [id, blob] of batch) this.putWay!.run(id, blob);
    })();
  }

  private tableWay(id: number): Buffer | undefined {
    this.flushWays();
    return this.getWay!.get(id) as Buffer | undefined;
  }

  private wayCoords(id: number): Position[] | null {
    let a: Int32Array;
    const at = this.wayAt.get(id);
    if (at !== undefined) {
      const chunk = this.wayChunks[Math.floor(at / WAY_CHUNK)]!;
      const o = at % WAY_CHUNK;
      a = chunk.subarray(o + 1, o + 1 + 2 * chunk[o]!);
    } else {
      // A later copy of a way, out of id order, is in the table; the file may hold an earlier one.
      const blob = this.waysInTable ? this.tableWay(id) : undefined;
      const found = blob ? new Int32Array(new Uint8Array(blob).buffer) : this.wayFile.get(id);
      if (!found) return null;
      a = found;
    }
    const out: Position[] = new Array(a.length / 2);
    for (let i = 0; i < out.length; i++) out[i] = [a[2 * i]! / SCALE, a[2 * i + 1]! / SCALE];
    return out;
  }

  relation(r: OsmRelation): LayerFeature | null {
    this.counts.relations++;
    const type = r.tags['type'];
    if (type !== 'multipolygon' && type !== 'boundary') {
      this.skipped.relationsOther++;
      return null;
    }
    const outer: Position[][] = [];
    const inner: Position[][] = [];
    for (const m of r.members) {
      if (m.type !== 'way') continue;
      const c = this.wayCoords(m.id);
      if (!c) {
        this.skipped.relationsIncomplete++;
        return null;
      }
      (m.role === 'inner' ? inner : outer).push(c);
    }
    const outers = joinRings(outer);
    const inners = joinRings(inner);
    if (!outers || !inners || !outers.length) {
      this.skipped.relationsIncomplete++;
      return null;
    }
    const { polygons } = nestRings(outers, inners);
    const geometry: Geometry =
      polygons.length === 1 ? { type: 'Polygon', coordinates: polygons[0]! } : { type: 'MultiPolygon', coordinates: polygons };
    return { sourceId: `relation/${r.id}`, geometry, properties: r.tags };
  }

  /** What could not be built, in words, for the warnings of the import. */
  summary(): string[] {
    const out: string[] = [];
    const s = this.skipped;
    if (s.waysMissingNodes) out.push(`${s.waysMissingNodes} way(s) skipped: nodes missing from the extract`);
    if (s.relationsIncomplete) out.push(`${s.relationsIncomplete} multipolygon relation(s) skipped: members missing or rings not closed`);
    if (s.relationsOther) out.push(`${s.relationsOther} relation(s) of other types (routes, restrictions, ...) not imported`);
    return out;
  }
}
