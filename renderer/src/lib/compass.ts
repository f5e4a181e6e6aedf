import { COMPASS_POINTS } from '../../../shared/service/imagery';

/**
 * Degrees clockwise from north for a facing written as spec 2.6 does ("North-East (NE)"), by
 * its abbreviation or its name; a bare number of degrees is read as is. Null when unreadable.
 */
export function compassDegrees(text: string | null | undefined): number | null {
  if (!text) return null;
  const t = text.trim();
  if (/^-?\d+(\.\d+)?°?$/.test(t)) return ((parseFloat(t) % 360) + 360) % 360;
  const abbr = /\(([NESW]{1,3})\)\s*$/.exec(t)?.[1];
  const i = COMPASS_POINTS.findIndex(([name, a]) => a === abbr || name.toLowerCase() === t.toLowerCase());
  return i < 0 ? null : i * 22.5;
}
