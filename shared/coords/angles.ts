/**
 * Latitude/longitude written as field people write them: decimal degrees, degrees and decimal
 * minutes, or degrees-minutes-seconds, with or without symbols, hemisphere letters before or
 * after, or signs ("45°45'32"N 4°50'31"E", "45 45 32 N 4 50 31 E", "N45°45.533' E4°50.517'",
 * "-33.8568, 151.2153").
 */

export type AngleStyle = 'dd' | 'ddm' | 'dms';

export interface LatLon {
  lat: number;
  lon: number;
}

type Unit = 'deg' | 'min' | 'sec';
type Token = { t: 'num'; v: number; text: string; unit: Unit | null } | { t: 'hem'; v: 'N' | 'S' | 'E' | 'W' } | { t: 'sep' };

// Typographic marks people paste (primes, curly quotes, masculine ordinal, ring) read as ASCII.
const MARKS: [RegExp, string][] = [
  [/[º˚ᵒ]/g, '°'],
  [/[′’‘`´]/g, "'"],
  [/[″”“]|''/g, '"'],
];

const UNIT_WORDS: Record<string, Unit> = {
  '°': 'deg', d: 'deg', deg: 'deg', '\'': 'min', m: 'min', min: 'min', '"': 'sec', s: 'sec', sec: 'sec',
};
const HEMISPHERES: Record<string, 'N' | 'S' | 'E' | 'W'> = {
  n: 'N', north: 'N', s: 'S', south: 'S', e: 'E', east: 'E', w: 'W', west: 'W',
};

const TOKEN = /\s*(?:([-+−]?\d+(?:\.\d+)?)\s*(°|'|"|deg|min|sec|d(?![a-z])|m(?![a-z])|s(?![a-z]))?|(north|south|east|west|[NSEWnsew])(?![a-z])|([,;/]))/y;

function tokenize(text: string): Token[] | null {
  let s = text.trim();
  for (const [re, to] of MARKS) s = s.replace(re, to);
  const out: Token[] = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < s.length) {
    const start = TOKEN.lastIndex;
    const m = TOKEN.exec(s);
    if (!m) return s.slice(start).trim() === '' ? out : null;
    if (m[1] !== undefined) {
      const raw = m[1].replace('−', '-');
      // A lone lower-case "s" after a number is seconds only when other units were written.
      out.push({ t: 'num', v: Number(raw), text: raw, unit: m[2] ? UNIT_WORDS[m[2]]! : null });
    } else if (m[3] !== undefined) out.push({ t: 'hem', v: HEMISPHERES[m[3].toLowerCase()]! });
    else out.push({ t: 'sep' });
  }
  return out;
}

/** Splits the tokens into the two angles of a pair, by separator, hemisphere letters or units. */
function split(tokens: Token[]): [Token[], Token[]] | null {
  const seps = tokens.flatMap((t, i) => (t.t === 'sep' ? [i] : []));
  if (seps.length > 1) return null;
  if (seps.length === 1) return [tokens.slice(0, seps[0]), tokens.slice(seps[0]! + 1)];
  const hems = tokens.flatMap((t, i) => (t.t === 'hem' ? [i] : []));
  if (hems.length === 2) {
    // Letters before the numbers (N45 E4) start an angle; letters after them (45N 4E) end one.
    const cut = hems[0] === 0 ? hems[1]! : hems[0]! + 1;
    return [tokens.slice(0, cut), tokens.slice(cut)];
  }
  if (hems.length !== 0) return null;
  const degs = tokens.flatMap((t, i) => (t.t === 'num' && t.unit === 'deg' ? [i] : []));
  if (degs.length === 2) return [tokens.slice(0, degs[1]), tokens.slice(degs[1])];
  if (tokens.some((t) => t.t === 'num' && t.unit !== null)) return null;
  // Bare numbers: 2 are degrees, 4 degrees and minutes, 6 degrees, minutes and seconds.
  if (![2, 4, 6].includes(tokens.length)) return null;
  return [tokens.slice(0, tokens.length / 2), tokens.slice(tokens.length / 2)];
}

interface Angle {
  value: number;
  hem: 'N' | 'S' | 'E' | 'W' | null;
  style: AngleStyle;
}

const UNIT_ORDER: Unit[] = ['deg', 'min', 'sec'];

function angle(tokens: Token[]): Angle | null {
  const nums = tokens.filter((t) => t.t === 'num');
  const hems = tokens.filter((t) => t.t === 'hem');
  if (nums.length < 1 || nums.length > 3 || hems.length > 1) return null;
  // Units, when written, must be deg < min < sec in that order; missing ones follow by position.
  const parts: number[] = [0, 0, 0];
  let slot = -1;
  for (let i = 0; i < nums.length; i++) {
    const n = nums[i]!;
    const at = n.unit ? UNIT_ORDER.indexOf(n.unit) : slot + 1;
    if (at <= slot || at > 2) return null;
    // Only the last written part may carry a fraction, and only the degrees a sign.
    if (i < nums.length - 1 && n.text.includes('.')) return null;
    if (at > 0 && /^[-+]/.test(n.text)) return null;
    if (at > 0 && n.v >= 60) return null;
    parts[at] = Math.abs(n.v);
    slot = at;
  }
  const first = nums[0]!;
  const negative = /^-/.test(first.text);
  const hem = hems.length ? (hems[0] as { v: 'N' | 'S' | 'E' | 'W' }).v : null;
  if (negative && hem) return null;
  const value = parts[0]! + parts[1]! / 60 + parts[2]! / 3600;
  const style: AngleStyle = slot === 2 ? 'dms' : slot === 1 ? 'ddm' : 'dd';
  return { value: negative || hem === 'S' || hem === 'W' ? -value : value, hem, style };
}

/** A latitude/longitude pair in DD, DDM or DMS; null when the text is not one. */
export function parseAngles(text: string): (LatLon & { style: AngleStyle }) | null {
  const tokens = tokenize(text);
  if (!tokens || tokens.length < 2) return null;
  const halves = split(tokens);
  if (!halves) return null;
  const a = angle(halves[0]);
  const b = angle(halves[1]);
  if (!a || !b) return null;
  const isLon = (x: Angle) => x.hem === 'E' || x.hem === 'W';
  const isLat = (x: Angle) => x.hem === 'N' || x.hem === 'S';
  if ((isLon(a) && isLon(b)) || (isLat(a) && isLat(b))) return null;
  // Latitude first unless the letters say otherwise.
  const [lat, lon] = isLon(a) || isLat(b) ? [b, a] : [a, b];
  if (Math.abs(lat.value) > 90 || Math.abs(lon.value) > 180) return null;
  const rank: AngleStyle[] = ['dd', 'ddm', 'dms'];
  const style = rank[Math.max(rank.indexOf(a.style), rank.indexOf(b.style))]!;
  return { lat: lat.value, lon: lon.value, style };
}
