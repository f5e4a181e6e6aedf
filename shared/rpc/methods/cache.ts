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

export const cacheMethods = {
  'cache.stats': { input: z.object({}).strict(), output: CacheStats },
  'cache.vacuum': {
    input: z.object({}).strict(),
    output: z.object({ bytesBefore: z.number(), bytesAfter: z.number() }),
  },
} as const;
