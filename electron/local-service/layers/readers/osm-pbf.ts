import { stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { promisify } from 'node:util';
import { inflate } from 'node:zlib';
import { OSM_MEMORY_NODES, OsmAssembler } from '../osm/assembler';
import { decodeBlock, unsupportedFeatures, type OsmSink } from '../osm/pbf-block';
import { LayerFileError, throwIfAborted, type LayerFeature, type LayerReader, type ReadOptions } from '../types';
import { FileBytes, TruncatedError } from './file-bytes';
import { scratchDatabase } from './scratch';

/**
 * OpenStreetMap PBF, block by block: the file framing (size, BlobHeader, Blob) is read here and
 * each block decoded with osm-pbf-parser's protobuf schemas (osm/pbf-block.ts). Not the
 * package's stream pipeline: its BlobParser throws from inside the stream on a damaged file (an
 * uncaught exception, not a stream error), says nothing when a file ends mid-block, and its
 * block parser drops plain (non-dense) nodes. Reading the frames here gives a clear
 * "truncated" error and real backpressure; the next block inflates on the thread pool while
 * this one is decoded.
 */

const require = createRequire(import.meta.url);
const parsers = require('osm-pbf-parser/lib/parsers.js') as {
  file: { BlobHeader: { decode(b: Buffer): { type: string; datasize: number } }; Blob: { decode(b: Buffer): { raw?: Buffer; zlib_data?: Buffer } } };
};

const inflateAsync = promisify(inflate);
const MAX_HEADER = 64 * 1024;
const MAX_BLOB = 32 * 1024 * 1024;

interface Frame {
  type: string;
  data: Promise<Buffer>;
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
  const data = blob.raw ? Promise.resolve(blob.raw) : blob.zlib_data ? inflateAsync(blob.zlib_data) : null;
  if (!data) throw new LayerFileError(file, 'a block uses a compression other than zlib, which this reader does not support');
  return { type: header.type, data };
}

export const osmPbfReader: LayerReader = {
  format: 'osm-pbf',
  licence: 'OpenStreetMap contributors, ODbL 1.0',
  async *read(file: string, opts: ReadOptions): AsyncGenerator<LayerFeature> {
    const total = (await stat(file)).size;
    const bytes = await FileBytes.open(file);
    const scratch = scratchDatabase(opts.tempDir);
    const osm = new OsmAssembler({ memoryNodes: OSM_MEMORY_NODES, scratch: scratch.get });
    let features: LayerFeature[] = [];
    const keep = (f: LayerFeature | null) => {
      if (f) features.push(f);
    };
    const sink: OsmSink = { node: (n) => keep(osm.node(n)), way: (w) => keep(osm.way(w)), relation: (r) => keep(osm.relation(r)) };
    let sawHeader = false;
    try {
      let frame = await nextFrame(bytes, file);
      while (frame) {
        throwIfAborted(opts.signal, file);
        const current = frame;
        // Read and start inflating the next block before decoding this one.
        const next = nextFrame(bytes, file);
        next.catch(() => {});
        const data = await current.data;
        if (current.type === 'OSMHeader') {
          sawHeader = true;
          const missing = unsupportedFeatures(data);
          if (missing.length) throw new LayerFileError(file, `the file requires ${missing.join(', ')}, which this reader does not support (history and change files are not layers)`);
        } else if (current.type === 'OSMData') {
          if (!sawHeader) throw new LayerFileError(file, 'not an OSM PBF file (no OSMHeader block first)');
          decodeBlock(data, sink);
          const out = features;
          features = [];
          for (const f of out) yield f;
        }
        opts.onProgress?.({ done: bytes.consumed, total, unit: 'bytes' });
        frame = await next;
      }
      if (!sawHeader) throw new LayerFileError(file, 'not an OSM PBF file (no blocks)');
      for (const w of osm.summary()) opts.warn?.(w);
    } catch (e) {
      if (e instanceof TruncatedError) throw new LayerFileError(file, `truncated OSM PBF: ${e.message} at byte ${bytes.consumed} of ${total}`);
      if (e instanceof LayerFileError || (e instanceof Error && e.name === 'ImportCancelledError')) throw e;
      throw new LayerFileError(file, `damaged OSM PBF near byte ${bytes.consumed}: ${e instanceof Error ? e.message : String(e)}`);
    } finally {
      await bytes.close();
      scratch.dispose();
    }
  },
};
