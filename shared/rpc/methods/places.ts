import { z } from 'zod';
import { Geometry } from '../../service/geojson';

/**
 * Place names of the built-in catalog for the offline basemap: countries and cities to label at
 * every zoom, and a place named in an answer's reading, to mark on the map.
 */

/** A named point; `pop` thins the labels by zoom (0 where the catalog has none). */
export const PlaceLabel = z.object({ name: z.string(), lon: z.number(), lat: z.number(), pop: z.number() });
export type PlaceLabel = z.infer<typeof PlaceLabel>;

export const PlaceFound = z.object({
  name: z.string(),
  kind: z.enum(['point', 'city', 'country']),
  lon: z.number(),
  lat: z.number(),
  /** The country's outline (Natural Earth); null for a point or a city. */
  geometry: Geometry.nullable(),
});
export type PlaceFound = z.infer<typeof PlaceFound>;

export const placesMethods = {
  /** Countries and the cities of at least `minPopulation` people, largest first. */
  'places.labels': {
    input: z.object({ minPopulation: z.number().int().min(1000).default(15_000) }).strict(),
    output: z.object({ countries: z.array(PlaceLabel), cities: z.array(PlaceLabel) }),
  },
  /** A place as a reading names it ("Lyon, France", "France", "45.76, 4.83"); null when the catalog has none. */
  'places.find': { input: z.object({ text: z.string().min(1).max(200) }).strict(), output: PlaceFound.nullable() },
} as const;
