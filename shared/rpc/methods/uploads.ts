import { z } from 'zod';
import { RPC_MAX_BASE64 } from '../limits';

/** Files previewed before a question is sent: as large as the attachments of one question may be. */
export const PREVIEW_MAX_BASE64 = RPC_MAX_BASE64;
/** Feature positions a preview carries for the map; a larger file is drawn in part, and says so. */
export const PREVIEW_POSITIONS_MAX = 100_000;

export const UploadPreview = z.object({
  name: z.string(),
  /** How the file was read: by its name, then by its content. */
  format: z.enum(['csv', 'geojson']),
  /** Features that would be searched (rows with usable coordinates). */
  featureCount: z.number().int(),
  /** The CSV columns holding the coordinates; null for GeoJSON (geometry) or a file not read. */
  columns: z.object({ latitude: z.string().nullable(), longitude: z.string().nullable(), wkt: z.string().nullable() }).nullable(),
  /** The first features as read: name, position and the file's own columns. */
  sample: z.array(z.object({ name: z.string(), longitude: z.number(), latitude: z.number(), attributes: z.record(z.string(), z.unknown()) })),
  /** Every feature's name and position in file order (up to PREVIEW_POSITIONS_MAX), for the map's uploads layer. */
  positions: z.array(z.object({ name: z.string(), longitude: z.number(), latitude: z.number() })).max(PREVIEW_POSITIONS_MAX),
  /** Rows left out, with their line in the file (the first 20). */
  badRows: z.array(z.object({ line: z.number().int(), reason: z.string() })),
  badRowCount: z.number().int(),
  /** Other notes of the reader (encoding, duplicate headers, swapped coordinates…). */
  warnings: z.array(z.object({ code: z.string(), message: z.string() })),
  /** The file cannot be used at all: why, and the line when one is to blame. */
  error: z.object({ code: z.string(), message: z.string(), line: z.number().int().nullable() }).nullable(),
});
export type UploadPreview = z.infer<typeof UploadPreview>;

export const uploadsMethods = {
  /**
   * Reads a file as the bundled service would read it for compute, without sending a question:
   * the same reader, so the same features, columns and line numbers.
   */
  'uploads.preview': {
    input: z.object({ name: z.string().min(1).max(255), dataBase64: z.string().max(PREVIEW_MAX_BASE64) }).strict(),
    output: UploadPreview,
  },
} as const;
