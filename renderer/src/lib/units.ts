/**
 * Units a person reads lengths in. Distances (km, statute miles, nautical miles) and the short
 * lengths below a tenth of one (metres or feet) are chosen apart: a sailor may want nautical
 * miles and metres.
 */
export type DistanceUnit = 'km' | 'mi' | 'nmi';
export type ShortUnit = 'm' | 'ft';
export interface Units {
  distance: DistanceUnit;
  short: ShortUnit;
}

export const DEFAULT_UNITS: Units = { distance: 'km', short: 'm' };

/** Metres in one of each unit (international mile and foot, international nautical mile). */
export const METRES_PER: Record<DistanceUnit | ShortUnit, number> = { km: 1000, mi: 1609.344, nmi: 1852, m: 1, ft: 0.3048 };

export const DISTANCE_UNITS: ReadonlyArray<{ value: DistanceUnit; label: string }> = [
  { value: 'km', label: 'Kilometres (km)' },
  { value: 'mi', label: 'Miles (mi)' },
  { value: 'nmi', label: 'Nautical miles (nmi)' },
];
export const SHORT_UNITS: ReadonlyArray<{ value: ShortUnit; label: string }> = [
  { value: 'm', label: 'Metres (m)' },
  { value: 'ft', label: 'Feet (ft)' },
];

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

/** The scale bar's own name for a choice of units. */
export function scaleBarUnits(units: Units): 'metric' | 'imperial' | 'nautical' {
  return units.distance === 'mi' ? 'imperial' : units.distance === 'nmi' ? 'nautical' : 'metric';
}

/** A length written in metric in prose ("4.9 km", "850 m", "1,204 km"). */
const METRIC_IN_PROSE = /(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)? ?(km|m)\b/g;

/** Prose from the service with its metric lengths in the chosen units; as it is when those are metric. */
export function lengthsInProse(text: string, units: Units = DEFAULT_UNITS): string {
  if (units.distance === 'km' && units.short === 'm') return text;
  return text.replace(METRIC_IN_PROSE, (_all, whole: string, frac: string | undefined, unit: string) => {
    const n = Number(whole.replace(/,/g, '') + (frac ?? ''));
    return formatLength(n * METRES_PER[unit as 'km' | 'm'], units);
  });
}
