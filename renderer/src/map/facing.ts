import { COMPASS_POINTS } from '../../../shared/service/imagery';

/**
 * Numeric facing fields, in the order they are trusted: the bundled service's `heading`, and the
 * Mapillary-style angles remote services send. Degrees, 0 = north, clockwise.
 */
export const FACING_FIELDS = ['heading', 'compass_angle', 'computed_compass_angle'] as const;

const ABBREVIATIONS: readonly string[] = COMPASS_POINTS.map(([, abbr]) => abbr);

/** The bearing of a compass text as spec 2.6 writes it ("North-East (NE)"), or null. */
export function bearingOfCompassText(text: unknown): number | null {
  if (typeof text !== 'string') return null;
  const abbr = /\(([NESW]{1,3})\)/.exec(text)?.[1];
  const i = abbr === undefined ? -1 : ABBREVIATIONS.indexOf(abbr);
  return i < 0 ? null : (i * 360) / ABBREVIATIONS.length;
}

/**
 * Which way a capture faces, in degrees [0, 360), or null when unknown. A numeric field wins
 * over the compass text (it is finer than 16 points); a numeric field present but null means
 * the service does not know the facing, whatever placeholder text it also sends.
 */
export function facingDegrees(props: Readonly<Record<string, unknown>>): number | null {
  for (const field of FACING_FIELDS) {
    if (!(field in props)) continue;
    const v = props[field];
    if (typeof v === 'number' && Number.isFinite(v)) {
      const d = v % 360;
      return d < 0 ? d + 360 : d;
    }
    if (v === null) return null;
  }
  return bearingOfCompassText(props['compass']);
}

/**
 * OpenLayers rotation (radians, clockwise) of an arrow drawn pointing up so that it points along
 * `degrees` on a north-up map; styles set rotateWithView so a turned view keeps it geographic.
 */
export const arrowRotation = (degrees: number): number => (degrees * Math.PI) / 180;
