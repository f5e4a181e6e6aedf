import { parseAngles, type LatLon } from './angles';
import type { CoordFormat } from './format';
import { fromMgrs, fromUtm } from './grid';

export type ParsedCoord = LatLon & { format: CoordFormat };
export type CoordParse = ParsedCoord | { error: string };

const MGRS = /^(\d{1,2}\s*[C-HJ-NP-X])\s*([A-HJ-NP-Z][A-HJ-NP-V])\s*(\d{1,5})\s*(\d{0,5})$/i;
const UTM = /^(?:UTM\s*)?(\d{1,2})\s*([A-Z])\s*,?\s+(\d{3,7}(?:\.\d+)?)\s*(?:m\s*)?E?\s*,?\s+(\d{1,8}(?:\.\d+)?)\s*(?:m\s*)?N?$/i;

/** Any of decimal degrees, DDM, DMS, UTM or MGRS, to degrees; an error says what was not read. */
export function parseCoord(text: string): CoordParse {
  const s = text.trim();
  if (!s) return { error: 'No coordinate given' };
  const mgrs = MGRS.exec(s);
  if (mgrs) {
    const digits = mgrs[3]! + mgrs[4]!;
    // Easting and northing have the same number of digits (split evenly when written together).
    if (digits.length % 2 !== 0) return { error: `"${s}": an MGRS reference has as many easting as northing digits` };
    const p = fromMgrs(`${mgrs[1]!.replace(/\s/g, '')}${mgrs[2]}${digits}`);
    return 'error' in p ? p : { ...p, format: 'mgrs' };
  }
  const utm = UTM.exec(s);
  if (utm) {
    const p = fromUtm(Number(utm[1]), utm[2]!, Number(utm[3]), Number(utm[4]));
    return 'error' in p ? { error: `"${s}": ${p.error}` } : { ...p, format: 'utm' };
  }
  const a = parseAngles(s);
  if (a) return { lat: a.lat, lon: a.lon, format: a.style };
  return { error: `"${s}" is not a coordinate Fieldlens reads (decimal degrees, DMS, degrees and decimal minutes, UTM or MGRS)` };
}
