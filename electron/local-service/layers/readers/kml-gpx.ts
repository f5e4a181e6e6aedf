import { readFile, stat } from 'node:fs/promises';
import { gpx, kml } from '@tmcw/togeojson';
import { DOMParser } from '@xmldom/xmldom';
import type { Feature } from 'geojson';
import { MAX_NESTING, xmlTooDeep } from '../../../ground/nesting';
import { unprefixGpxTags } from './other-tags';
import { LayerFileError, throwIfAborted, type LayerFeature, type LayerFormat, type LayerReader, type ReadOptions } from '../types';

/**
 * KML and GPX through @tmcw/togeojson over an @xmldom document. Both need the whole document
 * in memory, and an @xmldom tree takes 10-20 times the file's size, so files are capped at 32 MB
 * (a few hundred MB of heap); these formats carry tracks and placemarks, rarely more than a few
 * megabytes, and a larger collection belongs in GeoPackage or FlatGeobuf.
 */
const MIB = 1024 * 1024;
export const XML_DOCUMENT_MAX_BYTES = 32 * MIB;

function xmlReader(format: Extract<LayerFormat, 'kml' | 'gpx'>): LayerReader {
  return {
    format,
    licence: null,
    async *read(file: string, opts: ReadOptions): AsyncGenerator<LayerFeature> {
      const size = (await stat(file)).size;
      if (size > XML_DOCUMENT_MAX_BYTES) {
        throw new LayerFileError(file, `${format.toUpperCase()} of ${(size / MIB).toFixed(1)} MiB is over the ${XML_DOCUMENT_MAX_BYTES / MIB} MiB this reader loads; convert it to GeoPackage or FlatGeobuf`);
      }
      const text = await readFile(file, 'utf8');
      // The DOM and the converter walk elements by recursion: a crafted file thousands deep would overflow the stack.
      if (xmlTooDeep(text)) throw new LayerFileError(file, `malformed ${format.toUpperCase()}: elements nested more than ${MAX_NESTING} levels deep`);
      const errors: string[] = [];
      let doc;
      try {
        doc = new DOMParser({
          onError: (level: string, msg: string) => {
            if (level !== 'warning') errors.push(msg);
          },
        }).parseFromString(text, 'text/xml');
      } catch (e) {
        throw new LayerFileError(file, `malformed ${format.toUpperCase()}: ${e instanceof Error ? e.message : String(e)}`);
      }
      const root = doc.documentElement?.nodeName;
      const want = format === 'kml' ? 'kml' : 'gpx';
      if (errors.length || !root) throw new LayerFileError(file, `malformed ${format.toUpperCase()}: ${errors[0] ?? 'no root element'}`);
      if (root.toLowerCase() !== want) throw new LayerFileError(file, `not ${format.toUpperCase()} (root element <${root}>)`);
      const fc = format === 'kml' ? kml(doc as unknown as Document) : gpx(doc as unknown as Document);
      const features = fc.features as Feature[];
      let empty = 0;
      for (let i = 0; i < features.length; i++) {
        if ((i & 1023) === 0) {
          throwIfAborted(opts.signal, file);
          opts.onProgress?.({ done: i, total: features.length, unit: 'items' });
        }
        const f = features[i]!;
        if (!f.geometry) {
          empty++;
          continue;
        }
        const properties = (f.properties ?? {}) as Record<string, unknown>;
        yield { sourceId: String(f.id ?? i + 1), geometry: f.geometry, properties: format === 'gpx' ? unprefixGpxTags(properties) : properties };
      }
      opts.onProgress?.({ done: features.length, total: features.length, unit: 'items' });
      if (empty) opts.warn?.(`${empty} placemark(s) without geometry not imported`);
    },
  };
}

export const kmlReader = xmlReader('kml');
export const gpxReader = xmlReader('gpx');
