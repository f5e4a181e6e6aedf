import { wktToGeoJSON } from '@terraformer/wkt';
import type { Geometry } from 'geojson';
import Papa from 'papaparse';
import { Geometry as GeometrySchema } from '../../../shared/service/geojson';
import { guessProjected } from './checks';
import { representativePoint } from './geometry';
import { cut, excerpt, MAX_LABEL, MAX_TEXT } from './text';
import { protoWarning, setOwn, UploadError, type ReadContext, type TypedColumn, type UploadFeature } from './types';

const LAT = ['lat', 'latitude', 'lat_deg', 'latitude_deg', 'y', 'ylat', 'lat_dd'];
const LON = ['lon', 'lng', 'long', 'longitude', 'lon_deg', 'longitude_deg', 'x', 'xlon', 'lon_dd'];
const WKT = ['wkt', 'geometry', 'geom', 'the_geom', 'shape', 'wkt_geom'];
export const NAME = ['name', 'title', 'label', 'site', 'site_name', 'sitename', 'place'];
export const ID = ['id', 'fid', 'site_id', 'uid', 'code'];
export const ADDRESS = ['address', 'addr', 'street', 'location'];
const WKT_VALUE = /^\s*(SRID=\d+;\s*)?(POINT|LINESTRING|POLYGON|MULTIPOINT|MULTILINESTRING|MULTIPOLYGON|GEOMETRYCOLLECTION)\b/i;
// Numbers as a spreadsheet writes them; leading zeros ("007", postcodes) stay text.
const NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;
const BOOLEAN = /^(?:true|false)$/i;

// A coordinate as written in a table: decimal, with a point or a comma, optionally in E notation.
const DECIMAL = /^[-+]?(?:\d+(?:[.,]\d*)?|[.,]\d+)(?:[eE][-+]?\d+)?$/;
/** The number a coordinate cell holds; NaN for anything else (Number() would also take "0x10" as 16). */
const decimal = (s: string) => (DECIMAL.test(s) ? Number(s.replace(',', '.')) : NaN);

export const norm = (h: string) => h.trim().toLowerCase().replace(/[\s-]+/g, '_');

/**
 * Most vertices of one WKT cell. The WKT parser's time grows faster than the text (10,000
 * vertices take about 0.2 s, 40,000 over 10 s), so longer geometries come as GeoJSON.
 */
export const MAX_WKT_VERTICES = 10_000;

/** Whether a text holds more than `n` commas (a WKT's vertices, less one per part). */
function commasPast(s: string, n: number): boolean {
  let count = 0;
  for (let i = s.indexOf(','); i !== -1; i = s.indexOf(',', i + 1)) if (++count > n) return true;
  return false;
}

/** Rows read before the coordinate columns are chosen (by header, else by their values). */
const HEAD_ROWS = 50;
/** Characters parsed per slice of work. */
const CHUNK = 8 * 1024;
/** Out-of-range positions kept to guess a projected CRS. */
const CRS_SAMPLES = 1000;

interface Rec {
  fields: string[];
  line: number;
  error: string | null;
  /** Ordinal among data rows (1 = the row after the header). */
  n?: number;
}

/**
 * End of a chunk of whole records at or after `from + size`: the first line break past it that is
 * not inside a quoted field (quote parity; doubled quotes toggle twice).
 */
export function chunkEnd(text: string, from: number, size: number): number {
  const goal = from + size;
  if (goal >= text.length) return text.length;
  let inQuotes = false;
  let q = text.indexOf('"', from);
  while (q !== -1 && q < goal) {
    inQuotes = !inQuotes;
    q = text.indexOf('"', q + 1);
  }
  for (let nl = text.indexOf('\n', goal); nl !== -1; nl = text.indexOf('\n', nl + 1)) {
    while (q !== -1 && q < nl) {
      inQuotes = !inQuotes;
      q = text.indexOf('"', q + 1);
    }
    if (!inQuotes) return nl + 1;
  }
  return text.length;
}

