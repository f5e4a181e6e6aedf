import { z } from 'zod';
import { COORD_FORMATS } from '../../coords/format';

export const FieldSettings = z.object({
  /** How positions are shown and copied by default. */
  coordinateFormat: z.enum(COORD_FORMATS),
});
export type FieldSettings = z.infer<typeof FieldSettings>;

export const fieldkitMethods = {
  'settings.get': { input: z.object({}).strict(), output: FieldSettings },
  'settings.save': { input: FieldSettings.partial().strict(), output: FieldSettings },
} as const;
