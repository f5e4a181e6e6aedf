import { wktToGeoJSON } from '@terraformer/wkt';
import type { Geometry, Position } from 'geojson';
import { parse as parseJsonc, printParseErrorCode, type ParseError } from 'jsonc-parser';
import Papa from 'papaparse';
import { Geometry as GeometrySchema } from '../../shared/service/geojson';

/** One feature of an uploaded file, with a representative point for distances. */
export interface UploadFeature {
  id: string;
  file: string;
  name: string;
  address: string;
  geometry: Geometry;
  lon: number;
  lat: number;
  /** ISO alpha-2 of the country holding the representative point ('' if none). */
  country: string;
  attributes: Record<string, unknown>;
}

/** An upload that cannot be read: the route answers 400 naming the file and line. */
export class UploadError extends Error {
  constructor(
    readonly file: string,
    readonly line: number | null,
    message: string,
  ) {
    super(`${file}${line !== null ? ` line ${line}` : ''}: ${message}`);
  }
}

const LAT = ['lat', 'latitude', 'lat_deg', 'latitude_deg', 'y', 'ylat', 'lat_dd'];
const LON = ['lon', 'lng', 'long', 'longitude', 'lon_deg', 'longitude_deg', 'x', 'xlon', 'lon_dd'];
const WKT = ['wkt', 'geometry', 'geom', 'the_geom', 'shape', 'wkt_geom'];
const NAME = ['name', 'title', 'label', 'site', 'site_name', 'sitename', 'place'];
const ID = ['id', 'fid', 'site_id', 'uid', 'code'];
const ADDRESS = ['address', 'addr', 'street', 'location'];
const WKT_VALUE = /^\s*(SRID=\d+;\s*)?(POINT|LINESTRING|POLYGON|MULTIPOINT|MULTILINESTRING|MULTIPOLYGON|GEOMETRYCOLLECTION)\b/i;

const norm = (h: string) => h.trim().toLowerCase().replace(/[\s-]+/g, '_');
const findHeader = (headers: string[], names: string[]) => headers.find((h) => names.includes(norm(h)));

