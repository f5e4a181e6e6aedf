import { z } from 'zod';

export const FacingCapture = z.object({
  featureId: z.string(),
  queryId: z.number().int(),
  lon: z.number(),
  lat: z.number(),
  facing: z.number(),
  bearing: z.number(),
  offBy: z.number(),
  distanceMetres: z.number(),
  date: z.string().nullable(),
  image: z.string().nullable(),
});

export const facingMethods = {
  /**
   * Cached imagery within radiusMetres of a position whose compass facing points at it (bearing
   * from capture to position within ±toleranceDeg), nearest first: what the map draws as arrows.
   */
  'imagery.facing': {
    input: z
      .object({
        lon: z.number().min(-180).max(180),
        lat: z.number().min(-90).max(90),
        radiusMetres: z.number().positive().max(50_000).default(500),
        toleranceDeg: z.number().min(0).max(180).default(45),
      })
      .strict(),
    output: z.object({ captures: z.array(FacingCapture) }),
  },
} as const;
