import { createRequire } from 'node:module';
import type { OsmMember, OsmNode, OsmRelation, OsmWay } from './assembler';

/**
 * Decodes OSM PBF blocks with the protobuf schemas osm-pbf-parser ships (`lib/parsers.js`),
 * into plain nodes, ways and relations: dense and plain nodes both (the package's own block
 * parser drops plain nodes with a console warning), coordinates computed exactly from the
 * block's granularity and offsets, and no per-object metadata (version, user) the layers do
 * not keep.
 */

interface StringTable {
  s: Buffer[];
}
interface PbfNode {
  id: number;
  keys: number[];
  vals: number[];
  lat: number;
  lon: number;
}
interface DenseNodes {
  id: number[];
  lat: number[];
  lon: number[];
  keys_vals: number[];
}
interface PbfWay {
  id: number;
  keys: number[];
  vals: number[];
  refs: number[];
}
interface PbfRelation {
  id: number;
  keys: number[];
  vals: number[];
  roles_sid: number[];
  memids: number[];
  types: number[];
}
interface PrimitiveGroup {
  nodes: PbfNode[];
  dense: DenseNodes | null;
  ways: PbfWay[];
  relations: PbfRelation[];
}
interface PrimitiveBlock {
  stringtable: StringTable;
  primitivegroup: PrimitiveGroup[];
  granularity: number;
  lat_offset: number;
  lon_offset: number;
}
interface HeaderBlock {
  required_features: string[];
}

const require = createRequire(import.meta.url);
const parsers = require('osm-pbf-parser/lib/parsers.js') as {
  osm: { PrimitiveBlock: { decode(b: Buffer): PrimitiveBlock }; HeaderBlock: { decode(b: Buffer): HeaderBlock } };
};

const SUPPORTED_FEATURES = new Set(['OsmSchema-V0.6', 'DenseNodes']);
const MEMBER_TYPES: OsmMember['type'][] = ['node', 'way', 'relation'];

export interface OsmSink {
  node(n: OsmNode): void;
  way(w: OsmWay): void;
  relation(r: OsmRelation): void;
}

/** The features an OSMHeader block requires that this reader cannot honour (e.g. HistoricalInformation). */
export function unsupportedFeatures(data: Buffer): string[] {
  return parsers.osm.HeaderBlock.decode(data).required_features.filter((f) => !SUPPORTED_FEATURES.has(f));
}

function tagsOf(keys: number[], vals: number[], strings: string[]): Record<string, string> {
  const tags: Record<string, string> = {};
  for (let i = 0; i < keys.length && i < vals.length; i++) tags[strings[keys[i]!]!] = strings[vals[i]!]!;
  return tags;
}

export function decodeBlock(data: Buffer, sink: OsmSink): void {
  const block = parsers.osm.PrimitiveBlock.decode(data);
  const strings = block.stringtable.s.map((b) => b.toString('utf8'));
  const g = block.granularity || 100;
  const lat = (n: number) => (block.lat_offset + g * n) / 1e9;
  const lon = (n: number) => (block.lon_offset + g * n) / 1e9;
  for (const group of block.primitivegroup) {
    for (const n of group.nodes) sink.node({ id: n.id, lat: lat(n.lat), lon: lon(n.lon), tags: tagsOf(n.keys, n.vals, strings) });
    const d = group.dense;
    if (d && d.id.length) {
      let id = 0;
      let la = 0;
      let lo = 0;
      let kv = 0;
      const kvs = d.keys_vals;
      for (let i = 0; i < d.id.length; i++) {
        id += d.id[i]!;
        la += d.lat[i]!;
        lo += d.lon[i]!;
        const tags: Record<string, string> = {};
        // keys_vals: key, value pairs of each node in turn, each node's list ended by a 0.
        while (kv < kvs.length && kvs[kv] !== 0) {
          tags[strings[kvs[kv]!]!] = strings[kvs[kv + 1]!]!;
          kv += 2;
        }
        kv++;
        sink.node({ id, lat: lat(la), lon: lon(lo), tags });
      }
    }
    for (const w of group.ways) {
      const refs: number[] = new Array(w.refs.length);
      let ref = 0;
      for (let i = 0; i < w.refs.length; i++) refs[i] = ref += w.refs[i]!;
      sink.way({ id: w.id, tags: tagsOf(w.keys, w.vals, strings), refs });
    }
    for (const r of group.relations) {
      const members: OsmMember[] = [];
      let id = 0;
      for (let i = 0; i < r.memids.length && i < r.types.length; i++) {
        id += r.memids[i]!;
        members.push({ type: MEMBER_TYPES[r.types[i]!] ?? 'node', id, role: strings[r.roles_sid[i]!] ?? '' });
      }
      sink.relation({ id: r.id, tags: tagsOf(r.keys, r.vals, strings), members });
    }
  }
}
