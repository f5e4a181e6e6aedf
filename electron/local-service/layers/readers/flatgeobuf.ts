import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import { deserialize } from 'flatgeobuf/lib/mjs/geojson.js';
import type { HeaderMeta } from 'flatgeobuf/lib/mjs/header-meta.js';
import { LayerFileError, throwIfAborted, type LayerFeature, type LayerReader, type ReadOptions } from '../types';
import { judgeEpsg, judgeWkt, REPROJECT_HINT } from './crs';

/** FlatGeobuf through the `flatgeobuf` package, streamed from disk (its header gives the count and CRS). */
export const flatgeobufReader: LayerReader = {
  format: 'flatgeobuf',
  licence: null,
  async *read(file: string, opts: ReadOptions): AsyncGenerator<LayerFeature> {
    const stream = createReadStream(file, { highWaterMark: 1 << 20 });
    let total = 0;
    let crsError: string | null = null;
    const onHeader = (h: HeaderMeta) => {
      total = Number(h.featuresCount) || 0;
      const crs = h.crs;
      // No CRS or code 0 is "unknown": read as given; the store refuses non-lon/lat coordinates.
      if (!crs || (!crs.code && !crs.wkt)) return;
      const v = crs.org?.toUpperCase() === 'EPSG' || !crs.org ? judgeEpsg(crs.code, `EPSG:${crs.code}${crs.name ? ` (${crs.name})` : ''}`) : crs.wkt ? judgeWkt(crs.wkt) : judgeEpsg(crs.code);
      if (!v.ok) crsError = `${v.reason}; ${REPROJECT_HINT}`;
    };
    let n = 0;
    try {
      const features = deserialize(Readable.toWeb(stream) as ReadableStream, { headerMetaFn: onHeader });
      for await (const f of features) {
        if (crsError) throw new LayerFileError(file, crsError);
        n++;
        if ((n & 1023) === 0) {
          throwIfAborted(opts.signal, file);
          opts.onProgress?.({ done: n, total, unit: 'items' });
        }
        if (!f.geometry) continue;
        yield { sourceId: String(f.id ?? n), geometry: f.geometry as LayerFeature['geometry'], properties: (f.properties ?? {}) as Record<string, unknown> };
      }
      if (crsError) throw new LayerFileError(file, crsError);
    } catch (e) {
      if (e instanceof LayerFileError || (e instanceof Error && e.name === 'ImportCancelledError')) throw e;
      throw new LayerFileError(file, `not a readable FlatGeobuf (${e instanceof Error ? e.message : String(e)})`);
    } finally {
      stream.destroy();
    }
    opts.onProgress?.({ done: n, total: total || n, unit: 'items' });
  },
};
