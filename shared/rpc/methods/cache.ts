import { z } from 'zod';

const CountBytes = z.object({ count: z.number().int(), bytes: z.number() });

export const CacheStats = z.object({
  schemaVersion: z.number().int(),
  queries: z.object({ compute: z.number().int(), stream: z.number().int(), imagery: z.number().int() }),
  features: z.number().int(),
  uploads: CountBytes,
  media: CountBytes,
  dbBytes: z.number(),
  walBytes: z.number(),
});
export type CacheStats = z.infer<typeof CacheStats>;

/** A web map tile's XYZ numbers: x and y within the 2^z by 2^z grid of its zoom. */
export const TileAddress = z
  .object({ z: z.number().int().min(0).max(24), x: z.number().int().min(0), y: z.number().int().min(0) })
  .strict()
  .refine((t) => t.x < 2 ** t.z && t.y < 2 ** t.z, 'x and y must be below 2^z');

export const cacheMethods = {
  'cache.stats': { input: z.object({}).strict(), output: CacheStats },
  'cache.vacuum': {
    input: z.object({}).strict(),
    output: z.object({ bytesBefore: z.number(), bytesAfter: z.number() }),
  },
  /** A basemap tile opened from an area pack: its image bytes, or null when the cache lacks it. */
  'cache.tile': { input: TileAddress, output: z.object({ dataBase64: z.string().nullable() }) },
  /** How many basemap tiles the cache holds (the map lists them as a layer when any) and their deepest zoom. */
  'cache.tileCount': { input: z.object({}).strict(), output: z.object({ count: z.number().int(), maxZoom: z.number().int().nullable() }) },
} as const;
