import { z } from 'zod';
import { ATTACHMENT_MAX_FILE_BYTES, RPC_MAX_BASE64, UPLOAD_CHUNK_BASE64 } from '../limits';
import { StagedId } from './compute';
import { UPLOAD_READERS } from '../../formats';

/** Files previewed before a question is sent: as large as the attachments of one question may be. */
export const PREVIEW_MAX_BASE64 = RPC_MAX_BASE64;
/** Feature positions a preview carries for the map; a larger file is drawn in part, and says so. */
export const PREVIEW_POSITIONS_MAX = 100_000;

export const UploadPreview = z.object({
  name: z.string(),
  /** How the file was read: by its name, then by its content. */
  format: z.enum(UPLOAD_READERS),
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
   * the same reader, so the same features, columns and line numbers. A large file is staged
   * first and named by its stagedId (removed once read).
   */
  'uploads.preview': {
    input: z.union([
      z.object({ name: z.string().min(1).max(255), dataBase64: z.string().max(PREVIEW_MAX_BASE64) }).strict(),
      z.object({ name: z.string().min(1).max(255), stagedId: StagedId }).strict(),
    ]),
    output: UploadPreview,
  },
  /**
   * Announces a file of a question (or a preview) that the page sends in chunks, in order; the
   * stagedId then stands for it in compute.run, queue.add or uploads.preview, which remove it.
   * Staged files never used are removed by uploads.stageDrop, or at the app's next start.
   */
  'uploads.stageStart': {
    input: z
      .object({
        name: z.string().min(1).max(255),
        size: z.number().int().min(0).max(ATTACHMENT_MAX_FILE_BYTES, `a file may be at most ${ATTACHMENT_MAX_FILE_BYTES / 1048576} MiB`),
      })
      .strict(),
    output: z.object({ stagedId: StagedId }),
  },
  'uploads.stageChunk': {
    input: z.object({ stagedId: StagedId, offset: z.number().int().min(0), dataBase64: z.string().max(UPLOAD_CHUNK_BASE64) }).strict(),
    output: z.object({ received: z.number().int().min(0) }),
  },
  /** Removes a staged file the page no longer needs; dropped: false when none is staged under that id. */
  'uploads.stageDrop': { input: z.object({ stagedId: StagedId }).strict(), output: z.object({ dropped: z.boolean() }) },
} as const;
