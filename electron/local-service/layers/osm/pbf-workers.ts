import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { OsmRelation } from './assembler';
import { PBF_DECODE_SOURCE } from './pbf-decode';

/**
 * Decodes OSM PBF data blocks on worker threads. Blocks are independent (each carries its own
 * string table and coordinate offsets), so workers inflate and decode them side by side with
 * a protobuf wire reader while this thread assembles ways and writes. A block comes
 * back as typed arrays (node ids and coordinates in 1e-7 degrees, way ids and node refs) plus
 * the tags of tagged objects as JSON text: no object per node or per tag crosses, and the
 * buffers are transferred, not copied. Plain CommonJS evaluated in place (as catalog/index-worker
 * does), so it needs no build step; the decoder is pbf-decode.ts.
 */
const WORKER = `
const { parentPort } = require('node:worker_threads');
const { inflateSync } = require('node:zlib');
${PBF_DECODE_SOURCE}
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
    const w = new Worker(WORKER, { eval: true, resourceLimits: { maxOldGenerationSizeMb: 32, maxYoungGenerationSizeMb: 4 } });
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
