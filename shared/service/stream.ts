import { z } from 'zod';
import { QueryText } from './compute';
import { Latitude, Longitude, PointGeometry, Geometry } from './geojson';

/** Spec 2.3/8: stream limit default and maximum. */
export const STREAM_LIMIT = { min: 1, max: 50, default: 50 } as const;

export const StreamPoint = z.object({ latitude: Latitude, longitude: Longitude });

/** Spec 2.3. */
export const StreamRequest = z.object({
  query: QueryText,
  region_id: z.string().regex(/^\d+$/, 'region_id is numeric').optional(),
  position: z.object({ points: z.array(StreamPoint).min(1) }).optional(),
  year: z.number().int().min(1800).max(2200).optional(),
  limit: z.number().int().min(STREAM_LIMIT.min).max(STREAM_LIMIT.max).default(STREAM_LIMIT.default),
});
export type StreamRequest = z.infer<typeof StreamRequest>;
export type StreamRequestInput = z.input<typeof StreamRequest>;

/** Spec 2.4 observation fields. */
export const ObservationProperties = z
  .object({
    address: z.string().nullable(),
    date: z.string().nullable(),
    year: z.string().nullable(),
    month: z.string().nullable(),
    source: z.string().nullable(),
    owner: z.string().nullable(),
    feature_name: z.string(),
    image_url: z.string().nullable(),
    is_video: z.boolean().nullable(),
    video_id: z.string().nullable(),
    video_url: z.string().nullable(),
    duration: z.number().nullable(),
    interactive: z.boolean(),
    /** Not in the spec: distance from the nearest asked position, when one was asked. */
    distance_meters: z.number().min(0).nullable().optional(),
  })
  .loose();
export type ObservationProperties = z.infer<typeof ObservationProperties>;

export const Observation = z
  .object({
    type: z.literal('Feature'),
    id: z.string(),
    geometry: z.union([PointGeometry, Geometry]),
    properties: ObservationProperties,
  })
  .loose();
export type Observation = z.infer<typeof Observation>;

export const ObservationCollection = z
  .object({ type: z.literal('FeatureCollection'), features: z.array(Observation) })
  .loose();

const YearText = z.string().regex(/^\d{4}$/).nullable();

/**
 * Spec 2.4. The position of `year` in the body is not shown: it is accepted at the top level
 * or inside `data`; use streamYear() to read it.
 */
export const StreamResponseSuccess = z
  .object({
    isSuccess: z.literal(true),
    result_id: z.string(),
    data: z
      .object({
        query: z.string(),
        duration_ms: z.number().min(0),
        geojson: ObservationCollection,
        year: YearText.optional(),
      })
      .loose(),
    regions: z.array(z.unknown()),
    year: YearText.optional(),
  })
  .loose();

/** Spec 7: isSuccess false is the failure flag; the rest of a failed body is not shown. */
export const StreamResponseFailure = z.object({ isSuccess: z.literal(false) }).loose();

export const StreamResponse = z.discriminatedUnion('isSuccess', [StreamResponseSuccess, StreamResponseFailure]);
export type StreamResponse = z.infer<typeof StreamResponse>;
export type StreamResponseSuccess = z.infer<typeof StreamResponseSuccess>;

export function streamYear(r: StreamResponseSuccess): string | null {
  return r.year ?? r.data.year ?? null;
}
