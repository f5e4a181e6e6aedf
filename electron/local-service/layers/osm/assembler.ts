import type Database from 'better-sqlite3';
import type { Geometry, Position } from 'geojson';
import type { LayerFeature } from '../types';
import { loadAreaRules, type AreaRules } from './area-tags';
import { NodeStore } from './node-store';
import { joinRings, nestRings, orient } from './rings';

export interface OsmNode {
  id: number;
  lon: number;
  lat: number;
  tags: Record<string, string>;
}
export interface OsmWay {
  id: number;
  tags: Record<string, string>;
  refs: number[];
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
}

const SCALE = 1e7;

/**
 * Node locations kept in memory (16 bytes each: 64 MB) before the rest go to the scratch file.
 * Sized so a whole import, SQLite caches and the V8 heap included, stays under 500 MB.
 */
export const OSM_MEMORY_NODES = 4_000_000;
const hasTags = (t: Record<string, string>) => {
  for (const _ in t) return true;
  return false;
};

/**
 * Turns OSM objects, in file order (nodes, then ways, then relations), into features: tagged
 * nodes as points, tagged ways as lines or (closed, with area tags) polygons, and multipolygon
 * and boundary relations as polygons. Every way's geometry is kept in the scratch database for
 * the relations that follow, so memory stays bounded whatever the extract's size.
 * Objects that cannot be built are counted and reported by `summary()`, never dropped silently.
 */
export class OsmAssembler {
  private readonly nodes: NodeStore;
  private readonly area: AreaRules = loadAreaRules();
  private db: Database.Database | null = null;
  private putWay: Database.Statement | null = null;
  private getWay: Database.Statement | null = null;
  private wayBatch: [number, Buffer][] = [];
  readonly skipped = { waysMissingNodes: 0, relationsIncomplete: 0, relationsOther: 0 };
  counts = { nodes: 0, ways: 0, relations: 0 };

  constructor(private readonly opts: AssemblerOptions) {
    this.nodes = new NodeStore({ memoryNodes: opts.memoryNodes, scratch: () => this.scratch() });
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

  node(n: OsmNode): LayerFeature | null {
    this.counts.nodes++;
    this.nodes.add(n.id, n.lon, n.lat);
    if (!hasTags(n.tags)) return null;
    // PBF coordinates come out as offset + granularity * n: round to OSM's 7 decimals.
    const at = [Math.round(n.lon * SCALE) / SCALE, Math.round(n.lat * SCALE) / SCALE];
    return { sourceId: `node/${n.id}`, geometry: { type: 'Point', coordinates: at }, properties: n.tags };
  }

  way(w: OsmWay): LayerFeature | null {
    this.counts.ways++;
    const coords = this.nodes.getMany(w.refs);
    if (coords.includes(null)) {
      this.skipped.waysMissingNodes++;
      return null;
    }
    if (coords.length < 2) {
      this.skipped.waysMissingNodes++;
      return null;
    }
    const line = coords as Position[];
    this.keepWay(w.id, line);
    if (!hasTags(w.tags)) return null;
    const closed = w.refs.length >= 4 && w.refs[0] === w.refs[w.refs.length - 1];
    const geometry: Geometry =
      closed && this.area.isArea(w.tags)
        ? { type: 'Polygon', coordinates: [orient(line, true)] }
        : { type: 'LineString', coordinates: line };
    return { sourceId: `way/${w.id}`, geometry, properties: w.tags };
  }

  private keepWay(id: number, coords: Position[]): void {
    const packed = new Int32Array(coords.length * 2);
    for (let i = 0; i < coords.length; i++) {
      packed[2 * i] = Math.round(coords[i]![0]! * SCALE);
      packed[2 * i + 1] = Math.round(coords[i]![1]! * SCALE);
    }
    this.wayBatch.push([id, Buffer.from(packed.buffer)]);
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

  private wayCoords(id: number): Position[] | null {
    this.flushWays();
    const blob = this.getWay!.get(id) as Buffer | undefined;
    if (!blob) return null;
    const a = new Int32Array(new Uint8Array(blob).buffer);
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
    this.scratch();
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
