import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { OSM_MEMORY_NODES, OsmAssembler, type OsmMember } from '../osm/assembler';
import { LayerFileError, throwIfAborted, type LayerFeature, type LayerReader, type ReadOptions } from '../types';
import { scratchDatabase } from './scratch';
import { XmlSyntaxError, XmlTagScanner } from './xml-tags';

/** OpenStreetMap XML (.osm), streamed: one chunk and one element at a time (see xml-tags.ts). */
export const osmXmlReader: LayerReader = {
  format: 'osm-xml',
  licence: 'OpenStreetMap contributors, ODbL 1.0',
  async *read(file: string, opts: ReadOptions): AsyncGenerator<LayerFeature> {
    const total = (await stat(file)).size;
    const scratch = scratchDatabase(opts.tempDir);
    const osm = new OsmAssembler({ memoryNodes: opts.osmMemoryNodes ?? OSM_MEMORY_NODES, scratch: scratch.get, scratchFile: scratch.file });
    const scanner = new XmlTagScanner();
    let done = 0;
    let root = false;
    let closed = false;
    // The element being read: its tags, node refs and members arrive as child elements.
    let cur: {
      kind: 'node' | 'way' | 'relation';
      id: number;
      lon: number;
      lat: number;
      tags: Record<string, string>;
      refs: number[];
      members: OsmMember[];
      deleted: boolean;
    } | null = null;
    const finish = (): LayerFeature | null => {
      const c = cur!;
      cur = null;
      if (c.deleted) return null;
      if (c.kind === 'node') return osm.node(c);
      if (c.kind === 'way') return osm.way(c);
      return osm.relation(c);
    };
    const stream = createReadStream(file, { encoding: 'utf8', highWaterMark: 1 << 20 });
    try {
      for await (const chunk of stream as AsyncIterable<string>) {
        throwIfAborted(opts.signal, file);
        done += Buffer.byteLength(chunk);
        for (const t of scanner.push(chunk)) {
          if (!root) {
            if (t.name !== 'osm') throw new LayerFileError(file, `not OSM XML (root element <${t.name}>)`);
            root = true;
            continue;
          }
          if (t.close) {
            if (t.name === 'osm') closed = true;
            if (cur && t.name === cur.kind) {
              const f = finish();
              if (f) yield f;
            }
            continue;
          }
          if (t.name === 'node' || t.name === 'way' || t.name === 'relation') {
            const id = Number(t.attrs['id']);
            if (!Number.isFinite(id)) throw new LayerFileError(file, `a <${t.name}> without a numeric id near byte ${done}`);
            const lon = Number(t.attrs['lon']);
            const lat = Number(t.attrs['lat']);
            if (t.name === 'node' && !(Math.abs(lon) <= 180 && Math.abs(lat) <= 90) && t.attrs['visible'] !== 'false' && t.attrs['action'] !== 'delete') {
              throw new LayerFileError(file, `node ${id} has no valid lat/lon`);
            }
            // Files saved by editors (JOSM) keep deleted objects, marked: they are not data.
            const deleted = t.attrs['action'] === 'delete' || t.attrs['visible'] === 'false';
            cur = { kind: t.name, id, lon, lat, tags: {}, refs: [], members: [], deleted };
            if (t.selfClosing) {
              const f = finish();
              if (f) yield f;
            }
          } else if (cur && t.name === 'tag' && t.attrs['k'] !== undefined) cur.tags[t.attrs['k']] = t.attrs['v'] ?? '';
          else if (cur && t.name === 'nd') cur.refs.push(Number(t.attrs['ref']));
          else if (cur && t.name === 'member') {
            cur.members.push({ type: t.attrs['type'] as OsmMember['type'], id: Number(t.attrs['ref']), role: t.attrs['role'] ?? '' });
          }
        }
        opts.onProgress?.({ done, total, unit: 'bytes' });
      }
      scanner.end();
      if (!root) throw new LayerFileError(file, 'not OSM XML (no <osm> element)');
      if (!closed) throw new LayerFileError(file, 'truncated OSM XML (no closing </osm>)');
      for (const w of osm.summary()) opts.warn?.(w);
    } catch (e) {
      if (e instanceof XmlSyntaxError) throw new LayerFileError(file, `malformed OSM XML near byte ${done}: ${e.message}`);
      throw e;
    } finally {
      stream.destroy();
      osm.close();
      scratch.dispose();
    }
  },
};
