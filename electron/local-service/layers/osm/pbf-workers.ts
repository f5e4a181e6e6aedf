import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { OsmRelation } from './assembler';

/**
 * Decodes OSM PBF data blocks on worker threads. Blocks are independent (each carries its own
 * string table and coordinate offsets), so workers inflate and decode them side by side with
 * osm-pbf-parser's protobuf schemas while this thread assembles ways and writes. A block comes
 * back as typed arrays (node ids and coordinates in 1e-7 degrees, way ids and node refs) plus
 * the tags of tagged objects as JSON text: no object per node or per tag crosses, and the
 * buffers are transferred, not copied. Plain CommonJS evaluated in place (as catalog/index-worker
 * does), so it needs no build step; the schemas are loaded by their resolved path.
 */
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const { inflateSync } = require('node:zlib');
const parsers = require(workerData.parsers);
const MEMBER_TYPES = ['node', 'way', 'relation'];

function decode(data) {
  const block = parsers.osm.PrimitiveBlock.decode(data);
  const strings = block.stringtable.s.map((b) => b.toString('utf8'));
  const g = block.granularity || 100;
  const latOff = block.lat_offset;
  const lonOff = block.lon_offset;
  // Offsets and granularity are in nanodegrees: 1e-7 degrees is a hundredth of that.
  const e7 = (off, n) => Math.round((off + g * n) / 100);
  const tagsOf = (keys, vals) => {
    const t = {};
    for (let i = 0; i < keys.length && i < vals.length; i++) t[strings[keys[i]]] = strings[vals[i]];
    return t;
  };
  let nodes = 0;
  let ways = 0;
  let refs = 0;
  for (const grp of block.primitivegroup) {
    nodes += grp.nodes.length + (grp.dense ? grp.dense.id.length : 0);
    ways += grp.ways.length;
    for (const w of grp.ways) refs += w.refs.length;
  }
  const nodeIds = new Float64Array(nodes);
  const nodeLon = new Int32Array(nodes);
  const nodeLat = new Int32Array(nodes);
  const tagged = [];
  const texts = [];
  const wayIds = new Float64Array(ways);
  const wayRefEnds = new Uint32Array(ways);
  const wayRefs = new Float64Array(refs);
  const wayTexts = [];
  const relations = [];
  let i = 0;
  let w = 0;
  let r = 0;
  for (const grp of block.primitivegroup) {
    for (const n of grp.nodes) {
      nodeIds[i] = n.id;
      nodeLon[i] = e7(lonOff, n.lon);
      nodeLat[i] = e7(latOff, n.lat);
      if (n.keys.length) {
        tagged.push(i);
        texts.push(JSON.stringify(tagsOf(n.keys, n.vals)));
      }
      i++;
    }
    const d = grp.dense;
    if (d && d.id.length) {
      let id = 0;
      let la = 0;
      let lo = 0;
      let kv = 0;
      const kvs = d.keys_vals;
      for (let j = 0; j < d.id.length; j++) {
        id += d.id[j];
        la += d.lat[j];
        lo += d.lon[j];
        nodeIds[i] = id;
        nodeLon[i] = e7(lonOff, lo);
        nodeLat[i] = e7(latOff, la);
        // keys_vals: key, value pairs of each node in turn, each node's list ended by a 0.
        if (kv < kvs.length && kvs[kv] !== 0) {
          const t = {};
          while (kv < kvs.length && kvs[kv] !== 0) {
            t[strings[kvs[kv]]] = strings[kvs[kv + 1]];
            kv += 2;
          }
          tagged.push(i);
          texts.push(JSON.stringify(t));
        }
        kv++;
        i++;
      }
    }
    for (const way of grp.ways) {
      wayIds[w] = way.id;
      let ref = 0;
      for (let k = 0; k < way.refs.length; k++) wayRefs[r++] = ref += way.refs[k];
      wayRefEnds[w++] = r;
      wayTexts.push(way.keys.length ? JSON.stringify(tagsOf(way.keys, way.vals)) : '');
    }
    for (const rel of grp.relations) {
      const members = [];
      let id = 0;
      for (let k = 0; k < rel.memids.length && k < rel.types.length; k++) {
        id += rel.memids[k];
        members.push({ type: MEMBER_TYPES[rel.types[k]] || 'node', id, role: strings[rel.roles_sid[k]] || '' });
      }
      relations.push({ id: rel.id, tags: tagsOf(rel.keys, rel.vals), members });
    }
  }
  const all = texts.concat(wayTexts);
  const tagEnds = new Uint32Array(all.length);
  let end = 0;
  for (let k = 0; k < all.length; k++) tagEnds[k] = end += all[k].length;
  return {
    nodeIds, nodeLon, nodeLat, tagged: Uint32Array.from(tagged), wayIds, wayRefEnds, wayRefs,
    tagText: all.join(''), tagEnds, relations,
  };
}