/** Records of a CSV text with the line each starts on, one chunk at a time between slices. */
async function* records(text: string, delimiter: string, ctx: ReadContext): AsyncGenerator<Rec[]> {
  let counted = 0;
  let breaks = 0; // line breaks in text[0, counted)
  const countTo = (end: number) => {
    for (let i = text.indexOf('\n', counted); i !== -1 && i < end; i = text.indexOf('\n', i + 1)) breaks++;
    counted = end;
  };
  for (let start = 0; start < text.length; ) {
    const end = chunkEnd(text, start, CHUNK);
    const recs: Rec[] = [];
    Papa.parse<string[]>(text.slice(start, end), {
      delimiter,
      skipEmptyLines: 'greedy',
      step: (r) => {
        const cursor = start + r.meta.cursor;
        countTo(cursor);
        let inner = 0;
        for (const f of r.data) for (let i = f.indexOf('\n'); i !== -1; i = f.indexOf('\n', i + 1)) inner++;
        // The record's own line break, unless an unterminated quote swallowed it into the last field.
        const ended = text.charCodeAt(cursor - 1) === 10 && !r.data[r.data.length - 1]?.endsWith('\n') ? 1 : 0;
        recs.push({ fields: r.data, line: breaks + 1 - inner - ended, error: r.errors[0]?.message ?? null });
      },
    });
    yield recs;
    start = end;
    if (ctx.slice.due()) await ctx.slice.pause();
  }
}

interface Columns {
  headers: string[];
  lat: number;
  lon: number;
  wkt: number;
  name: number;
  id: number;
  address: number;
}

function columns(file: string, header: Rec, head: Rec[], ctx: ReadContext): Columns {
  const seen = new Map<string, number[]>();
  const headers = header.fields.map((raw, i) => {
    let h = raw.replace(/^\ufeff/, '').trim() || `column ${i + 1}`;
    const short = cut(h, MAX_LABEL);
    if (short !== null) {
      ctx.report.truncated({ file, line: header.line, column: `header of column ${i + 1}`, length: h.length });
      h = short;
    }
    const at = seen.get(h);
    if (at) {
      at.push(i);
      return `${h}_${at.length}`;
    }
    seen.set(h, [i]);
    return h;
  });
  for (const [h, at] of seen) {
    if (at.length < 2) continue;
    ctx.report.warn({
      code: 'duplicate_header',
      message: `${file}: column "${excerpt(h)}" appears ${at.length} times (columns ${at.map((i) => i + 1).join(', ')}); column ${at[0]! + 1} was used, the others are kept as ${at.slice(1).map((_, k) => `"${excerpt(h)}_${k + 2}"`).join(', ')}`,
      file,
      column: h,
      columns: at.map((i) => i + 1),
      used: at[0]! + 1,
    });
  }
  if (headers.includes('__proto__')) ctx.report.warn(protoWarning(file, 'column'));
  const find = (names: string[]) => headers.findIndex((h) => names.includes(norm(h)));
  const value = (r: Rec, i: number) => r.fields[i] ?? '';
  let lat = find(LAT);
  let lon = find(LON);
  let wkt = find(WKT);
  if (wkt >= 0 && !head.some((r) => WKT_VALUE.test(value(r, wkt)))) wkt = -1;
  // No known header: look at the values.
  if (wkt < 0 && !(lat >= 0 && lon >= 0)) {
    wkt = headers.findIndex((_, i) => head.slice(0, 20).some((r) => WKT_VALUE.test(value(r, i))));
    if (wkt < 0) {
      const numeric = (i: number, max: number) =>
        head.length > 0 && head.every((r) => Math.abs(Number(value(r, i))) <= max && value(r, i).trim() !== '');
      if (lat < 0) lat = headers.findIndex((h, i) => /lat/i.test(h) && numeric(i, 90));
      if (lon < 0) lon = headers.findIndex((h, i) => /lon|lng/i.test(h) && numeric(i, 180));
    }
  }
  if (wkt < 0 && !(lat >= 0 && lon >= 0))
    throw new UploadError(
      file,
      header.line,
      `no coordinate columns: expected latitude/longitude or WKT headers, found ${excerpt(headers.join(', '), 120)}`,
      'no_coordinate_columns',
    );
  let name = find(NAME);
  if (name < 0 && ctx.nameHeaders) {
    const other = ctx.nameHeaders();
    name = headers.findIndex((h) => other.has(norm(h)));
  }
  return { headers, lat: wkt >= 0 ? -1 : lat, lon: wkt >= 0 ? -1 : lon, wkt, name, id: find(ID), address: find(ADDRESS) };
}

