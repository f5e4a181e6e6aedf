import { signedAt, type Token } from './words';

/** A latitude/longitude box in degrees; west > east crosses the antimeridian. */
export interface BBox {
  west: number;
  south: number;
  east: number;
  north: number;
}

export type BBoxReading = { box: BBox; len: number } | { error: string; len: number };

const BOX_WORDS = new Set(['bbox', 'extent']);
const LAT_WORDS = new Set(['latitude', 'latitudes', 'lat']);
const LON_WORDS = new Set(['longitude', 'longitudes', 'lon', 'lng', 'long']);
/** Words that may name a box the reading did not take: left over, they make the question unreadable. */
const AREA_WORDS = new Set([...BOX_WORDS, 'box', ...LAT_WORDS, ...LON_WORDS]);
/** Area words that are also plain English ("a long runway"): an area only when coordinates follow. */
const PLAIN_AREA_WORDS = new Set(['long']);

/**
 * Whether the word at i, which no rule read, meant an area: an area word, and for one that is also
 * a plain word, with a figure in the next few words ("long 4 to 5", "long between 4 and 5").
 */
export function areaWordAt(t: Token[], i: number): boolean {
  const w = t[i]?.w ?? '';
  if (!AREA_WORDS.has(w)) return false;
  if (!PLAIN_AREA_WORDS.has(w)) return true;
  let j = i + 1;
  while (['between', 'from', 'of', 'is', '=', ':'].includes(t[j]?.w ?? '')) j++;
  return signedAt(t, j) !== null;
}
const HEMISPHERE: Record<string, { axis: 'lat' | 'lon'; sign: number }> = {
  n: { axis: 'lat', sign: 1 }, s: { axis: 'lat', sign: -1 }, e: { axis: 'lon', sign: 1 }, w: { axis: 'lon', sign: -1 },
};
const RANGE_JOIN = new Set(['and', 'to', '-', 'through']);

interface AxisRange {
  axis: 'lat' | 'lon';
  lo: number;
  hi: number;
  len: number;
}

/**
 * A box at i, in the forms people write: "bbox 4.5,45.5,5.5,46" (west, south, east, north),
 * "between latitude 45.5 and 46 and longitude 4.5 and 5.5" (either axis first) and
 * "45.5N to 46N, 4.5E to 5.5E". A box word with figures that do not make a box is an error.
 */
export function bboxAt(t: Token[], i: number): BBoxReading | null {
  const w = (k: number) => t[k]?.w ?? '';
  if (BOX_WORDS.has(w(i)) || (w(i) === 'bounding' && w(i + 1) === 'box')) {
    let j = i + (w(i) === 'bounding' ? 2 : 1);
    if (['of', 'is', '='].includes(w(j))) j++;
    const v: number[] = [];
    while (v.length < 4) {
      if (w(j) === ',') j++;
      const n = signedAt(t, j);
      if (n === null) break;
      v.push(n);
      j++;
    }
    if (v.length < 4) return { error: 'a bounding box needs four numbers: west, south, east, north (e.g. "bbox 4.5,45.5,5.5,46")', len: j - i };
    return checked({ west: v[0]!, south: v[1]!, east: v[2]!, north: v[3]! }, j - i);
  }
  const first = axisAt(t, i);
  if (!first) return null;
  let j = i + first.len;
  if (w(j) === ',' || w(j) === 'and') j++;
  if (w(j) === ',' || w(j) === 'and') j++;
  const second = axisAt(t, j);
  if (!second || second.axis === first.axis) {
    // One axis alone is no box, but the words plainly meant one.
    return { error: `read a ${first.axis === 'lat' ? 'latitude' : 'longitude'} range but no ${first.axis === 'lat' ? 'longitude' : 'latitude'} range to make a box`, len: first.len };
  }
  const lat = first.axis === 'lat' ? first : second;
  const lon = first.axis === 'lon' ? first : second;
  return checked({ west: lon.lo, south: lat.lo, east: lon.hi, north: lat.hi }, j + second.len - i);
}

/** "latitude 45.5 and 46", "between lat 45.5 to 46", "45.5N to 46N": one axis range. */
function axisAt(t: Token[], i: number): AxisRange | null {
  const w = (k: number) => t[k]?.w ?? '';
  let j = i;
  if (w(j) === 'between' || w(j) === 'from') j++;
  let axis: 'lat' | 'lon' | null = LAT_WORDS.has(w(j)) ? 'lat' : LON_WORDS.has(w(j)) ? 'lon' : null;
  if (axis) {
    j++;
    if (w(j) === 'between' || w(j) === 'from') j++;
    const a = signedAt(t, j);
    const b = RANGE_JOIN.has(w(j + 1)) ? signedAt(t, j + 2) : null;
    if (a === null || b === null) return null;
    return { axis, lo: Math.min(a, b), hi: Math.max(a, b), len: j + 3 - i };
  }
  const a = signedAt(t, j);
  const ha = HEMISPHERE[w(j + 1)];
  if (a === null || !ha || !RANGE_JOIN.has(w(j + 2))) return null;
  const b = signedAt(t, j + 3);
  const hb = HEMISPHERE[w(j + 4)];
  if (b === null || !hb || hb.axis !== ha.axis) return null;
  axis = ha.axis;
  const x = a * ha.sign;
  const y = b * hb.sign;
  return { axis, lo: Math.min(x, y), hi: Math.max(x, y), len: j + 5 - i };
}

function checked(box: BBox, len: number): BBoxReading {
  const { west, south, east, north } = box;
  if (![south, north].every((v) => v >= -90 && v <= 90)) return { error: `latitudes must lie between -90 and 90 (read ${south} and ${north})`, len };
  if (![west, east].every((v) => v >= -180 && v <= 180)) return { error: `longitudes must lie between -180 and 180 (read ${west} and ${east})`, len };
  if (south >= north) return { error: `the box's south edge (${south}) must be below its north edge (${north}); the order is west, south, east, north`, len };
  if (west === east) return { error: 'the box has no width (west and east are equal)', len };
  return { box, len };
}

/** Whether a point lies in the box (edges included). */
export function inBox(b: BBox, lon: number, lat: number): boolean {
  if (lat < b.south || lat > b.north) return false;
  return b.west <= b.east ? lon >= b.west && lon <= b.east : lon >= b.west || lon <= b.east;
}

export const boxText = (b: BBox) => `${b.west},${b.south},${b.east},${b.north} (west, south, east, north)`;
