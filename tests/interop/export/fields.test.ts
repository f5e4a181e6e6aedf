import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startExport } from '../../../electron/export/job';
import type { ExportLayer } from '../../../electron/export/types';
import type { ComputeFeature } from '../../../shared/service/compute';
import { expectCell } from './expect';
import { loadInQgis, ogrinfo, parseOgrinfo, readWithOgr, validateGpkg, type OgrLayer } from './tools';

/**
 * One result holding a city, airports and uploaded rows, shaped as the bundled service answers
 * (kind, country, iata, icao... beside the spec fields), exported to GeoPackage, GeoJSON and CSV:
 * all three must carry the same fields with the same values.
 */

const point = (lon: number, lat: number) => ({ type: 'Point' as const, coordinates: [lon, lat] as [number, number] });
const base = (id: string, name: string, lon: number, lat: number, source: string) => ({
  type: 'Feature' as const,
  id,
  geometry: point(lon, lat),
  source_id: id.split(':')[1]!,
  name,
  source,
});

function feature(b: ReturnType<typeof base>, props: Record<string, unknown>, attributes: Record<string, unknown> = {}): ComputeFeature {
  return {
    type: b.type,
    id: b.id,
    geometry: b.geometry,
    properties: {
      source_id: b.source_id,
      name: b.name,
      address: `${b.name}, somewhere`,
      score: 0.8125,
      distance_meters: 1234.5,
      source: { name: b.source, url: `https://example.org/${b.source_id}` },
      attributes,
      ...props,
    },
  };
}

const features: ComputeFeature[] = [
  feature(base('geonames:2660646', 'Geneva', 6.14569, 46.20222, 'GeoNames'), { kind: 'city', country: 'CH', population: 183981, capital: false }),
  feature(base('ourairports:2251', 'Geneva Cointrin International Airport', 6.10895, 46.23810, 'OurAirports'), {
    kind: 'airport',
    country: 'CH',
    ident: 'LSGG',
    iata: 'GVA',
    icao: 'LSGG',
    size: 'large',
  }),
  feature(base('ourairports:2258', 'Bern Airport', 7.49715, 46.91440, 'OurAirports'), {
    kind: 'airport',
    country: 'CH',
    ident: 'LSZB',
    iata: null,
    icao: 'LSZB',
    size: 'medium',
  }),
  feature(
    base('upload:1', 'Depot A', 6.15, 46.2, 'sites.csv'),
    { kind: 'upload', country: 'CH' },
    {
      name: 'Depot A (upload)',
      depth_m: 12,
      ratio: 0.5,
      level: 3,
      active: true,
      opened: '2021-06-01',
      seen_at: '2024-05-01T10:00:00+02:00',
      code: 'A1',
      tags: ['a', 'b'],
      meta: { x: 1 },
      note: null,
      Kind: 'depot',
      fid: 9,
    },
  ),
  feature(
    base('upload:2', 'Depot B', 6.2, 46.25, 'sites.csv'),
    { kind: 'upload', country: null },
    {
      name: 'Depot B (upload)',
      depth_m: null,
      ratio: 2,
      level: 3.5,
      active: false,
      opened: '2022-01-15',
      seen_at: '2024-05-02T00:00:00Z',
      code: 7,
      tags: [],
      meta: { x: 2, y: 'z' },
      note: null,
      Kind: 'yard',
      fid: 10,
      only_here: 'x',
    },
  ),
];

/** The columns every format must carry, in order, with the GDAL type each should read as. */
const EXPECTED: [string, string][] = [
  ['source_id', 'String'],
  ['name', 'String'],
  ['address', 'String'],
  ['score', 'Real'],
  ['distance_meters', 'Real'],
  ['source_name', 'String'],
  ['source_url', 'String'],
  ['kind', 'String'],
  ['country', 'String'],
  ['population', 'Integer64'],
  ['capital', 'Integer(Boolean)'],
  ['ident', 'String'],
  ['iata', 'String'],
  ['icao', 'String'],
  ['size', 'String'],
  // Attributes: an uploaded `name`, `Kind` and `fid` would clash, so they are prefixed.
  ['attr_name', 'String'],
  ['depth_m', 'Integer64'],
  ['ratio', 'Real'],
  ['level', 'Real'],
  ['active', 'Integer(Boolean)'],
  ['opened', 'Date'],
  ['seen_at', 'DateTime'],
  ['code', 'String'],
  ['tags', 'String'],
  ['meta', 'String'],
  ['note', 'String'],
  ['attr_Kind', 'String'],
  ['attr_fid', 'Integer64'],
  ['only_here', 'String'],
];
const TEXT_MIXED = new Set(['code']);

/** Uploaded columns in the GeoJSON file: flat, `attr_` where a property holds the name (ignoring case). */
const GEOJSON_ATTRIBUTE: Record<string, string> = { name: 'attr_name', Kind: 'attr_Kind' };

/** Flattens a feature as read from the GeoJSON file: spec fields, other properties, attributes (GeoPackage's names). */
function flatten(f: { id: string; properties: Record<string, unknown> }): Record<string, unknown> {
  const { source, layer: _layer, fid, ...rest } = f.properties as { source: { name: string; url: string }; layer: string; fid?: unknown };
  // `fid` is GeoPackage's own column: the uploaded one is attr_fid there.
  return { feature_id: f.id, ...rest, source_name: source.name, source_url: source.url, ...(fid === undefined ? {} : { attr_fid: fid }) };
}

