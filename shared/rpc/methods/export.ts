import { z } from 'zod';
import { EXPORT_WRITERS, exportExtension } from '../../formats';
import { Units } from '../../units';
import { RpcErrorBody } from '../errors';

/** qgz: a QGIS project beside its GeoPackage (two downloads in the browser host); qfield: both in one ZIP, as QField imports it. */
export const ExportFormat = z.enum(EXPORT_WRITERS);
export type ExportFormat = z.infer<typeof ExportFormat>;

/** Which cached queries to export: one result is a list of one. */
export const ExportSelection = z
  .object({
    queryIds: z.array(z.string().min(1)).min(1).max(500),
    /** Instead of the entries themselves: what changed between the first two (one layer, a `change` field). */
    compare: z.object({ toleranceMetres: z.number().min(0).max(1_000_000) }).strict().optional(),
  })
  .strict()
  .refine((s) => !s.compare || s.queryIds.length === 2, 'a comparison exports exactly two entries (old, new)');
export type ExportSelection = z.infer<typeof ExportSelection>;

const HexColour = z.string().regex(/^#[0-9a-fA-F]{6}$/);

const Shown = z.boolean();

/**
 * How the map draws one layer, as its legend lists it: one colour, a heatmap, by rank (ranges of positions
 * in the service's order, 1 the first), or a colour per value of a column (null: no value;
 * `other`: the values past the palette). `colour` is the layer's own colour, for features no
 * class covers; a class turned off in the legend is sent with `shown: false`.
 */
export const ExportLayerStyle = z.discriminatedUnion('by', [
  z.object({ by: z.literal('layer'), colour: HexColour }).strict(),
  /** The map's heatmap of the results: a density surface, no symbol or label per feature. */
  z.object({ by: z.literal('heatmap'), colour: HexColour }).strict(),
  z
    .object({
      by: z.literal('rank'),
      colour: HexColour,
      classes: z
        .array(z.object({ first: z.number().int().min(1), last: z.number().int().min(1), colour: HexColour, shown: Shown }).strict())
        .min(1)
        .max(50)
        .refine((cs) => cs.every((c, i) => c.first <= c.last && (i === 0 || c.first > cs[i - 1]!.last)), 'rank ranges must be in order and apart'),
    })
    .strict(),
  z
    .object({
      by: z.literal('column'),
      colour: HexColour,
      /** The property as the map reads it; `attributes.x` is an uploaded attribute. */
      column: z.string().min(1).max(200),
      classes: z.array(z.object({ value: z.string().max(500).nullable(), colour: HexColour, shown: Shown }).strict()).max(500),
      other: z.object({ colour: HexColour, shown: Shown }).strict().nullable(),
    })
    .strict(),
]);
export type ExportLayerStyle = z.infer<typeof ExportLayerStyle>;

/** The QGIS project of an export: what the map shows, so the project opens as the map looked. */
export const ExportProject = z
  .object({
    /**
     * Raster tiles above the offline basemap every project carries (Natural Earth, places, the
     * street basemap of loaded extracts): online, the OpenStreetMap tiles the map draws (off until
     * switched on in QGIS); pack, the tiles of an area pack file; none, the offline basemap alone.
     */
    basemap: z.union([
      z.object({ kind: z.literal('online') }).strict(),
      z.object({ kind: z.literal('pack'), path: z.string().min(1).max(4096) }).strict(),
      z.object({ kind: z.literal('none') }).strict(),
    ]),
    /** The map's extent [minLon, minLat, maxLon, maxLat]; the project's is grown to hold every feature. */
    extent: z
      .tuple([z.number().min(-180).max(180), z.number().min(-90).max(90), z.number().min(-180).max(180), z.number().min(-90).max(90)])
      .refine(([x0, y0, x1, y1]) => x0 < x1 && y0 < y1, 'the extent must have min < max on both axes')
      .optional(),
    /** One per entry of the selection, in its order; the first is drawn on top. */
    styles: z.array(ExportLayerStyle.nullable()).max(500).optional(),
    /** Layers open for editing (QField can edit them); read-only otherwise. */
    editable: z.boolean().optional(),
    /** The basemap's colours as the map shows them (light when absent). */
    theme: z.enum(['light', 'dark']).optional(),
  })
  .strict();
export type ExportProject = z.infer<typeof ExportProject>;

export const ExportStartInput = z
  .object({
    selection: ExportSelection,
    format: ExportFormat,
    /** Absolute file path chosen in a save dialog (desktop only); absent = a file to download. */
    destination: z.string().min(1).max(4096).optional(),
    /**
     * For qgz and qfield (absent: the offline basemap alone, extent of the data, the map's result colour);
     * for gpkg only `styles` is read: each table's default style in `layer_styles`.
     */
    project: ExportProject.optional(),
    /** Units of the `distance_display` field, as Settings chose them (absent: km and m); `distance_meters` stays in metres. */
    units: Units.optional(),
  })
  .strict();

/** What a QGIS project or QField package would hold, and about how big it would be. */
export const ExportEstimateInput = z
  .object({ selection: ExportSelection, format: z.enum(['qgz', 'qfield']), project: ExportProject.optional() })
  .strict();
export const ExportEstimate = z.object({
  layers: z.array(z.object({ name: z.string(), features: z.number().int().min(0) })),
  features: z.number().int().min(0),
  /** The GeoPackage's data, about (tiles not counted). */
  dataBytes: z.number().int().min(0),
  /** The offline basemap: Natural Earth, places and street features around the data, and an area pack's tiles. */
  basemapBytes: z.number().int().min(0),
  /** All of it, about: the QField ZIP is at most this (tiles do not compress further). */
  bytes: z.number().int().min(0),
});
export type ExportEstimate = z.infer<typeof ExportEstimate>;

export const ExportStartOutput = z.object({
  jobId: z.string(),
  fileName: z.string(),
  /** Where the finished file can be fetched when no destination was given. */
  downloadPath: z.string().nullable(),
});

export const ExportJobState = z.enum(['running', 'done', 'failed', 'cancelled']);

export const ExportProgressEvent = z.object({
  jobId: z.string(),
  state: ExportJobState,
  written: z.number().int().min(0),
  total: z.number().int().min(0).nullable(),
  layer: z.string().nullable(),
  fileName: z.string(),
  bytes: z.number().int().min(0).nullable(),
  downloadPath: z.string().nullable(),
  /** A .qgz download's GeoPackage, the second file to save beside it (same folder, its name as the project's). */
  dataDownloadPath: z.string().nullable().optional(),
  error: RpcErrorBody.nullable(),
});
export type ExportProgressEvent = z.infer<typeof ExportProgressEvent>;

/** Browser-host route of a finished download export (token-checked like the rest of the host). */
export const exportDownloadPath = (jobId: string) => `/exports/${encodeURIComponent(jobId)}`;
/** Browser-host route of the GeoPackage beside a downloaded .qgz. */
export const exportDataDownloadPath = (jobId: string) => `/exports/${encodeURIComponent(jobId)}/data`;

/** File extension of each format, for save dialogs and download names. */
export const EXPORT_EXTENSION = Object.fromEntries(EXPORT_WRITERS.map((f) => [f, exportExtension(f)])) as Record<ExportFormat, string>;

export const exportMethods = {
  /** Desktop only: the native save dialog; path null when the user cancels. */
  'export.chooseDestination': {
    input: z.object({ format: ExportFormat, suggestedName: z.string().min(1).max(200) }).strict(),
    output: z.object({ path: z.string().nullable() }),
  },
  'export.start': { input: ExportStartInput, output: ExportStartOutput },
  'export.estimate': { input: ExportEstimateInput, output: ExportEstimate },
  'export.cancel': {
    input: z.object({ jobId: z.string().min(1) }).strict(),
    output: z.object({ cancelled: z.boolean() }),
  },
} as const;

export const exportEvents = {
  'export.progress': ExportProgressEvent,
} as const;
