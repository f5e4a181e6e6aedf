import { z } from 'zod';
import { PointGeometry } from './geojson';
import { QueryText, Uuid } from './compute';

/**
 * Spec 2.5 leaves limit bounds and paging unshown. The bundled service documents these:
 * limit 1..100 (default 20) and a 1-based `page` field.
 */
export const IMAGERY_LIMIT = { min: 1, max: 100, default: 20 } as const;

export const ImageryRequest = z.object({
  query: QueryText,
  limit: z.number().int().min(IMAGERY_LIMIT.min).max(IMAGERY_LIMIT.max).optional(),
  page: z.number().int().min(1).optional(),
});
export type ImageryRequest = z.infer<typeof ImageryRequest>;

/** The 16-point compass rose with abbreviations, as spec 2.6 writes a facing: "North-East (NE)". */
export const COMPASS_POINTS = [
  ['North', 'N'],
  ['North-North-East', 'NNE'],
  ['North-East', 'NE'],
  ['East-North-East', 'ENE'],
  ['East', 'E'],
  ['East-South-East', 'ESE'],
  ['South-East', 'SE'],
  ['South-South-East', 'SSE'],
  ['South', 'S'],
  ['South-South-West', 'SSW'],
  ['South-West', 'SW'],
  ['West-South-West', 'WSW'],
  ['West', 'W'],
  ['West-North-West', 'WNW'],
  ['North-West', 'NW'],
  ['North-North-West', 'NNW'],
] as const;

/** Facing text for a bearing in degrees (0 = north, clockwise). */
export function compassText(degrees: number): string {
  const i = Math.round((((degrees % 360) + 360) % 360) / 22.5) % 16;
  const [name, abbr] = COMPASS_POINTS[i]!;
  return `${name} (${abbr})`;
}

const MONTHS = [
  'January', 'February', 'March', 'April', 'May', 'June',
  'July', 'August', 'September', 'October', 'November', 'December',
] as const;

/** Capture date as spec 2.6 writes it: "March 5, 2024" (UTC calendar date). */
export function captureDateText(d: Date): string {
  return `${MONTHS[d.getUTCMonth()]} ${d.getUTCDate()}, ${d.getUTCFullYear()}`;
}

export const CaptureDateText = z
  .string()
  .regex(new RegExp(`^(${MONTHS.join('|')}) ([1-9]|[12]\\d|3[01]), \\d{4}$`), 'date is "Month D, YYYY"');
export const CompassText = z
  .string()
  .regex(/^[A-Z][A-Za-z-]* \([NESW]{1,3}\)$/, 'compass is "Direction-Name (ABBR)"');

/** Spec 2.6 imagery record. Clients read the date and compass text leniently (any string). */
export const ImageryRecord = z
  .object({
    id: Uuid,
    address: z.string(),
    date: z.string(),
    compass: z.string(),
    interactive: z.boolean(),
    geometry: PointGeometry,
    image: z.string(),
    /** Not in the spec: distance from the place the search named, when it named one. */
    distance_meters: z.number().min(0).nullable().optional(),
  })
  .loose();
export type ImageryRecord = z.infer<typeof ImageryRecord>;

/** The bundled service's own records also match the documented text forms. */
export const ImageryRecordExact = ImageryRecord.extend({ date: CaptureDateText, compass: CompassText });

export const ImageryResponseSuccess = z
  .object({
    isSuccess: z.literal(true),
    page: z.number().int().min(1),
    pageTotal: z.number().int().min(0),
    data: z.array(ImageryRecord),
    result_id: z.string(),
    region: z.string(),
    region_id: z.string().nullable(),
  })
  .loose();
export type ImageryResponseSuccess = z.infer<typeof ImageryResponseSuccess>;

export const ImageryResponseFailure = z.object({ isSuccess: z.literal(false) }).loose();

export const ImageryResponse = z.discriminatedUnion('isSuccess', [ImageryResponseSuccess, ImageryResponseFailure]);
export type ImageryResponse = z.infer<typeof ImageryResponse>;