/** GDAL's text for dates ("2021/06/01") and date-times ("2024/05/01 08:00:00+00") as instants. */
const gdalDate = (s: unknown) => String(s).replace(/\//g, '-');
const gdalInstant = (s: unknown) => Date.parse(String(s).replace(/\//g, '-').replace(' ', 'T').replace(/\+00$/, 'Z'));

const dir = mkdtempSync(join(tmpdir(), 'fieldlens-fields-'));
const files = { gpkg: join(dir, 'r.gpkg'), geojson: join(dir, 'r.geojson'), csv: join(dir, 'r.csv') };
const layer = (): ExportLayer[] => [{ name: 'Near Geneva', kind: 'compute', features, count: features.length }];
let gpkg: OgrLayer;
let geojson: { id: string; properties: Record<string, unknown> }[];

beforeAll(async () => {
  for (const format of ['gpkg', 'geojson', 'csv'] as const) await startExport({ layers: layer(), format, destination: files[format] });
  gpkg = (await readWithOgr(files.gpkg))['Near_Geneva']!;
  geojson = (JSON.parse(readFileSync(files.geojson, 'utf8')) as { features: typeof geojson }).features;
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('every export format carries the same fields', () => {
  it("keeps GeoJSON's service properties as they were, the uploaded columns flat beside them", () => {
    expect(geojson.map((f) => f.properties)).toEqual(
      features.map((f) => {
        const { attributes, ...service } = f.properties;
        const flat = Object.fromEntries(Object.entries(attributes ?? {}).map(([k, v]) => [GEOJSON_ATTRIBUTE[k] ?? k, v]));
        return { layer: 'Near Geneva', ...service, ...flat };
      }),
    );
  });

  it('GeoPackage has a column for every flattened GeoJSON field, in order, typed as ogrinfo reads them', async () => {
    expect(gpkg.fields.map((f) => f.name)).toEqual(['feature_id', ...EXPECTED.map(([n]) => n)]);
    const union = new Set(geojson.flatMap((f) => Object.keys(flatten(f))));
    expect(new Set(gpkg.fields.map((f) => f.name))).toEqual(union);
    const [info] = parseOgrinfo(await ogrinfo(['-so', files.gpkg, 'Near_Geneva']));
    expect(Object.entries(info!.fields)).toEqual([['feature_id', 'String'], ...EXPECTED]);
  });

  it('GeoPackage values read through GDAL equal the GeoJSON values', () => {
    expect(gpkg.features.length).toBe(geojson.length);
    gpkg.features.forEach((row, i) => {
      const want = flatten(geojson[i]!);
      for (const [name, type] of [['feature_id', 'String'], ...EXPECTED] as [string, string][]) {
        const got = row.properties[name];
        const w = want[name];
        const where = `${String(want['feature_id'])}.${name}`;
        if (w === null || w === undefined) expect(got, where).toBeNull();
        else if (type === 'Date') expect(gdalDate(got), where).toBe(w);
        else if (type === 'DateTime') expect(gdalInstant(got), where).toBe(Date.parse(String(w)));
        else expectCell(got, w, where, TEXT_MIXED.has(name));
      }
    });
  });

  it('stores date-times in UTC as GeoPackage requires, and passes the validator', async () => {
    const db = new Database(files.gpkg, { readonly: true });
    try {
      expect(db.prepare('SELECT seen_at FROM Near_Geneva WHERE seen_at NOT NULL ORDER BY fid').pluck().all()).toEqual([
        '2024-05-01T08:00:00.000Z',
        '2024-05-02T00:00:00.000Z',
      ]);
    } finally {
      db.close();
    }
    const r = await validateGpkg(files.gpkg);
    expect(r.output).toBe('');
    expect(r.code).toBe(0);
  });

  it('CSV has the same columns after its frame, and the same values as text', async () => {
    const csv = Object.values(await readWithOgr(files.csv))[0]!;
    expect(csv.fields.map((f) => f.name)).toEqual(['layer', 'layer_kind', 'feature_id', 'lon', 'lat', 'wkt', ...EXPECTED.map(([n]) => n)]);
    csv.features.forEach((row, i) => {
      const want = flatten(geojson[i]!);
      for (const [name, type] of EXPECTED) {
        const got = row.properties[name];
        const w = want[name];
        const where = `csv ${String(want['feature_id'])}.${name}`;
        // CSV has no null: an empty cell.
        if (w === null || w === undefined) expect(got ?? '', where).toBe('');
        else if (typeof w === 'object') expect(JSON.parse(String(got)), where).toEqual(w);
        else if (typeof w === 'boolean') expect(got, where).toBe(TEXT_MIXED.has(name) ? String(w) : w ? '1' : '0');
        else if (type === 'DateTime') expect(got, where).toBe(new Date(String(w)).toISOString());
        else if (typeof w === 'number') expect(Number(got), where).toBe(w);
        else expect(got, where).toBe(w);
      }
    });
  });

  it('loads in headless QGIS with every field', async () => {
    const [q] = await loadInQgis(files.gpkg, ['Near_Geneva']);
    expect(q).toMatchObject({ valid: true, count: features.length, crs: 'EPSG:4326' });
    expect(q!.fields).toEqual(['fid', 'feature_id', ...EXPECTED.map(([n]) => n)]);
  }, 60_000);
});
