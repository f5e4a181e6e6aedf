import { beforeAll, describe, expect, it } from 'vitest';
import { defaultCatalogDir, loadCatalog, type Catalog } from '../../../electron/local-service/catalog/catalog';
import { chunkEnd } from '../../../electron/local-service/upload/csv';
import { MAX_LABEL, MAX_TEXT } from '../../../electron/local-service/upload/text';
import {
  createSlicer,
  readUpload,
  representativePoint,
  UploadError,
  UploadReport,
  type UploadFeature,
  type UploadWarning,
} from '../../../electron/local-service/uploads';
import { cities } from '../../contract/local-service/raw';

const noCountry = () => '';

async function readBytes(name: string, bytes: Buffer, countryAt: (lon: number, lat: number) => string = noCountry) {
  const report = new UploadReport();
  const features = await readUpload(name, bytes, { countryAt, report, slice: createSlicer() });
  return { features, warnings: report.warnings() };
}
const read = (name: string, text: string) => readBytes(name, Buffer.from(text));
const rows = async (name: string, text: string): Promise<UploadFeature[]> => (await read(name, text)).features;
const warning = (ws: UploadWarning[], code: string) => ws.find((w) => w.code === code);

async function failure(name: string, bytes: Buffer | string): Promise<UploadError> {
  try {
    await readBytes(name, typeof bytes === 'string' ? Buffer.from(bytes) : bytes);
  } catch (e) {
    if (e instanceof UploadError) return e;
    throw e;
  }
  throw new Error('no error');
}

let catalog: Catalog;
let countryAt: (lon: number, lat: number) => string;
beforeAll(() => {
  catalog = loadCatalog(defaultCatalogDir());
  countryAt = (lon, lat) => {
    const i = catalog.countryAt(lon, lat);
    return i >= 0 ? catalog.countries.rows[i]!.cca2 : '';
  };
});

describe('uploaded files', () => {
  it('finds lat/lon columns by header under any common delimiter', async () => {
    for (const d of [',', ';', '\t', '|']) {
      const got = await rows('s.csv', ['Name', 'Latitude', 'Longitude', 'kind'].join(d) + '\n' + ['A', '10.5', '-20.25', 'x'].join(d) + '\n');
      expect(got).toHaveLength(1);
      expect(got[0]).toMatchObject({ name: 'A', lat: 10.5, lon: -20.25, attributes: { Name: 'A', kind: 'x' } });
    }
  });

  it('finds WKT columns by value when the header says nothing', async () => {
    const got = await rows('w.csv', 'id,shape_text\n1,"POLYGON ((0 0, 2 0, 2 2, 0 2, 0 0))"\n2,POINT (5 6)\n');
    expect(got.map((r) => r.geometry.type)).toEqual(['Polygon', 'Point']);
    expect(got[0]).toMatchObject({ lon: 1, lat: 1 });
  });

  it('reads GeoJSON of any geometry, keeping properties as attributes', async () => {
    const fc = {
      type: 'FeatureCollection',
      features: [{ type: 'Feature', properties: { name: 'L', v: 1 }, geometry: { type: 'LineString', coordinates: [[0, 0], [2, 2]] } }],
    };
    const got = await rows('l.geojson', JSON.stringify(fc));
    expect(got).toHaveLength(1);
    expect(got[0]).toMatchObject({ name: 'L', lon: 1, lat: 1, attributes: { name: 'L', v: 1 } });
    expect((await rows('g.json', JSON.stringify({ type: 'Point', coordinates: [3, 4] })))[0]).toMatchObject({ lon: 3, lat: 4 });
  });

  it('names the file and line of a file it cannot read at all', async () => {
    expect((await failure('b.csv', 'lat,lon\n"3,4\n')).message).toBe('b.csv: none of its 1 row(s) could be read (line 2: Quoted field unterminated)');
    expect((await failure('c.geojson', '{\n  "type": "Point",\n  "coordinates": [1, 2\n}')).message).toMatch(/^c\.geojson line 4: invalid JSON/);
    const nocols = await failure('n.csv', 'a,b\n1,2\n');
    expect(nocols.code).toBe('no_coordinate_columns');
    expect(nocols.message).toMatch(/^n\.csv line 1: no coordinate columns/);
  });

  it('represents shapes by the mean of their outer vertices', () => {
    expect(representativePoint({ type: 'MultiPoint', coordinates: [[0, 0], [4, 2]] })).toEqual([2, 1]);
    expect(representativePoint({ type: 'GeometryCollection', geometries: [] })).toBeNull();
  });
});

