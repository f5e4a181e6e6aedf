import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import type { Feature, GeoJSON, Geometry } from 'geojson';
import { formatOfFile } from '../../../../shared/formats';
import { LayerFileError, throwIfAborted, type LayerFeature, type LayerReader, type ReadOptions } from '../types';
import { MAX_NESTING, jsonTooDeep } from '../../../ground/nesting';
import { judgeEpsg, REPROJECT_HINT } from './crs';

const TOO_DEEP = `JSON nested more than ${MAX_NESTING} levels deep (arrays and objects); no GeoJSON needs that`;
import { GeoJsonStreamError, streamFeatureCollection } from './geojson-stream';

/**
 * GeoJSON. Files up to `wholeMaxBytes` are parsed whole (any GeoJSON object, a `crs` member
 * anywhere); larger FeatureCollections stream one feature at a time (geojson-stream.ts), and
 * newline-delimited GeoJSON (the `lines` format of shared/formats.ts) streams line by line.
 */
export const GEOJSON_WHOLE_MAX_BYTES = 64 * 1024 * 1024;

const GEOMETRY_TYPES = new Set(['Point', 'LineString', 'Polygon', 'MultiPoint', 'MultiLineString', 'MultiPolygon', 'GeometryCollection']);

function* featuresOf(doc: GeoJSON, file: string): Generator<Feature> {
  if (doc.type === 'FeatureCollection') yield* doc.features;
  else if (doc.type === 'Feature') yield doc;
  else if (GEOMETRY_TYPES.has(doc.type)) yield { type: 'Feature', geometry: doc as Geometry, properties: {} };
  else throw new LayerFileError(file, `not GeoJSON (type "${String((doc as { type?: unknown }).type)}")`);
}

/** The legacy `crs` member (GeoJSON 2008): only lon/lat is accepted. */
function checkCrs(doc: { crs?: { properties?: { name?: string } } | null }, file: string): void {
  const name = doc.crs?.properties?.name;
  if (!name) return;
  const m = /EPSG:{1,2}(\d+)|CRS84/i.exec(name);
  if (m && (!m[1] || judgeEpsg(Number(m[1])).ok)) return;
  throw new LayerFileError(file, `GeoJSON in CRS ${name}, not WGS84 longitude/latitude; ${REPROJECT_HINT}`);
}

export function createGeojsonReader({ wholeMaxBytes }: { wholeMaxBytes: number }): LayerReader {
  return {
    format: 'geojson',
    licence: null,
    async *read(file: string, opts: ReadOptions): AsyncGenerator<LayerFeature> {
      const size = (await stat(file)).size;
      const lines = formatOfFile(file, 'layer')?.lines === true;
      let n = 0;
      let empty = 0;
      const take = (f: Feature): LayerFeature | null => {
        n++;
        if (!f || f.type !== 'Feature') throw new LayerFileError(file, `item ${n} is not a GeoJSON Feature`);
        if (!f.geometry) {
          empty++;
          return null;
        }
        return { sourceId: String(f.id ?? n), geometry: f.geometry, properties: (f.properties ?? {}) as Record<string, unknown> };
      };
      if (lines) {
        const stream = createReadStream(file, { encoding: 'utf8' });
        let bytes = 0;
        try {
          for await (const line of createInterface({ input: stream, crlfDelay: Infinity })) {
            bytes += Buffer.byteLength(line) + 1;
            // RFC 8142 sequences start each record with an RS character.
            const t = (line.startsWith('\u001e') ? line.slice(1) : line).trim();
            if (!t) continue;
            if (jsonTooDeep(t)) throw new LayerFileError(file, `line ${n + 1}: ${TOO_DEEP}`);
            let f: Feature;
            try {
              f = JSON.parse(t) as Feature;
            } catch (e) {
              throw new LayerFileError(file, `line ${n + 1}: invalid JSON (${e instanceof Error ? e.message : String(e)})`);
            }
            const out = take(f);
            if (out) yield out;
            if ((n & 1023) === 0) {
              throwIfAborted(opts.signal, file);
              opts.onProgress?.({ done: bytes, total: size, unit: 'bytes' });
            }
          }
        } finally {
          stream.destroy();
        }
      } else if (size > wholeMaxBytes) {
        const stream = createReadStream(file, { encoding: 'utf8', highWaterMark: 1 << 20 });
        let bytes = 0;
        const counted = (async function* () {
          for await (const chunk of stream as AsyncIterable<string>) {
            bytes += Buffer.byteLength(chunk);
            yield chunk;
          }
        })();
        try {
          for await (const f of streamFeatureCollection(counted, (head) => {
            if (head.type !== 'FeatureCollection') throw new LayerFileError(file, `a large GeoJSON must be a FeatureCollection (type "${String(head.type)}")`);
            checkCrs(head, file);
          })) {
            const out = take(f as Feature);
            if (out) yield out;
            if ((n & 1023) === 0) {
              throwIfAborted(opts.signal, file);
              opts.onProgress?.({ done: bytes, total: size, unit: 'bytes' });
            }
          }
        } catch (e) {
          if (e instanceof GeoJsonStreamError) throw new LayerFileError(file, e.message);
          throw e;
        } finally {
          stream.destroy();
        }
      } else {
        let doc: GeoJSON;
        const text = await readFile(file, 'utf8');
        if (jsonTooDeep(text)) throw new LayerFileError(file, TOO_DEEP);
        try {
          doc = JSON.parse(text) as GeoJSON;
        } catch (e) {
          throw new LayerFileError(file, `invalid JSON (${e instanceof Error ? e.message : String(e)})`);
        }
        if (!doc || typeof doc !== 'object') throw new LayerFileError(file, 'not GeoJSON');
        checkCrs(doc as never, file);
        const all = [...featuresOf(doc, file)];
        for (const f of all) {
          const out = take(f);
          if (out) yield out;
          if ((n & 1023) === 0) {
            throwIfAborted(opts.signal, file);
            opts.onProgress?.({ done: n, total: all.length, unit: 'items' });
          }
        }
      }
      if (empty) opts.warn?.(`${empty} feature(s) without geometry not imported`);
    },
  };
}

export const geojsonReader = createGeojsonReader({ wholeMaxBytes: GEOJSON_WHOLE_MAX_BYTES });
