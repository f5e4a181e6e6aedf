import { z } from 'zod';
import { LAYER_READERS } from '../../formats';
import { Geometry } from '../../service/geojson';
import { RpcErrorBody } from '../errors';
import { TileAddress } from './cache';
import { UPLOAD_CHUNK_BASE64, UPLOAD_CHUNK_BYTES } from '../limits';

/**
 * Data layers of the bundled local service: files the analyst brings (OSM extracts, GeoPackage,
 * Shapefile, KML/GPX, FlatGeobuf, GeoJSON), imported as jobs with progress and cancel. A remote
 * connection has none: the methods answer CONFLICT saying layers belong to the bundled service.
 */

export const LayerFormat = z.enum(LAYER_READERS);
export type LayerFormat = z.infer<typeof LayerFormat>;

export const LayerInfo = z.object({
  id: z.string(),
  name: z.string(),
  /** The file's path as imported; for an upload from the browser, the file's name. */
  sourceFile: z.string(),
  format: LayerFormat,
  featureCount: z.number().int().min(0),
  /** Counts per geometry type, e.g. {Point: 120, LineString: 14}. */
  geometryTypes: z.record(z.string(), z.number().int().min(0)),
  /** [west, south, east, north] in degrees; null for an empty layer. */
  bbox: z.tuple([z.number(), z.number(), z.number(), z.number()]).nullable(),
  sizeBytes: z.number().int().min(0),
  licence: z.string().nullable(),
  /** Where the data came from, in words, for results and the credits. */
  sourceText: z.string(),
  warnings: z.array(z.string()),
  createdAt: z.string(),
});
export type LayerInfo = z.infer<typeof LayerInfo>;

const JobId = z.string().min(1).max(100);

export const LayerImportProgress = z.object({
  jobId: JobId,
  /** The file's name. */
  file: z.string(),
  /** uploading: the browser sends the file; reading: features go to the store; indexing: the spatial index is built. */
  phase: z.enum(['uploading', 'reading', 'indexing']),
  done: z.number().min(0),
  /** null when the size is not known ahead. */
  total: z.number().min(0).nullable(),
  unit: z.enum(['bytes', 'items']),
  /** Features stored so far. */
  features: z.number().int().min(0),
});
export type LayerImportProgress = z.infer<typeof LayerImportProgress>;

/** The end of an import job, whichever way it ended; a failed or cancelled import lists nothing. */
export const LayerImportDone = z.object({
  jobId: JobId,
  file: z.string(),
  state: z.enum(['done', 'failed', 'cancelled']),
  layer: LayerInfo.nullable(),
  /** For a bad file: code VALIDATION, message "<file>: <reason>", details {file, reason}. */
  error: RpcErrorBody.nullable(),
});
export type LayerImportDone = z.infer<typeof LayerImportDone>;

export { UPLOAD_CHUNK_BYTES };

export const LayerFeature = z.object({
  type: z.literal('Feature'),
  id: z.string(),
  geometry: Geometry,
  properties: z.record(z.string(), z.unknown()),
});

/** Features of one layer for the map; truncated when the layer holds more than the limit. */
export const LayerFeatures = z.object({
  layer: LayerInfo,
  features: z.object({ type: z.literal('FeatureCollection'), features: z.array(LayerFeature) }),
  truncated: z.boolean(),
});
export type LayerFeatures = z.infer<typeof LayerFeatures>;

const ImportSource = z.union([
  /** A file on this computer (the desktop's open dialog, or a path typed in). */
  z.object({ path: z.string().min(1).max(4096), name: z.string().min(1).max(200).optional() }).strict(),
  /** A file sent with layers.uploadStart / uploadChunk (the browser host). */
  z.object({ uploadId: JobId, name: z.string().min(1).max(200).optional() }).strict(),
]);

export const layersMethods = {
  'layers.list': { input: z.object({}).strict(), output: z.object({ layers: z.array(LayerInfo) }) },
  /** Starts an import job; progress and the end come as layers.progress and layers.done events. */
  'layers.import': { input: ImportSource, output: z.object({ jobId: JobId, file: z.string() }) },
  /** Cancels an import job or drops an upload in progress; cancelled: false when none runs under that id. */
  'layers.cancel': { input: z.object({ jobId: JobId }).strict(), output: z.object({ cancelled: z.boolean() }) },
  'layers.remove': { input: z.object({ id: z.string().min(1).max(100) }).strict(), output: z.object({ removed: z.literal(true) }) },
  /** Desktop only: the native open dialog; path null when the user closes it. */
  'layers.pick': { input: z.object({}).strict(), output: z.object({ path: z.string().nullable() }) },
  /** Browser host: announces a file the page will send in chunks, in order. */
  'layers.uploadStart': {
    input: z.object({ name: z.string().min(1).max(255), size: z.number().int().min(0) }).strict(),
    output: z.object({ uploadId: JobId }),
  },
  'layers.uploadChunk': {
    input: z
      .object({
        uploadId: JobId,
        offset: z.number().int().min(0),
        dataBase64: z.string().max(UPLOAD_CHUNK_BASE64),
      })
      .strict(),
    output: z.object({ received: z.number().int().min(0) }),
  },
  /** Features of a layer for drawing it on the map (first `limit` of them). */
  'layers.features': {
    input: z.object({ id: z.string().min(1).max(100), limit: z.number().int().min(1).max(20_000).default(5000) }).strict(),
    output: LayerFeatures,
    // Geometry came from the store's own WKB; the envelope is what is worth checking per call.
    outputCheck: z.object({ layer: LayerInfo, features: z.object({ type: z.literal('FeatureCollection'), features: z.array(z.unknown()) }), truncated: z.boolean() }),
  },
  /**
   * A street basemap tile (Mapbox vector tile) made from the loaded OSM extracts; null outside
   * the street zooms or where no extract reaches. Layer and class names: shared/basemap/streetClasses.
   */
  'layers.basemapTile': { input: TileAddress, output: z.object({ dataBase64: z.string().nullable() }) },
} as const;

export const layersEvents = {
  'layers.progress': LayerImportProgress,
  'layers.done': LayerImportDone,
  /** The layer list changed (an import finished, a layer was removed). */
  'layers.changed': z.object({ layers: z.array(LayerInfo) }),
} as const;