describe('bad rows', () => {
  it('keeps the good rows and reports each bad one with its line and reason', async () => {
    const text = ['name,lat,lon', 'A,1,2', 'B,north,2', 'C,3,4', 'D,3,200', 'E,5,6', 'F,7', 'G,8,9'].join('\n') + '\n';
    const { features, warnings } = await read('sites.csv', text);
    expect(features.map((f) => f.name)).toEqual(['A', 'C', 'E', 'G']);
    const w = warning(warnings, 'bad_rows')!;
    expect(w.rows).toEqual([
      { file: 'sites.csv', line: 3, reason: 'latitude "north" is not a number' },
      { file: 'sites.csv', line: 5, reason: 'longitude 200 is outside -180..180' },
      { file: 'sites.csv', line: 7, reason: 'expected 3 fields, found 2' },
    ]);
    expect(w.more).toBe(0);
    expect(w.message).toMatch(/^3 row\(s\) could not be read/);
  });

  it('lists the first 20 bad rows and counts the rest', async () => {
    const lines = ['lat,lon', '1,1'];
    for (let i = 0; i < 25; i++) lines.push('x,1');
    const w = warning((await read('many.csv', lines.join('\n'))).warnings, 'bad_rows')!;
    expect((w.rows as unknown[]).length).toBe(20);
    expect(w.more).toBe(5);
    expect((w.rows as { line: number }[]).map((r) => r.line)).toEqual(Array.from({ length: 20 }, (_, i) => i + 3));
  });

  it('fails only when no row is usable, quoting the first reasons', async () => {
    const e = await failure('bad.csv', 'lat,lon\nx,1\n1,y\n');
    expect(e.code).toBe('no_usable_rows');
    expect(e.message).toBe('bad.csv: none of its 2 row(s) could be read (line 2: latitude "x" is not a number; line 3: longitude "y" is not a number)');
  });

  it('counts lines across quoted line breaks and parsing chunks', async () => {
    // A quoted cell of 2,000 lines (about 40 KB, longer than a parsing chunk), then a bad row.
    const lines = ['name,lat,lon,note'];
    for (let i = 0; i < 3000; i++) lines.push('p,1,2,plain');
    const note = Array.from({ length: 2000 }, (_, i) => `line ${i} of the note`).join('\n');
    lines.push(`q,1,2,"${note}"`);
    for (let i = 0; i < 10; i++) lines.push('r,1,2,after');
    lines.push('bad,1,999,x');
    const text = lines.join('\n') + '\n';
    const badLine = text.slice(0, text.indexOf('bad,1,999')).split('\n').length;
    const { features, warnings } = await read('long.csv', text);
    expect(warning(warnings, 'bad_rows')!.rows).toEqual([{ file: 'long.csv', line: badLine, reason: 'longitude 999 is outside -180..180' }]);
    expect(features.find((f) => f.name === 'q')!.attributes['note']).toBe(note.slice(0, MAX_TEXT - 1) + '…');
    expect(features).toHaveLength(lines.length - 2);
  });

  it('ends chunks only at line breaks outside quotes', () => {
    const text = 'a,b\n"x\ny",1\nz,2\n';
    expect(chunkEnd(text, 0, 5)).toBe(text.indexOf('z'));
    expect(chunkEnd(text, 0, 100)).toBe(text.length);
  });
});

describe('encodings', () => {
  const csv = 'name,lat,lon\nCafé Zürich,47.37,8.54\n';
  const be = (s: string) => {
    const le = Buffer.from(s, 'utf16le');
    for (let i = 0; i < le.length; i += 2) [le[i], le[i + 1]] = [le[i + 1]!, le[i]!];
    return le;
  };
  const cases: [string, Buffer, string | null][] = [
    ['UTF-8 with BOM', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(csv)]), null],
    ['UTF-16LE with BOM', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(csv, 'utf16le')]), 'UTF-16LE'],
    ['UTF-16BE with BOM', Buffer.concat([Buffer.from([0xfe, 0xff]), be(csv)]), 'UTF-16BE'],
    ['UTF-16LE without BOM', Buffer.from(csv, 'utf16le'), 'UTF-16LE'],
    ['UTF-16BE without BOM', be(csv), 'UTF-16BE'],
    ['Latin-1', Buffer.from(csv, 'latin1'), 'Windows-1252 (Latin-1)'],
  ];
  for (const [label, bytes, encoding] of cases) {
    it(`decodes ${label}${encoding ? ' and names it' : ''}`, async () => {
      const { features, warnings } = await readBytes('enc.csv', bytes);
      expect(features.map((f) => [f.name, f.lat, f.lon])).toEqual([['Café Zürich', 47.37, 8.54]]);
      const w = warning(warnings, 'encoding');
      if (encoding) expect(w).toMatchObject({ encoding, message: expect.stringContaining(encoding) });
      else expect(w).toBeUndefined();
    });
  }
});

