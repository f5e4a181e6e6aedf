import { DEFAULT_UNITS, formatLength, METRES_PER, type DistanceUnit, type ShortUnit, type Units } from '../../../shared/units';

export { DEFAULT_UNITS, formatLength, METRES_PER, type DistanceUnit, type ShortUnit, type Units };

export const DISTANCE_UNITS: ReadonlyArray<{ value: DistanceUnit; label: string }> = [
  { value: 'km', label: 'Kilometres (km)' },
  { value: 'mi', label: 'Miles (mi)' },
  { value: 'nmi', label: 'Nautical miles (nmi)' },
];
export const SHORT_UNITS: ReadonlyArray<{ value: ShortUnit; label: string }> = [
  { value: 'm', label: 'Metres (m)' },
  { value: 'ft', label: 'Feet (ft)' },
];

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
