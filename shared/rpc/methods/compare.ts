import { z } from 'zod';

export const PlaceDiffRow = z.object({
  id: z.string(),
  change: z.enum(['added', 'removed', 'moved', 'changed']),
  name: z.string().nullable(),
  movedMetres: z.number().nullable(),
  /** Where a moved item was before ([lon, lat]), so the map can draw the move; null otherwise. */
  from: z.tuple([z.number(), z.number()]).nullable(),
});
export type PlaceDiffRow = z.infer<typeof PlaceDiffRow>;

export const compareMethods = {
  /**
   * What changed between two History entries of the same question (or a rerun): added, removed,
   * moved further than toleranceMetres, and changed in place; the features for the map.
   */
  'history.compare': {
    input: z
      .object({ oldId: z.number().int().positive(), newId: z.number().int().positive(), toleranceMetres: z.number().min(0).max(1_000_000).default(25) })
      .strict(),
    output: z.object({
      oldId: z.number().int(),
      newId: z.number().int(),
      toleranceMetres: z.number(),
      /** How the two runs' rows were paired: item ids, or an upload's id column, name column or position within the tolerance. */
      key: z.enum(['item id', 'id column', 'name column', 'position']),
      rows: z.array(PlaceDiffRow),
      unchanged: z.number().int(),
      features: z.array(z.object({ type: z.literal('Feature'), id: z.string(), geometry: z.unknown(), properties: z.record(z.string(), z.unknown()) })),
    }),
  },
} as const;
