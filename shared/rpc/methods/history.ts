import { z } from 'zod';

export const QueryKind = z.enum(['compute', 'stream', 'imagery']);
export type QueryKind = z.infer<typeof QueryKind>;

/** [minx, miny, maxx, maxy] in WGS84 degrees. */
export const BBox = z
  .tuple([z.number().min(-180).max(180), z.number().min(-90).max(90), z.number().min(-180).max(180), z.number().min(-90).max(90)])
  .refine((b) => b[0] <= b[2] && b[1] <= b[3], 'bbox is [minx, miny, maxx, maxy]');

/** An area's outer ring, [lon, lat] positions in WGS84 degrees. */
export const AreaRing = z.array(z.tuple([z.number().min(-180).max(180), z.number().min(-90).max(90)])).min(3).max(5000);

const QueryId = z.number().int().positive();
/** Milliseconds since the epoch. */
const Millis = z.number().int().min(0);

export const QuerySummary = z.object({
  id: z.number().int(),
  kind: QueryKind,
  profileId: z.string(),
  queryText: z.string(),
  /** ok: a body was received; failed: isSuccess false; error: no usable body (see error). */
  outcome: z.enum(['ok', 'failed', 'error']),
  remoteId: z.string().nullable(),
  searchId: z.string().nullable(),
  rerunOf: z.number().int().nullable(),
  answerStatus: z.string().nullable(),
  answerContent: z.string().nullable(),
  featureCount: z.number().int(),
  numberMatched: z.number().int().nullable(),
  numberReturned: z.number().int().nullable(),
  usageMeters: z.number().nullable(),
  page: z.number().int().nullable(),
  pageTotal: z.number().int().nullable(),
  region: z.string().nullable(),
  startedAt: z.number(),
  finishedAt: z.number(),
  durationMs: z.number(),
  serverDurationMs: z.number().nullable(),
  httpStatus: z.number().int().nullable(),
  bbox: z.tuple([z.number(), z.number(), z.number(), z.number()]).nullable(),
});
export type QuerySummary = z.infer<typeof QuerySummary>;

export const QueryRecord = QuerySummary.extend({
  request: z.unknown(),
  answerError: z.unknown(),
  warnings: z.array(z.unknown()),
  usage: z.unknown(),
  error: z
    .object({ code: z.string(), message: z.string(), status: z.number().optional(), body: z.unknown().optional() })
    .nullable(),
  uploads: z.array(z.object({ field: z.enum(['files', 'images']), name: z.string(), size: z.number(), sha256: z.string() })),
  /** The response body exactly as received; null when none was. */
  raw: z.string().nullable(),
});
export type QueryRecord = z.infer<typeof QueryRecord>;

export const ThreadNode = z.object({ query: QuerySummary, parentId: z.number().int().nullable(), depth: z.number().int() });

export const FeatureDiff = z.object({
  added: z.array(z.string()),
  removed: z.array(z.string()),
  changed: z.array(z.string()),
  unchanged: z.number().int(),
});
export type FeatureDiff = z.infer<typeof FeatureDiff>;

export const historyMethods = {
  'history.list': {
    input: z
      .object({
        kind: QueryKind.optional(),
        profileId: z.string().optional(),
        /** Words matched against query text, feature names, addresses and feature_name. */
        text: z.string().max(500).optional(),
        bbox: BBox.optional(),
        /** A drawn area: one outer ring of [lon, lat] (closed or not); entries with a feature inside it. */
        polygon: AreaRing.optional(),
        from: Millis.optional(),
        to: Millis.optional(),
        limit: z.number().int().min(1).max(500).default(50),
        offset: z.number().int().min(0).default(0),
      })
      .strict(),
    output: z.object({ items: z.array(QuerySummary), hasMore: z.boolean() }),
  },
  'history.get': { input: z.object({ id: QueryId }).strict(), output: QueryRecord },
  'history.thread': { input: z.object({ id: QueryId }).strict(), output: z.object({ nodes: z.array(ThreadNode) }) },
  /** Runs a cached query again (same request and attachments) and compares the items by id. */
  'history.rerun': {
    input: z.object({ id: QueryId }).strict(),
    output: z.object({ previousId: z.number().int(), queryId: z.number().int(), diff: FeatureDiff }),
  },
  'history.delete': { input: z.object({ id: QueryId }).strict(), output: z.object({ deleted: z.boolean() }) },
} as const;
