import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import type { Feature, GeoJSON, Geometry } from 'geojson';
import { LayerFileError, throwIfAborted, type LayerFeature, type LayerReader, type ReadOptions } from '../types';
import { judgeEpsg, REPROJECT_HINT } from './crs';

/**
 * GeoJSON. A FeatureCollection is parsed whole (no streaming JSON parser among the kept
 * dependencies), so it is capped at GEOJSON_MAX_BYTES; newline-delimited GeoJSON (one feature
 * per line: .geojsonl, .geojsons, .ndjson) streams at any size.
 */
export const GEOJSON_MAX_BYTES = 256 * 1024 * 1024;

const GEOMETRY_TYPES = new Set(['Point', 'LineString', 'Polygon', 'MultiPoint', 'MultiLineString', 'MultiPolygon', 'GeometryCollection']);

function* featuresOf(doc: GeoJSON, file: string): Generator<Feature> {
  if (doc.type === 'FeatureCollection') yield* doc.features;
  else if (doc.type === 'Feature') yield doc;
  else if (GEOMETRY_TYPES.has(doc.type)) yield { type: 'Feature', geometry: doc as Geometry, properties: {} };
  else throw new LayerFileError(file, `not GeoJSON (type "${String((doc as { type?: unknown }).type)}")`);
}

/** The legacy `crs` member (GeoJSON 2008): only lon/lat is accepted. */
function checkCrs(doc: { crs?: { properties?: { name?: string } } }, file: string): void {
  const name = doc.crs?.properties?.name;
  if (!name) return;
  const m = /EPSG:{1,2}(\d+)|CRS84/i.exec(name);
  if (m && (!m[1] || judgeEpsg(Number(m[1])).ok)) return;
  throw new LayerFileError(file, `GeoJSON in CRS ${name}, not WGS84 longitude/latitude; ${REPROJECT_HINT}`);
}

export const geojsonReader: LayerReader = {
  format: 'geojson',
  licence: null,
  async *read(file: string, opts: ReadOptions): AsyncGenerator<LayerFeature> {
    const size = (await stat(file)).size;
    const lines = /\.(geojsonl|geojsons|ndjson|jsonl)$/i.test(file);
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
    } else {
      if (size > GEOJSON_MAX_BYTES) {
        throw new LayerFileError(file, `GeoJSON of ${(size / 1e6).toFixed(0)} MB is over the ${GEOJSON_MAX_BYTES / 1e6} MB read whole; write it as newline-delimited GeoJSON (.geojsonl), GeoPackage or FlatGeobuf`);
      }
      let doc: GeoJSON;
      try {
        doc = JSON.parse(await readFile(file, 'utf8')) as GeoJSON;
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