// EPSG:3857 from the spherical Mercator formulas, and UTM zone 31N positions of Paris and Lyon
// (from the IGN geodesy service), so the expectations do not come from the code under test.
const R = 6378137;
const mercator = (lon: number, lat: number): [number, number] => [(R * lon * Math.PI) / 180, R * Math.log(Math.tan(Math.PI / 4 + (lat * Math.PI) / 360))];

describe('projected coordinates', () => {
  it('names Web Mercator for metres beyond the UTM range', async () => {
    const pts = [mercator(139.69, 35.69), mercator(-74.0, 40.71), mercator(151.21, -33.87)];
    const e = await failure('m.csv', 'name,x,y\n' + pts.map(([x, y], i) => `p${i},${x},${y}`).join('\n'));
    expect(e.code).toBe('crs');
    expect(e.message).toBe('m.csv: coordinates look like Web Mercator metres (EPSG:3857), not degrees; reproject to WGS 84 longitude/latitude (EPSG:4326)');
  });

  it('names UTM (and Web Mercator) for metres in the UTM range', async () => {
    const e = await failure('u.csv', 'name,easting_x,northing_y,lon,lat\nParis,452000,5411000,452000,5411000\nLyon,643000,5070000,643000,5070000\n');
    expect(e.code).toBe('crs');
    expect(e.message).toMatch(/Web Mercator metres \(EPSG:3857\) or UTM metres/);
  });

  it('warns about projected rows while keeping the rows in degrees', async () => {
    const [x, y] = mercator(2.35, 48.85);
    const { features, warnings } = await read('mix.csv', `name,lat,lon\nA,48.85,2.35\nB,${y},${x}\n`);
    expect(features.map((f) => f.name)).toEqual(['A']);
    expect(warning(warnings, 'crs')!.message).toMatch(/^mix\.csv: 1 row\(s\) out of range: coordinates look like Web Mercator/);
  });

  it('does not take a stray out-of-range degree for a projected CRS', async () => {
    const { features, warnings } = await read('typo.csv', 'name,lat,lon\nA,45.7,4.8\nB,45.7,400\n');
    expect(features.map((f) => f.name)).toEqual(['A']);
    expect(warning(warnings, 'bad_rows')!.rows).toEqual([{ file: 'typo.csv', line: 3, reason: 'longitude 400 is outside -180..180' }]);
    expect(warning(warnings, 'crs')).toBeUndefined();
  });

  it('reads the GeoJSON crs member', async () => {
    const [x, y] = mercator(2.35, 48.85);
    const fc = (name: string, coordinates: number[]) => ({
      type: 'FeatureCollection',
      crs: { type: 'name', properties: { name } },
      features: [{ type: 'Feature', properties: {}, geometry: { type: 'Point', coordinates } }],
    });
    const e = await failure('p.geojson', JSON.stringify(fc('urn:ogc:def:crs:EPSG::3857', [x, y])));
    expect(e.code).toBe('crs');
    expect(e.message).toBe('p.geojson: the file declares EPSG:3857 (its "crs" member); reproject to WGS 84 longitude/latitude (EPSG:4326)');
    const ok = await read('w.geojson', JSON.stringify(fc('urn:ogc:def:crs:OGC:1.3:CRS84', [2.35, 48.85])));
    expect(ok.features).toHaveLength(1);
    expect(warning(ok.warnings, 'crs')).toBeUndefined();
  });
});

describe('swapped latitude and longitude', () => {
  // Large inland cities of Europe and Africa: on land as published, with longitudes under 90.
  const inland = ['Madrid', 'Berlin', 'Warsaw', 'Kyiv', 'Budapest', 'Vienna', 'Prague', 'Bern', 'Nairobi', 'Kinshasa', 'Addis Ababa', 'Khartoum'];
  const places = () =>
    inland.map((name) => {
      const c = cities.filter((x) => x.name === name).sort((a, b) => b.population - a.population)[0]!;
      const [lon, lat] = c.loc.coordinates;
      return { name, lon, lat };
    });

  it('warns when the swap puts the points on land', async () => {
    const text = 'name,lat,lon\n' + places().map((p) => `${p.name},${p.lon},${p.lat}`).join('\n');
    const { warnings } = await readBytes('swapped.csv', Buffer.from(text), countryAt);
    const w = warning(warnings, 'swapped_coordinates')!;
    expect(w).toBeDefined();
    expect(w.checked).toBe(inland.length);
    expect(w.on_land_swapped).toBeGreaterThanOrEqual(inland.length * 0.8);
  });

  it('says nothing when the points are on land as read', async () => {
    const text = 'name,lat,lon\n' + places().map((p) => `${p.name},${p.lat},${p.lon}`).join('\n');
    const { features, warnings } = await readBytes('right.csv', Buffer.from(text), countryAt);
    expect(features.every((f) => f.country !== '')).toBe(true);
    expect(warning(warnings, 'swapped_coordinates')).toBeUndefined();
  });
});

