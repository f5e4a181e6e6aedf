import { z } from 'zod';

/**
 * Units a person reads lengths in. Distances (km, statute miles, nautical miles) and the short
 * lengths below a tenth of one (metres or feet) are chosen apart: a sailor may want nautical
 * miles and metres. Shared so the screen and exported files say a length the same way.
 */
export const DistanceUnit = z.enum(['km', 'mi', 'nmi']);
export type DistanceUnit = z.infer<typeof DistanceUnit>;
export const ShortUnit = z.enum(['m', 'ft']);
export type ShortUnit = z.infer<typeof ShortUnit>;
export const Units = z.object({ distance: DistanceUnit, short: ShortUnit }).strict();
export type Units = z.infer<typeof Units>;

export const DEFAULT_UNITS: Units = { distance: 'km', short: 'm' };

/** Metres in one of each unit (international mile and foot, international nautical mile). */
export const METRES_PER: Record<DistanceUnit | ShortUnit, number> = { km: 1000, mi: 1609.344, nmi: 1852, m: 1, ft: 0.3048 };

const int = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
const one = new Intl.NumberFormat('en-US', { maximumFractionDigits: 1 });

/** Below this many metres a length reads in the short unit: 1 km, or a tenth of a mile. */
const shortBelow = (u: DistanceUnit) => (u === 'km' ? 1000 : METRES_PER[u] / 10);

/** "850 m", "12.3 km", "7.6 mi", "420 ft", "1,204 nmi". */
export function formatLength(meters: number, units: Units = DEFAULT_UNITS): string {
  if (meters < shortBelow(units.distance)) return `${int.format(meters / METRES_PER[units.short])} ${units.short}`;
  const v = meters / METRES_PER[units.distance];
  return `${v < 100 ? one.format(v) : int.format(v)} ${units.distance}`;
}