/** Reads an uploaded file as GeoJSON or CSV (by name, then by content). */
export function parseUpload(fileName: string, bytes: Buffer, countryAt: (lon: number, lat: number) => string): UploadFeature[] {
  let text = bytes.toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const ext = fileName.toLowerCase().split('.').pop() ?? '';
  const looksJson = /^\s*[[{]/.test(text);
  const raw = ext === 'geojson' || ext === 'json' || (looksJson && ext !== 'csv' && ext !== 'tsv')
    ? parseGeoJson(fileName, text)
    : parseCsv(fileName, text);
  return raw.map((f) => ({ ...f, country: countryAt(f.lon, f.lat) }));
}

type Raw = Omit<UploadFeature, 'country'>;

function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

function parseGeoJson(file: string, text: string): Raw[] {
  const errors: ParseError[] = [];
  let doc: unknown;
  try {
    doc = parseJsonc(text, errors, { allowTrailingComma: false, disallowComments: true });
  } catch (e) {
    if (e instanceof RangeError) throw new UploadError(file, 1, 'JSON nested too deeply');
    throw e;
  }
  if (errors.length) {
    const e = errors[0]!;
    throw new UploadError(file, lineOf(text, e.offset), `invalid JSON (${printParseErrorCode(e.error)})`);
  }
  const features: { geometry: unknown; properties: Record<string, unknown>; id?: unknown }[] = [];
  const d = doc as { type?: string; features?: unknown[]; geometry?: unknown; properties?: unknown; id?: unknown };
  if (d?.type === 'FeatureCollection' && Array.isArray(d.features)) {
    for (const f of d.features as typeof d[]) {
      features.push({ geometry: f?.geometry, properties: (f?.properties ?? {}) as Record<string, unknown>, id: f?.id });
    }
  } else if (d?.type === 'Feature') features.push({ geometry: d.geometry, properties: (d.properties ?? {}) as Record<string, unknown>, id: d.id });
  else if (typeof d?.type === 'string') features.push({ geometry: d, properties: {} });
  else throw new UploadError(file, 1, 'not a GeoJSON object (FeatureCollection, Feature or geometry)');

  const out: Raw[] = [];
  features.forEach((f, n) => {
    if (f.geometry === null || f.geometry === undefined) return; // unlocated features have no place on a map
    const g = GeometrySchema.safeParse(f.geometry);
    if (!g.success) {
      const at = findFeatureLine(text, n);
      throw new UploadError(file, at, `feature ${n + 1}: invalid geometry (${g.error.issues[0]?.message ?? 'bad shape'})`);
    }
    const rep = representativePoint(g.data as Geometry);
    if (!rep) throw new UploadError(file, findFeatureLine(text, n), `feature ${n + 1}: geometry has no coordinates`);
    const props = f.properties && typeof f.properties === 'object' ? f.properties : {};
    const keys = Object.keys(props);
    const nameKey = keys.find((k) => NAME.includes(norm(k)));
    const addrKey = keys.find((k) => ADDRESS.includes(norm(k)));
    out.push({
      id: String(f.id ?? props[keys.find((k) => ID.includes(norm(k))) ?? ''] ?? n + 1),
      file,
      name: nameKey ? String(props[nameKey]) : `${file} #${n + 1}`,
      address: addrKey ? String(props[addrKey]) : '',
      geometry: g.data as Geometry,
      lon: rep[0],
      lat: rep[1],
      attributes: props,
    });
  });
  return out;
}

// Line of the n-th feature object, for errors about content that parsed as JSON.
function findFeatureLine(text: string, n: number): number {
  let count = -1;
  for (const m of text.matchAll(/"type"\s*:\s*"Feature"/g)) if (++count === n) return lineOf(text, m.index);
  return 1;
}

/** A point that stands for the geometry: the point itself, else the mean of its outer vertices. */
export function representativePoint(g: Geometry): [number, number] | null {
  const pts: Position[] = [];
  const walk = (geom: Geometry) => {
    switch (geom.type) {
      case 'Point':
        pts.push(geom.coordinates);
        break;
      case 'MultiPoint':
      case 'LineString':
        pts.push(...geom.coordinates);
        break;
      case 'MultiLineString':
        for (const l of geom.coordinates) pts.push(...l);
        break;
      case 'Polygon':
        pts.push(...(geom.coordinates[0] ?? []).slice(0, -1));
        break;
      case 'MultiPolygon':
        for (const p of geom.coordinates) pts.push(...(p[0] ?? []).slice(0, -1));
        break;
      case 'GeometryCollection':
        geom.geometries.forEach(walk);
        break;
    }
  };
  walk(g);
  if (!pts.length) return null;
  let x = 0, y = 0;
  for (const p of pts) {
    x += p[0]!;
    y += p[1]!;
  }
  return [x / pts.length, y / pts.length];
}

function parseCsv(file: string, text: string): Raw[] {
  const res = Papa.parse<Record<string, string>>(text, {
    header: true,
    skipEmptyLines: 'greedy',
    delimitersToGuess: [',', ';', '\t', '|'],
    transformHeader: (h) => h.trim(),
  });
  const headers = res.meta.fields ?? [];
  const fatal = res.errors.find((e) => e.type === 'Quotes' || e.code === 'TooManyFields' || e.code === 'TooFewFields');
  if (fatal) {
    // Quote errors carry a character offset; field-count errors a data row (the header is line 1).
    const line = fatal.index !== undefined && fatal.type === 'Quotes' ? lineOf(text, fatal.index) : (fatal.row ?? 0) + 2;
    throw new UploadError(file, line, fatal.message);
  }
  if (!headers.length) throw new UploadError(file, 1, 'no header row');
  const rows = res.data;
  let latH = findHeader(headers, LAT);
  let lonH = findHeader(headers, LON);
  let wktH = findHeader(headers, WKT);
  if (wktH && !rows.some((r) => WKT_VALUE.test(r[wktH!] ?? ''))) wktH = undefined;
  // No known header: look at the values.
  if (!wktH && !(latH && lonH)) {
    wktH = headers.find((h) => rows.slice(0, 20).some((r) => WKT_VALUE.test(r[h] ?? '')));
    if (!wktH) {
      const numeric = (h: string, max: number) =>
        rows.length > 0 && rows.slice(0, 50).every((r) => Math.abs(Number(r[h])) <= max && (r[h] ?? '').trim() !== '');
      latH ??= headers.find((h) => /lat/i.test(h) && numeric(h, 90));
      lonH ??= headers.find((h) => /lon|lng/i.test(h) && numeric(h, 180));
    }
  }
  if (!wktH && !(latH && lonH))
    throw new UploadError(file, 1, `no coordinate columns: expected latitude/longitude or WKT headers, found ${headers.join(', ')}`);
  const used = new Set([latH, lonH, wktH].filter(Boolean) as string[]);
  const nameH = findHeader(headers, NAME);
  const idH = findHeader(headers, ID);
  const addrH = findHeader(headers, ADDRESS);
  return rows.map((r, n) => {
    const line = n + 2;
    let geometry: Geometry;
    if (wktH) {
      const v = (r[wktH] ?? '').replace(/^\s*SRID=\d+;\s*/i, '');
      try {
        geometry = wktToGeoJSON(v);
      } catch {
        throw new UploadError(file, line, `"${wktH}" is not valid WKT: ${v.slice(0, 40)}`);
      }
      const ok = GeometrySchema.safeParse(geometry);
      if (!ok.success) throw new UploadError(file, line, `"${wktH}" has coordinates out of range`);
    } else {
      const lat = Number((r[latH!] ?? '').trim().replace(',', '.'));
      const lon = Number((r[lonH!] ?? '').trim().replace(',', '.'));
      if ((r[latH!] ?? '').trim() === '' || !Number.isFinite(lat))
        throw new UploadError(file, line, `latitude "${r[latH!] ?? ''}" is not a number`);
      if ((r[lonH!] ?? '').trim() === '' || !Number.isFinite(lon))
        throw new UploadError(file, line, `longitude "${r[lonH!] ?? ''}" is not a number`);
      if (Math.abs(lat) > 90) throw new UploadError(file, line, `latitude ${lat} is outside -90..90`);
      if (Math.abs(lon) > 180) throw new UploadError(file, line, `longitude ${lon} is outside -180..180`);
      geometry = { type: 'Point', coordinates: [lon, lat] };
    }
    const rep = representativePoint(geometry);
    if (!rep) throw new UploadError(file, line, 'empty geometry');
    const attributes: Record<string, unknown> = {};
    for (const h of headers) if (!used.has(h)) attributes[h] = r[h] ?? '';
    return {
      id: idH && r[idH] ? r[idH]! : String(n + 1),
      file,
      name: nameH && r[nameH] ? r[nameH]! : `${file} row ${n + 1}`,
      address: addrH ? (r[addrH] ?? '') : '',
      geometry,
      lon: rep[0],
      lat: rep[1],
      attributes,
    };
  });
}