describe('binary and empty files', () => {
  it('refuses binary files without echoing their bytes', async () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 0xff, 0x00]);
    const e = await failure('photo.csv', png);
    expect(e.code).toBe('binary');
    expect(e.message).toBe('photo.csv: not a text file: it looks like a PNG image; send CSV or GeoJSON text');
    const junk = await failure('bin.csv', Buffer.from([0x00, 0x01, 0x02, 0xff, 0xfe, 0x41]));
    expect(junk.code).toBe('binary');
    // eslint-disable-next-line no-control-regex
    expect(junk.message).not.toMatch(/[\u0000-\u001f\ufffd]/);
  });

  it('says a header-only file has a header and no rows', async () => {
    const e = await failure('only-header.csv', 'lat,lon\n');
    expect(e.code).toBe('header_only');
    expect(e.message).toBe('only-header.csv: file has a header and no rows');
    expect((await failure('empty.csv', '  \n')).code).toBe('empty');
  });

  it('quotes at most a short printable excerpt of a bad value', async () => {
    const { warnings } = await read('x.csv', `lat,lon\n1,1\n${'\u0007'.repeat(10)}${'z'.repeat(5000)},1\n`);
    const reason = (warning(warnings, 'bad_rows')!.rows as { reason: string }[])[0]!.reason;
    expect(reason.length).toBeLessThan(80);
    expect(reason).toBe(`latitude "${'?'.repeat(10)}${'z'.repeat(30)}…" is not a number`);
  });
});

describe('attribute types and long values', () => {
  it('keeps numbers as numbers, leading zeros and mixed columns as text, true/false as booleans', async () => {
    const text = 'name,lat,lon,count,ratio,zip,flag,mixed,empty\nA,1,2,10,0.5,02134,true,1,\nB,3,4,,-2e3,10001,FALSE,x,\n';
    const [a, b] = await rows('t.csv', text);
    expect(a!.attributes).toEqual({ name: 'A', count: 10, ratio: 0.5, zip: '02134', flag: true, mixed: '1', empty: '' });
    expect(b!.attributes).toEqual({ name: 'B', count: null, ratio: -2000, zip: '10001', flag: false, mixed: 'x', empty: '' });
  });

  it('keeps GeoJSON property types as they are', async () => {
    const props = { n: 1.5, s: '007', b: false, z: null, o: { k: [1, 'a'] } };
    const [f] = await rows('p.geojson', JSON.stringify({ type: 'Feature', properties: props, geometry: { type: 'Point', coordinates: [1, 2] } }));
    expect(f!.attributes).toEqual(props);
  });

  it('cuts very long values and says which column and row', async () => {
    const big = 'x'.repeat(5_000_000);
    const { features, warnings } = await read('big.csv', `name,lat,lon,notes\n${big},1,2,short\nB,3,4,${big}\n`);
    expect((features[0]!.attributes['name'] as string).length).toBe(MAX_TEXT);
    expect(features[0]!.name.length).toBe(MAX_LABEL);
    expect((features[1]!.attributes['notes'] as string).length).toBe(MAX_TEXT);
    const w = warning(warnings, 'truncated_values')!;
    expect(w.values).toEqual([
      { file: 'big.csv', line: 2, column: 'name', length: 5_000_000 },
      { file: 'big.csv', line: 2, column: 'name (as name)', length: 5_000_000 },
      { file: 'big.csv', line: 3, column: 'notes', length: 5_000_000 },
    ]);
    expect(JSON.stringify({ features, warnings }).length).toBeLessThan(4 * MAX_TEXT + 20_000);
  });
});

