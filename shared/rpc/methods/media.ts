import { z } from 'zod';

export const mediaMethods = {
  /** Image bytes of a result: from the cache, or fetched (and cached) when online. */
  'media.get': {
    input: z.object({ url: z.url().max(4096) }).strict(),
    output: z.object({
      url: z.string(),
      contentType: z.string(),
      size: z.number().int(),
      dataBase64: z.string(),
      fromCache: z.boolean(),
      fetchedAt: z.number(),
    }),
  },
} as const;
