import type { ComputeFeature } from '../../shared/service/compute';
import type { ImageryRecord } from '../../shared/service/imagery';
import type { Observation } from '../../shared/service/stream';
import { EXPORT_WRITERS, exportExtension, type ExportWriterId } from '../../shared/formats';

export type LayerKind = 'compute' | 'stream' | 'imagery';
export type ExportFormat = ExportWriterId;

type Source<T> = Iterable<T> | AsyncIterable<T>;

/** Where a layer came from. Service URLs only: keys never reach an export. */
export interface LayerProvenance {
  queryText: string;
  kind: LayerKind;
  remoteId?: string | null;
  resultId?: string | null;
  searchId?: string | null;
  /** When the query ran (ISO text or Date). */
  time: string | Date;
  profileLabel: string;
  baseUrl: string;
  searchBaseUrl: string;
  /** SHA-256 of the evidence bundle made from this result, where one was made. */
  evidenceSha256?: string | null;
}

interface LayerBase {
  name: string;
  /** Feature count when known up front; lets progress report a total. */
  count?: number;
  provenance?: LayerProvenance;
  /** The colour the map draws it in, when the loader knows it ('#rrggbb'). */
  colour?: string;
  /** What it is beside the others in a QGIS project: an answer (the default), a file it was asked with, a data layer. */
  role?: 'answer' | 'upload' | 'data';
  /** A data layer of an OSM extract: its features also make the project's street basemap. */
  streetBasemap?: boolean;
}

export type ExportLayer =
  | (LayerBase & { kind: 'compute'; features: Source<ComputeFeature> })
  | (LayerBase & { kind: 'stream'; features: Source<Observation> })
  | (LayerBase & { kind: 'imagery'; features: Source<ImageryRecord> });

export interface ExportProgress {
  written: number;
  /** Null when some layer did not say how many features it holds. */
  total: number | null;
  layer: string;
}

export interface ExportedLayer {
  name: string;
  /** Table name in a GeoPackage; the layer name elsewhere. */
  table: string;
  kind: LayerKind;
  count: number;
  geometryType: string;
  /**
   * GeoPackage only: each feature property as the map names it (`attributes.x` for an uploaded
   * attribute) to the table column holding it, for styles by a column.
   */
  columns?: Record<string, string>;
}

export interface ExportSummary {
  path: string;
  format: ExportFormat;
  features: number;
  bytes: number;
  layers: ExportedLayer[];
}

/** Called by writers after each feature; may return a promise to yield to the event loop. */
export type Tick = (layer: string) => void | Promise<void>;

export const FORMAT_EXTENSION = Object.fromEntries(EXPORT_WRITERS.map((f) => [f, `.${exportExtension(f)}`])) as Record<ExportFormat, string>;