parentPort.on('message', ({ id, raw, zlib }) => {
  try {
    const b = decode(raw ? Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength) : inflateSync(zlib));
    const transfer = [b.nodeIds, b.nodeLon, b.nodeLat, b.tagged, b.wayIds, b.wayRefEnds, b.wayRefs, b.tagEnds].map((a) => a.buffer);
    parentPort.postMessage({ id, block: b }, transfer);
  } catch (e) {
    parentPort.postMessage({ id, error: String((e && e.message) || e) });
  }
});
`;

/** One data block, decoded. Tag texts: one per tagged node (in `tagged` order), then one per way ('' for none). */
export interface DecodedBlock {
  nodeIds: Float64Array;
  /** Longitudes and latitudes in 1e-7 degrees. */
  nodeLon: Int32Array;
  nodeLat: Int32Array;
  /** Indexes of the nodes that have tags. */
  tagged: Uint32Array;
  wayIds: Float64Array;
  /** Where each way's refs end in wayRefs. */
  wayRefEnds: Uint32Array;
  wayRefs: Float64Array;
  tagText: string;
  tagEnds: Uint32Array;
  relations: OsmRelation[];
}

/** The JSON text of tag entry k of a block. */
export const tagTextOf = (b: DecodedBlock, k: number): string => b.tagText.slice(k ? b.tagEnds[k - 1]! : 0, b.tagEnds[k]!);

/** A data block as stored in the file: raw bytes or zlib data. */
export interface BlockBytes {
  raw?: Uint8Array;
  zlib?: Uint8Array;
}

export interface PbfDecoders {
  /** How many workers decode; callers keep about twice as many blocks in flight. */
  readonly size: number;
  decode(bytes: BlockBytes): Promise<DecodedBlock>;
  close(): Promise<void>;
}

/** Workers for one import: one per core but the one this thread writes on (at least one, at most four). */
export function startPbfDecoders(size = Math.min(4, Math.max(1, availableParallelism() - 1))): PbfDecoders {
  const parsers = createRequire(import.meta.url).resolve('osm-pbf-parser/lib/parsers.js');
  const waiting = new Map<number, { ok: (b: DecodedBlock) => void; fail: (e: Error) => void }>();
  let failure: Error | null = null;
  const failAll = (e: Error) => {
    failure ??= e;
    for (const [id, w] of waiting) {
      waiting.delete(id);
      w.fail(e);
    }
  };
  const workers = Array.from({ length: size }, () => {
    // A block's work is a few MB: bounded heaps keep the import's memory within its budget.
    const w = new Worker(WORKER, { eval: true, workerData: { parsers }, resourceLimits: { maxOldGenerationSizeMb: 32, maxYoungGenerationSizeMb: 4 } });
    w.on('message', (m: { id: number; block?: DecodedBlock; error?: string }) => {
      const p = waiting.get(m.id);
      if (!p) return;
      waiting.delete(m.id);
      if (m.block) p.ok(m.block);
      else p.fail(new Error(m.error ?? 'block decoding failed'));
    });
    w.on('error', failAll);
    w.on('exit', (code) => {
      if (waiting.size) failAll(new Error(`a block decoder exited with code ${code}`));
    });
    return w;
  });
  let next = 0;
  return {
    size,
    decode(bytes) {
      if (failure) return Promise.reject(failure);
      const id = next++;
      // Copied into buffers of their own, so only the block's bytes are transferred.
      const raw = bytes.raw ? new Uint8Array(bytes.raw) : undefined;
      const zlib = bytes.zlib ? new Uint8Array(bytes.zlib) : undefined;
      return new Promise((ok, fail) => {
        waiting.set(id, { ok, fail });
        workers[id % size]!.postMessage({ id, raw, zlib }, [(raw ?? zlib)!.buffer]);
      });
    },
    async close() {
      await Promise.all(workers.map((w) => w.terminate()));
    },
  };
}