/** What a markup document sent as a table seems to be (a web page saved under a .csv name), or null. */
function markupKind(text: string): string | null {
  const head = text.slice(0, 1024).trimStart().toLowerCase();
  if (/^<!doctype html|^<html[\s>]|^<head[\s>]|^<body[\s>]/.test(head)) return 'an HTML page';
  if (/^<\?xml|^<!doctype|^<[a-z][\w:-]*[\s>]/.test(head) && head.includes('>')) return 'an XML or HTML document';
  return null;
}

/** Reads a CSV (any of `,` `;` tab `|`): every readable row; the others are reported. */
export async function readCsv(file: string, text: string, ctx: ReadContext): Promise<UploadFeature[]> {
  if (!text.trim()) throw new UploadError(file, null, 'file is empty', 'empty');
  const markup = markupKind(text);
  if (markup) throw new UploadError(file, 1, `not CSV: it looks like ${markup}; save the table as CSV`, 'not_csv');
  const delimiter = Papa.parse(text.slice(0, 64 * 1024), { delimitersToGuess: [',', ';', '\t', '|'], preview: 20, skipEmptyLines: 'greedy' }).meta.delimiter;
  const { report } = ctx;
  const out: UploadFeature[] = [];
  const { sink } = ctx;
  const add = sink ? (f: UploadFeature) => sink.add(f) : (f: UploadFeature) => void out.push(f);
  const outOfRange: [number, number][] = [];
  let header: Rec | null = null;
  let cols: Columns | null = null;
  let head: Rec[] = [];
  let dataRows = 0;
  let numeric: boolean[] = [];
  let boolean: boolean[] = [];
  let filled: number[] = [];

  const start = () => {
    cols = columns(file, header!, head, ctx);
    const at = (i: number) => (i >= 0 ? cols!.headers[i]! : null);
    ctx.onColumns?.(file, { latitude: at(cols.lat), longitude: at(cols.lon), wkt: at(cols.wkt) });
    numeric = cols.headers.map(() => true);
    boolean = cols.headers.map(() => true);
    filled = cols.headers.map(() => 0);
    for (const r of head) row(r);
    head = [];
  };

  const row = (r: Rec) => {
    const c = cols!;
    const bad = (reason: string) => report.badRow(file, r.line, reason);
    if (r.error) return bad(r.error);
    const f = r.fields;
    if (f.length < c.headers.length || (f.length > c.headers.length && f.slice(c.headers.length).some((v) => v.trim() !== '')))
      return bad(`expected ${c.headers.length} fields, found ${f.length}`);
    let geometry: Geometry;
    if (c.wkt >= 0) {
      const v = (f[c.wkt] ?? '').replace(/^\s*SRID=\d+;\s*/i, '');
      if (commasPast(v, MAX_WKT_VERTICES - 1))
        return bad(`"${excerpt(c.headers[c.wkt]!)}" has more than ${MAX_WKT_VERTICES.toLocaleString('en')} vertices, the limit for WKT in a table; simplify it, or send the file as GeoJSON`);
      try {
        geometry = wktToGeoJSON(v);
      } catch {
        return bad(`"${excerpt(c.headers[c.wkt]!)}" is not valid WKT: ${excerpt(v)}`);
      }
      if (!GeometrySchema.safeParse(geometry).success) {
        const p = representativePoint(geometry);
        if (p && !(Number.isFinite(p[0]) && Number.isFinite(p[1])))
          return bad(`"${excerpt(c.headers[c.wkt]!)}" has coordinates out of range (not finite numbers)`);
        if (p && outOfRange.length < CRS_SAMPLES) outOfRange.push(p);
        return bad(`"${excerpt(c.headers[c.wkt]!)}" has coordinates outside longitude -180..180 / latitude -90..90`);
      }
    } else {
      const latS = (f[c.lat] ?? '').trim();
      const lonS = (f[c.lon] ?? '').trim();
      const lat = decimal(latS);
      const lon = decimal(lonS);
      if (latS === '') return bad('latitude is empty');
      if (lonS === '') return bad('longitude is empty');
      if (Number.isNaN(lat)) return bad(`latitude "${excerpt(latS)}" is not a number`);
      if (Number.isNaN(lon)) return bad(`longitude "${excerpt(lonS)}" is not a number`);
      if (!Number.isFinite(lat) || !Number.isFinite(lon))
        return bad(`${!Number.isFinite(lat) ? `latitude "${excerpt(latS)}"` : `longitude "${excerpt(lonS)}"`} is out of range (not a finite number)`);
      if (Math.abs(lat) > 90 || Math.abs(lon) > 180) {
        if (outOfRange.length < CRS_SAMPLES) outOfRange.push([lon, lat]);
        return bad(Math.abs(lat) > 90 ? `latitude ${lat} is outside -90..90` : `longitude ${lon} is outside -180..180`);
      }
      geometry = { type: 'Point', coordinates: [lon, lat] };
    }
    const rep = representativePoint(geometry);
    if (!rep) return bad('empty geometry');
    const n = r.n!;
    const label = (i: number, fallback: string) => {
      const v = i >= 0 ? (f[i] ?? '') : '';
      if (!v) return fallback;
      const short = cut(v, MAX_LABEL);
      if (short === null) return v;
      report.truncated({ file, line: r.line, column: `${c.headers[i]} (as ${i === c.name ? 'name' : i === c.id ? 'id' : 'address'})`, length: v.length });
      return short;
    };
    const attributes: Record<string, unknown> = {};
    for (let i = 0; i < c.headers.length; i++) {
      if (i === c.lat || i === c.lon || i === c.wkt) continue;
      let v = f[i] ?? '';
      if (v !== '') {
        filled[i]!++;
        if (numeric[i] && !(NUMBER.test(v) && v.replace(/\D/g, '').length <= 15)) numeric[i] = false;
        if (boolean[i] && !BOOLEAN.test(v)) boolean[i] = false;
      }
      const short = cut(v, MAX_TEXT);
      if (short !== null) {
        report.truncated({ file, line: r.line, column: c.headers[i]!, length: v.length });
        v = short;
      }
      setOwn(attributes, c.headers[i]!, v);
    }
    add({
      id: label(c.id, String(n)),
      file,
      name: label(c.name, `${file} row ${n}`),
      address: label(c.address, ''),
      geometry,
      lon: rep[0],
      lat: rep[1],
      country: ctx.countryAt(rep[0], rep[1]),
      attributes,
    });
  };

  for await (const recs of records(text, delimiter, ctx)) {
    for (let k = 0; k < recs.length; k++) {
      const r = recs[k]!;
      if (!header) {
        header = r;
        continue;
      }
      r.n = ++dataRows;
      if (cols) row(r);
      else if (head.push(r) >= HEAD_ROWS) start();
      if ((k & 63) === 63 && ctx.slice.due()) await ctx.slice.pause();
    }
  }
  if (!header) throw new UploadError(file, null, 'file is empty', 'empty');
  if (!dataRows) throw new UploadError(file, null, 'file has a header and no rows', 'header_only');
  if (!cols) start();
  if (!(sink ? sink.count : out.length)) {
    const crs = guessProjected(outOfRange);
    if (crs && outOfRange.length === dataRows) throw new UploadError(file, null, crs, 'crs');
    const first = report.badRowsOf(file).slice(0, 3).map((b) => `line ${b.line}: ${b.reason}`);
    throw new UploadError(file, null, `none of its ${dataRows} row(s) could be read (${first.join('; ')})`, 'no_usable_rows');
  }
  const crs = guessProjected(outOfRange);
  if (crs) report.warn({ code: 'crs', message: `${file}: ${outOfRange.length} row(s) out of range: ${crs}`, file });
  const c = cols!;
  const typed = c.headers.flatMap((key, i): TypedColumn[] => {
    if (!filled[i] || i === c.lat || i === c.lon || i === c.wkt) return [];
    return numeric[i] ? [{ key, as: 'number' }] : boolean[i] ? [{ key, as: 'boolean' }] : [];
  });
  if (sink) sink.typed(typed);
  else await typeColumns(typed, out, ctx);
  return out;
}

/** Columns whose every filled value is a number (or true/false) become numbers (or booleans); empty cells null. */
async function typeColumns(typed: TypedColumn[], out: UploadFeature[], ctx: ReadContext) {
  if (!typed.length) return;
  for (let j = 0; j < out.length; j++) {
    const a = out[j]!.attributes;
    for (const t of typed) {
      const v = a[t.key] as string;
      setOwn(a, t.key, v === '' ? null : t.as === 'number' ? Number(v) : v.toLowerCase() === 'true');
    }
    if ((j & 1023) === 0 && ctx.slice.due()) await ctx.slice.pause();
  }
}