describe('GeoJSON structure', () => {
  it('says features must be an array', async () => {
    const e = await failure('f.geojson', JSON.stringify({ type: 'FeatureCollection', features: 'nope' }));
    expect(e.code).toBe('features_not_array');
    expect(e.message).toBe('f.geojson line 1: "features" must be an array of Feature objects, found a string');
  });

  it('says where coordinates are strings', async () => {
    const fc = {
      type: 'FeatureCollection',
      features: [
        { type: 'Feature', properties: { name: 'ok' }, geometry: { type: 'Point', coordinates: [1, 2] } },
        { type: 'Feature', properties: { name: 'str' }, geometry: { type: 'Point', coordinates: ['2.35', '48.85'] } },
      ],
    };
    const { features, warnings } = await read('s.geojson', JSON.stringify(fc, null, 1));
    expect(features.map((f) => f.name)).toEqual(['ok']);
    const [row] = warning(warnings, 'bad_rows')!.rows as { line: number; reason: string }[];
    expect(row!.reason).toBe('feature 2: coordinates are strings (["2.35","48.85"]); write them as numbers');
    const text = JSON.stringify(fc, null, 1);
    expect(row!.line).toBe(text.slice(0, text.lastIndexOf('"type": "Feature"')).split('\n').length);
  });

  it('reads coordinates as decimals only, with a point or a comma', async () => {
    const text = ['name;lat;lon', 'A;45,5;7.25', 'B;0x10;7', 'C;45;0b1', 'D;-1.5e1;+7', 'E;.5;7', 'F;45;0o10'].join('\n');
    const { features, warnings } = await read('d.csv', text);
    expect(features.map((f) => [f.name, f.lat, f.lon])).toEqual([['A', 45.5, 7.25], ['D', -15, 7], ['E', 0.5, 7]]);
    expect((warning(warnings, 'bad_rows')!.rows as { line: number; reason: string }[]).map((r) => [r.line, r.reason])).toEqual([
      [3, 'latitude "0x10" is not a number'],
      [4, 'longitude "0b1" is not a number'],
      [7, 'longitude "0o10" is not a number'],
    ]);
  });

  it('gives each bad feature its own line when members that are not objects come first', async () => {
    // A number, null and a string in the array hold places too: the lines must not shift.
    const feature = (lon: number) => ({ type: 'Feature', properties: {}, geometry: { type: 'Point', coordinates: [lon, 48] } });
    const members = [7, null, 'x', feature(2), { type: 'Feature', properties: {}, geometry: { type: 'Point', coordinates: [2, 900] } }];
    const text = `{"type": "FeatureCollection", "features": [\n${members.map((m) => JSON.stringify(m)).join(',\n')}\n]}`;
    const { features, warnings } = await read('mixed.geojson', text);
    expect(features).toHaveLength(1);
    // Member k sits on line k + 2 of the text as written above.
    expect((warning(warnings, 'bad_rows')!.rows as { line: number }[]).map((r) => r.line)).toEqual([2, 3, 4, 6]);
  });

  it('counts features without geometry in a warning', async () => {
    const fc = {
      type: 'FeatureCollection',
      features: [
        { type: 'Feature', properties: { name: 'A' }, geometry: { type: 'Point', coordinates: [1, 2] } },
        { type: 'Feature', properties: { name: 'B' }, geometry: null },
        { type: 'Feature', properties: { name: 'C' }, geometry: null },
      ],
    };
    const { features, warnings } = await read('n.geojson', JSON.stringify(fc));
    expect(features).toHaveLength(1);
    expect(warning(warnings, 'null_geometry')).toMatchObject({ count: 2, file: 'n.geojson' });
  });
});

describe('duplicate headers', () => {
  it('uses the first of duplicated coordinate columns and says so', async () => {
    const { features, warnings } = await read('d.csv', 'name,lat,lat,lon\nA,10,20,30\n');
    expect(features[0]).toMatchObject({ lat: 10, lon: 30, attributes: { name: 'A', lat_2: 20 } });
    expect(warning(warnings, 'duplicate_header')).toMatchObject({ column: 'lat', columns: [2, 3], used: 2 });
  });
});

describe('slices', () => {
  it('lets timers run while a large file is read', async () => {
    const text = 'name,lat,lon\n' + Array.from({ length: 100_000 }, (_, i) => `s${i},${(i % 170) - 85},${(i % 360) - 180}`).join('\n');
    let ticks = 0;
    const timer = setInterval(() => ticks++, 1);
    const t0 = performance.now();
    const features = await rows('many.csv', text);
    const ms = performance.now() - t0;
    clearInterval(timer);
    expect(features).toHaveLength(100_000);
    // A timer due every millisecond ran at least once per 50 ms of reading.
    expect(ticks).toBeGreaterThan(ms / 50);
  });
});
