import { z } from 'zod';

/** The imagery catalog of the bundled service: which photo folders it indexes and how that went. */
export const PhotoStatus = z.object({
  /** The user's folders (the sample photos are indexed besides them). */
  folders: z.array(z.string()),
  /** Folders indexed without the detectors and the text reader: their photos are found by their words only. */
  detectionOff: z.array(z.string()),
  photos: z.number().int().min(0),
  /** Files that could not be placed, with the reason (first 200). */
  skipped: z.array(z.object({ path: z.string(), reason: z.string() })),
  skippedTotal: z.number().int().min(0),
  lastScan: z
    .object({
      found: z.number(),
      read: z.number(),
      removed: z.number(),
      skipped: z.number(),
      photos: z.number(),
      durationMs: z.number(),
    })
    .nullable(),
  error: z.string().nullable(),
  /** How far the detectors and the text reader are through the photos; null when they do not run. */
  perception: z
    .object({
      state: z.enum(['idle', 'running', 'cancelled']),
      done: z.number().int().min(0),
      total: z.number().int().min(0),
      failed: z.number().int().min(0),
      /** The photos the detector could not read, with the reason (the first 200 of the run). */
      failures: z.array(z.object({ path: z.string(), reason: z.string() })),
      error: z.string().nullable(),
    })
    .nullable(),
});
export type PhotoStatus = z.infer<typeof PhotoStatus>;

export const photosMethods = {
  'photos.status': { input: z.object({}).strict(), output: PhotoStatus },
  /** Replaces the photo folders, saves them, and rescans; answers once the scan is done. */
  'photos.setFolders': {
    input: z.object({ folders: z.array(z.string().min(1).max(4096)).max(20) }).strict(),
    output: PhotoStatus,
  },
  /**
   * Turns the detectors and the text reader on or off for one of the folders; off forgets what
   * was seen in its photos, on looks at them.
   */
  'photos.setDetection': {
    input: z.object({ folder: z.string().min(1).max(4096), on: z.boolean() }).strict(),
    output: PhotoStatus,
  },
  /** Stops looking at photos (until the next scan or resume), or goes on. */
  'photos.perception': { input: z.object({ action: z.enum(['cancel', 'resume']) }).strict(), output: PhotoStatus },
} as const;
