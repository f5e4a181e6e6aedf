import { z } from 'zod';
import { RpcErrorBody } from '../errors';

export const ExportFormat = z.enum(['gpkg', 'geojson', 'ndjson', 'csv']);
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

export const ExportStartInput = z
  .object({
    selection: ExportSelection,
    format: ExportFormat,
    /** Absolute file path chosen in a save dialog (desktop only); absent = a file to download. */
    destination: z.string().min(1).max(4096).optional(),
  })
  .strict();

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
  error: RpcErrorBody.nullable(),
});
export type ExportProgressEvent = z.infer<typeof ExportProgressEvent>;

/** Browser-host route of a finished download export (token-checked like the rest of the host). */
export const exportDownloadPath = (jobId: string) => `/exports/${encodeURIComponent(jobId)}`;

/** File extension of each format, for save dialogs and download names. */
export const EXPORT_EXTENSION: Record<ExportFormat, string> = { gpkg: 'gpkg', geojson: 'geojson', ndjson: 'geojsonl', csv: 'csv' };

export const exportMethods = {
  /** Desktop only: the native save dialog; path null when the user cancels. */
  'export.chooseDestination': {
    input: z.object({ format: ExportFormat, suggestedName: z.string().min(1).max(200) }).strict(),
    output: z.object({ path: z.string().nullable() }),
  },
  'export.start': { input: ExportStartInput, output: ExportStartOutput },
  'export.cancel': {
    input: z.object({ jobId: z.string().min(1) }).strict(),
    output: z.object({ cancelled: z.boolean() }),
  },
} as const;

export const exportEvents = {
  'export.progress': ExportProgressEvent,
} as const;
