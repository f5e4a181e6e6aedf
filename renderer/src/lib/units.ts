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

/** The scale bar's (OpenLayers' ScaleLine) systems of units. */
export type ScaleSystem = 'metric' | 'imperial' | 'nautical';
/** The scale bar's shortest length in pixels, as OpenLayers draws it by default. */
export const SCALE_MIN_WIDTH = 64;

/** The scale bar's own name for a choice of units. */
export function scaleBarUnits(units: Units): ScaleSystem {
  return units.distance === 'mi' ? 'imperial' : units.distance === 'nmi' ? 'nautical' : 'metric';
}

/** The unit the scale bar writes for a bar of at least `metres` (OpenLayers' ScaleLine rules). */
function scaleUnitShown(system: ScaleSystem, metres: number): DistanceUnit | ShortUnit {
  if (system === 'nautical') return 'nmi';
  if (system === 'imperial') return metres < METRES_PER.mi ? 'ft' : 'mi';
  return metres < METRES_PER.km ? 'm' : 'km';
}

/**
 * The scale bar's system and shortest length at a map scale (metres per pixel), so that it writes
 * one of the two chosen units, the short one below one of the long (miles with metres would otherwise
 * read feet below a mile). Where no system fits at the usual width (between 1 km and 1 mi, for miles
 * with metres) a shorter bar stays in metres.
 */
export function scaleBar(units: Units, metresPerPixel: number): { system: ScaleSystem; minWidth: number } {
  const allowed = new Set<string>([units.distance, units.short]);
  const long = scaleBarUnits(units);
  const short: ScaleSystem = units.short === 'm' ? 'metric' : 'imperial';
  // Shorter than one of the distance unit: the short unit's system first.
  const [first, second] = SCALE_MIN_WIDTH * metresPerPixel < METRES_PER[units.distance] ? [short, long] : [long, short];
  const tries: Array<[ScaleSystem, number]> = [
    [first, SCALE_MIN_WIDTH],
    [second, SCALE_MIN_WIDTH],
    [first, SCALE_MIN_WIDTH * 0.55],
    [second, SCALE_MIN_WIDTH * 0.55],
  ];
  const fit = tries.find(([system, width]) => allowed.has(scaleUnitShown(system, width * metresPerPixel)));
  const [system, minWidth] = fit ?? [long, SCALE_MIN_WIDTH];
  return { system, minWidth: Math.round(minWidth) };
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
