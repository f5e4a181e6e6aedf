import { stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { inflateSync } from 'node:zlib';
import { OSM_MEMORY_NODES, OsmAssembler } from '../osm/assembler';
import { unsupportedFeatures } from '../osm/pbf-block';
import { startPbfDecoders, type BlockBytes, type DecodedBlock } from '../osm/pbf-workers';
import { LayerFileError, throwIfAborted, type LayerFeature, type LayerReader, type ReadOptions } from '../types';
import { FileBytes, TruncatedError } from './file-bytes';
import { scratchDatabase } from './scratch';

/**
 * OpenStreetMap PBF, block by block: the file framing (size, BlobHeader, Blob) is read here and
 * each data block inflated and decoded on worker threads (osm/pbf-workers.ts, osm/pbf-decode.ts),
 * several blocks in flight at once and taken back in file order; this thread keeps node
 * locations, assembles ways and relations, and hands features to the writer. Not the package's stream pipeline: its BlobParser throws from inside the stream
 * on a damaged file (an uncaught exception, not a stream error), says nothing when a file ends
 * mid-block, and its block parser drops plain (non-dense) nodes. Reading the frames here gives a
 * clear "truncated" error and real backpressure.
 */

const require = createRequire(import.meta.url);
const parsers = require('osm-pbf-parser/lib/parsers.js') as {
  file: { BlobHeader: { decode(b: Buffer): { type: string; datasize: number } }; Blob: { decode(b: Buffer): { raw?: Buffer; zlib_data?: Buffer } } };
};

const MAX_HEADER = 64 * 1024;
const MAX_BLOB = 32 * 1024 * 1024;

interface Frame {
  type: string;
  bytes: BlockBytes;
}

async function nextFrame(bytes: FileBytes, file: string): Promise<Frame | null> {
  const size = await bytes.exact(4);
  if (!size) return null;
  const headerLen = size.readUInt32BE(0);
  if (headerLen === 0 || headerLen > MAX_HEADER) throw new LayerFileError(file, `not an OSM PBF file (block header of ${headerLen} bytes)`);
  const headerBytes = await bytes.exact(headerLen);
  if (!headerBytes) throw new TruncatedError('file ends after a block size');
  const header = parsers.file.BlobHeader.decode(Buffer.from(headerBytes));
  if (header.datasize > MAX_BLOB) throw new LayerFileError(file, `not an OSM PBF file (block of ${header.datasize} bytes)`);
  const raw = await bytes.exact(header.datasize);
  if (!raw) throw new TruncatedError('file ends after a block header');
  const blob = parsers.file.Blob.decode(Buffer.from(raw));
  if (!blob.raw && !blob.zlib_data) throw new LayerFileError(file, 'a block uses a compression other than zlib, which this reader does not support');
  return { type: header.type, bytes: blob.raw ? { raw: blob.raw } : { zlib: blob.zlib_data! } };
}

const inflated = (b: BlockBytes): Buffer => (b.raw ? Buffer.from(b.raw) : inflateSync(b.zlib!));

export const osmPbfReader: LayerReader = {
  format: 'osm-pbf',
  licence: 'OpenStreetMap contributors, ODbL 1.0',
  async *read(file: string, opts: ReadOptions): AsyncGenerator<LayerFeature> {
    const total = (await stat(file)).size;
    const bytes = await FileBytes.open(file);
    const scratch = scratchDatabase(opts.tempDir);
    const osm = new OsmAssembler({ memoryNodes: opts.osmMemoryNodes ?? OSM_MEMORY_NODES, scratch: scratch.get, scratchFile: scratch.file });
    const decoders = startPbfDecoders();
    // Blocks being decoded, in file order: enough to keep every worker busy, few enough that
    // memory holds a handful of blocks.
    const inFlight: Promise<DecodedBlock>[] = [];
    const depth = decoders.size * 2 + 1;
    let sawHeader = false;
    let ended = false;
    try {
      for (;;) {
        throwIfAborted(opts.signal, file);
        while (!ended && inFlight.length < depth) {
          const frame = await nextFrame(bytes, file);
          if (!frame) {
            ended = true;
            break;
          }
          if (frame.type === 'OSMHeader') {
            sawHeader = true;
            const missing = unsupportedFeatures(inflated(frame.bytes));
            if (missing.length) throw new LayerFileError(file, `the file requires ${missing.join(', ')}, which this reader does not support (history and change files are not layers)`);
          } else if (frame.type === 'OSMData') {
            if (!sawHeader) throw new LayerFileError(file, 'not an OSM PBF file (no OSMHeader block first)');
            const decoded = decoders.decode(frame.bytes);
            // Awaited in order below; a failure meanwhile must not go unhandled.
            decoded.catch(() => {});
            inFlight.push(decoded);
          }
        }
        const next = inFlight.shift();
        if (!next) break;
        const block = await next;
        const features: LayerFeature[] = [];
        osm.block(block, features);
        for (const r of block.relations) {
          const f = osm.relation(r);
          if (f) features.push(f);
        }
        for (const f of features) yield f;
        opts.onProgress?.({ done: bytes.consumed, total, unit: 'bytes' });
      }
      if (!sawHeader) throw new LayerFileError(file, 'not an OSM PBF file (no blocks)');
      for (const w of osm.summary()) opts.warn?.(w);
    } catch (e) {
      if (e instanceof TruncatedError) throw new LayerFileError(file, `truncated OSM PBF: ${e.message} at byte ${bytes.consumed} of ${total}`);
      if (e instanceof LayerFileError || (e instanceof Error && e.name === 'ImportCancelledError')) throw e;
      throw new LayerFileError(file, `damaged OSM PBF near byte ${bytes.consumed}: ${e instanceof Error ? e.message : String(e)}`);
    } finally {
      await decoders.close();
      await bytes.close();
      osm.close();
      scratch.dispose();
    }
  },
};
