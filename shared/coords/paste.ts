import { formatDecimal } from './format';
import { parseCoord, type ParsedCoord } from './parse';

export interface PasteConversion {
  from: string;
  to: string;
  format: ParsedCoord['format'];
}

// One written angle with a degree sign (the unambiguous part of DMS/DDM inside running text).
const ANGLE = /(?:[NSEW]\s?)?[-+]?\d{1,3}(?:\.\d+)?\s?[°º˚](?:\s?\d{1,2}(?:\.\d+)?\s?['′’])?(?:\s?\d{1,2}(?:\.\d+)?\s?(?:["″”]|''))?(?:\s?[NSEW](?![A-Za-z]))?/g;
const MGRS_IN_TEXT = /\b\d{1,2}[C-HJ-NP-X]\s?[A-HJ-NP-Z][A-HJ-NP-V]\s?\d{2,5}\s?\d{2,5}\b/g;

/**
 * Rewrites coordinates in pasted text to decimal degrees ("lat, lon"), which every part of the
 * app reads. A paste that is one coordinate is converted whole; inside longer text, MGRS
 * references and pairs of angles written with degree signs are. Decimal input is left as typed.
 */
export function rewritePaste(text: string): { text: string; conversions: PasteConversion[] } {
  const whole = parseCoord(text);
  if (!('error' in whole)) {
    if (whole.format === 'dd') return { text, conversions: [] };
    const to = formatDecimal(whole);
    return { text: to, conversions: [{ from: text.trim(), to, format: whole.format }] };
  }
  const spans: { start: number; end: number; coord: ParsedCoord }[] = [];
  for (const m of text.matchAll(MGRS_IN_TEXT)) {
    const p = parseCoord(m[0]);
    if (!('error' in p)) spans.push({ start: m.index, end: m.index + m[0].length, coord: p });
  }
  const angles = [...text.matchAll(ANGLE)];
  for (let i = 0; i + 1 < angles.length; i++) {
    const a = angles[i]!;
    const b = angles[i + 1]!;
    const gap = text.slice(a.index + a[0].length, b.index);
    if (!/^[\s,;/]*$/.test(gap)) continue;
    const end = b.index + b[0].length;
    const p = parseCoord(text.slice(a.index, end));
    if ('error' in p) continue;
    spans.push({ start: a.index, end, coord: p });
    i++;
  }
  spans.sort((x, y) => x.start - y.start);
  let out = '';
  let at = 0;
  const conversions: PasteConversion[] = [];
  for (const s of spans) {
    if (s.start < at) continue;
    const to = formatDecimal(s.coord);
    out += text.slice(at, s.start) + to;
    conversions.push({ from: text.slice(s.start, s.end), to, format: s.coord.format });
    at = s.end;
  }
  return { text: out + text.slice(at), conversions };
}
