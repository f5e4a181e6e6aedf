import type { Geometry } from 'geojson';
import type { LayerReaderId } from '../../../shared/formats';

/** One feature as every reader hands it out: WGS84 GeoJSON geometry, flat tags, an id in its source. */
export interface LayerFeature {
  /** The id in the source: `node/42`, `way/7`, `relation/3`, `<table>/<fid>`, or a running number. */
  sourceId: string;
  geometry: Geometry;
  properties: Record<string, unknown>;
  /** The properties as JSON text (no null values), when the reader has them so: writers store it as is. */
  propertiesJson?: string;
  /** The geometry as XY WKB and its box [minLon, minLat, maxLon, maxLat], when the reader wrote them so: writers store them as they are. */
  wkb?: Buffer;
  bbox?: [number, number, number, number];
  /** The table or sub-layer of a multi-table source (GeoPackage); absent otherwise. */
  sublayer?: string;
}

export interface ReadProgress {
  done: number;
  total: number;
  unit: 'bytes' | 'items';
}

export interface ReadOptions {
  signal?: AbortSignal;
  onProgress?: (p: ReadProgress) => void;
  /** Something worth telling the user that does not stop the import (no .prj, skipped objects). */
  warn?: (message: string) => void;
  /** A folder for scratch files (OSM node and way stores past their memory budget). */
  tempDir: string;
  /** OSM node locations kept in memory before the rest go to a scratch file (default OSM_MEMORY_NODES). */
  osmMemoryNodes?: number;
}

export type LayerFormat = LayerReaderId;

export interface LayerReader {
  format: LayerFormat;
  /** Licence and source text shown with the layer's results and in the credits. */
  licence: string | null;
  read(file: string, opts: ReadOptions): AsyncIterable<LayerFeature>;
}

/** A layer file that cannot be imported; the message names the file and the reason. */
export class LayerFileError extends Error {
  constructor(
    readonly file: string,
    readonly reason: string,
  ) {
    super(`${file}: ${reason}`);
    this.name = 'LayerFileError';
  }
}

export class ImportCancelledError extends Error {
  constructor(readonly file: string) {
    super(`${file}: import cancelled`);
    this.name = 'ImportCancelledError';
  }
}

export function throwIfAborted(signal: AbortSignal | undefined, file: string): void {
  if (signal?.aborted) throw new ImportCancelledError(file);
}
