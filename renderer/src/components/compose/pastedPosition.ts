import { formatDecimal, parseCoord, type PasteConversion } from '../../../../shared/coords';

export type PastedPosition = { lat: number; lon: number; conversion: PasteConversion } | { error: string };

/**
 * What a paste into a latitude or longitude box means: a whole position in any notation (decimal
 * pair, DMS, DDM, UTM, MGRS) fills both boxes; a lone number is typed as usual (null); anything
 * else is said to be unreadable rather than dropped by the number box.
 */
export function pastedPosition(text: string): PastedPosition | null {
  const s = text.trim();
  if (!s || /^[-+]?\d+(?:\.\d+)?$/.test(s)) return null;
  const p = parseCoord(s);
  if ('error' in p) return { error: p.error };
  return { lat: p.lat, lon: p.lon, conversion: { from: s, to: formatDecimal(p), format: p.format } };
}
