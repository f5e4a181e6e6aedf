import { z } from 'zod';
import { Geometry, Latitude, Longitude } from './geojson';

/** Spec 2.1/8: compute limit bounds and default. */
export const COMPUTE_LIMIT = { min: 1, max: 2000, default: 100 } as const;

/**
 * The longest question text a request may carry, in characters. The spec states none; the app
 * refuses a longer one before sending (so it is never stored) and the bundled service answers
 * 400. Compute, stream and imagery search share it.
 */
export const QUERY_MAX_CHARS = 2000;
export const QueryText = z.string().trim().min(1).max(QUERY_MAX_CHARS);

// UUID-shaped ids (8-4-4-4-12 hex) without RFC version checks: remote ids we echo back must pass.
export const Uuid = z.guid();

export const NamedCoordinate = z.object({
  name: z.string().min(1),
  latitude: Latitude,
  longitude: Longitude,
});
export type NamedCoordinate = z.infer<typeof NamedCoordinate>;

/**
 * The map view the question was asked from, [west, south, east, north] in degrees (an extension
 * of the interface): "in the current view", "here". West may exceed east across the antimeridian.
 */
export const ViewBbox = z
  .tuple([Longitude, Latitude, Longitude, Latitude])
  .refine(([, s, , n]) => s <= n, { message: 'view_bbox south must not exceed north' });
export type ViewBbox = z.infer<typeof ViewBbox>;

/** Spec 2.1, JSON body. Files and images travel only in multipart requests (see ComputeFormFields). */
export const ComputeRequest = z.object({
  query: QueryText,
  limit: z.number().int().min(COMPUTE_LIMIT.min).max(COMPUTE_LIMIT.max).default(COMPUTE_LIMIT.default),
  answer: z.boolean().default(true),
  user_id: z.string().optional(),
  area_id: Uuid.optional(),
  coordinates: z.array(NamedCoordinate).optional(),
  h3_ids: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]).optional(),
  include_stats: z.union([z.literal('auto'), z.boolean()]).optional(),
  measurement: z.string().min(1).optional(),
  mode: z.string().min(1).optional(),
  model: z.string().min(1).default('compute'),
  search_id: Uuid.optional(),
  view_bbox: ViewBbox.optional(),
});
export type ComputeRequest = z.infer<typeof ComputeRequest>;
export type ComputeRequestInput = z.input<typeof ComputeRequest>;

const jsonText = (label: string) =>
  z.string().transform((s, ctx) => {
    try {
      return JSON.parse(s) as unknown;
    } catch {
      ctx.addIssue({ code: 'custom', message: `${label} must be JSON text` });
      return z.NEVER;
    }
  });
const boolText = z.enum(['true', 'false']).transform((s) => s === 'true');

/**
 * Spec 2.1 as multipart form fields: every value arrives as text, so numbers, booleans and
 * the coordinates array are decoded here and then checked by ComputeRequest itself.
 * h3_ids may be repeated or comma-separated.
 */
export const ComputeFormFields = z
  .object({
    query: z.string(),
    limit: z.string().regex(/^-?\d+$/, 'limit must be an integer').transform(Number).optional(),
    answer: boolText.optional(),
    user_id: z.string().optional(),
    area_id: z.string().optional(),
    coordinates: jsonText('coordinates').optional(),
    h3_ids: z
      .union([z.string(), z.array(z.string())])
      .transform((v): string | string[] => (Array.isArray(v) ? v : v.split(',')).map((s) => s.trim()).filter(Boolean))
      .optional(),
    include_stats: z
      .enum(['auto', 'true', 'false'])
      .transform((v) => (v === 'auto' ? 'auto' : v === 'true'))
      .optional(),
    measurement: z.string().optional(),
    mode: z.string().optional(),
    model: z.string().optional(),
    search_id: z.string().optional(),
    // "west,south,east,north", or the same as JSON text.
    view_bbox: z
      .string()
      .transform((s) => s.trim().replace(/^\[|\]$/g, '').split(',').map((x) => (x.trim() === '' ? NaN : Number(x))))
      .optional(),
  })
  .pipe(ComputeRequest);

export const AnswerStatus = z.enum(['complete', 'skipped', 'failed']);
export type AnswerStatus = z.infer<typeof AnswerStatus>;

/** Spec 2.2/3: content only when complete; error only when failed (its shape is not shown). */
export const Answer = z
  .object({
    status: AnswerStatus,
    content: z.string().nullable(),
    error: z.unknown().nullable(),
  })
  .loose()
  .superRefine((a, ctx) => {
    if (a.status !== 'complete' && a.content !== null)
      ctx.addIssue({ code: 'custom', path: ['content'], message: 'content must be null unless status is complete' });
    if (a.status === 'complete' && a.content === null)
      ctx.addIssue({ code: 'custom', path: ['content'], message: 'content is required when status is complete' });
    if (a.status !== 'failed' && a.error != null)
      ctx.addIssue({ code: 'custom', path: ['error'], message: 'error must be null unless status is failed' });
  });
export type Answer = z.infer<typeof Answer>;

export const FeatureSource = z.object({ name: z.string(), url: z.string() }).loose();

export const ComputeFeatureProperties = z
  .object({
    source_id: z.string(),
    name: z.string(),
    address: z.string(),
    score: z.number(),
    distance_meters: z.number(),
    source: FeatureSource,
    attributes: z.record(z.string(), z.unknown()),
  })
  .loose();
export type ComputeFeatureProperties = z.infer<typeof ComputeFeatureProperties>;

export const ComputeFeature = z
  .object({
    type: z.literal('Feature'),
    id: z.string(),
    geometry: Geometry,
    properties: ComputeFeatureProperties,
  })
  .loose();
export type ComputeFeature = z.infer<typeof ComputeFeature>;

export const ComputeResults = z
  .object({
    type: z.literal('FeatureCollection'),
    numberMatched: z.number().int().min(0),
    numberReturned: z.number().int().min(0),
    features: z.array(ComputeFeature),
  })
  .loose()
  .superRefine((r, ctx) => {
    if (r.numberReturned !== r.features.length)
      ctx.addIssue({ code: 'custom', path: ['numberReturned'], message: 'numberReturned must equal features.length' });
    if (r.numberReturned > r.numberMatched)
      ctx.addIssue({ code: 'custom', path: ['numberReturned'], message: 'numberReturned exceeds numberMatched' });
  });
export type ComputeResults = z.infer<typeof ComputeResults>;

/** Warning items have no documented shape: strings or objects are both kept. */
export const Warning = z.unknown();

const computeResponseShape = {
  id: Uuid,
  query: z.string(),
  answer: Answer,
  results: ComputeResults,
  warnings: z.array(Warning),
  usage: z.object({ meters: z.number() }).loose(),
};

/** Spec 2.2 as a client reads it: unknown extra fields are kept. */
export const ComputeResponse = z.object(computeResponseShape).loose();
export type ComputeResponse = z.infer<typeof ComputeResponse>;

/** Spec 2.2 "exactly these top-level fields": what the bundled service must send. */
export const ComputeResponseExact = z.object(computeResponseShape).strict();
