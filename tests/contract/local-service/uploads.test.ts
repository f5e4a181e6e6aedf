import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROBLEM_CONTENT_TYPE } from '../../../shared/service/problem';
import { computeForm, fileForm, postForm, startService, stopService, type Running } from './harness';
import { city } from './raw';

let r: Running;
beforeAll(async () => {
  r = await startService();
});
afterAll(async () => {
  await stopService(r);
});

type W = { code: string; message: string; [k: string]: unknown };
const codes = (ws: unknown[]) => (ws as W[]).map((w) => w.code);
const warning = (ws: unknown[], code: string) => (ws as W[]).find((w) => w.code === code);
const send = (files: { name: string; text: string }[], query = 'my sites') => computeForm(r, fileForm({ query, limit: '100', answer: 'false' }, files));

async function refused(files: { name: string; text: string | Blob }[], status = 400) {
  const form = new FormData();
  form.append('query', 'my sites');
  for (const f of files) form.append('files', typeof f.text === 'string' ? new Blob([f.text]) : f.text, f.name);
  const res = await postForm(r, form);
  expect(res.status).toBe(status);
  expect(res.contentType).toContain(PROBLEM_CONTENT_TYPE);
  return res.body as { status: number; detail: string; code?: string; errors?: { field: string; message: string }[] };
}

describe('uploads through POST /v1/compute', () => {
  it('keeps the good rows of a CSV and lists the bad ones with line and reason', async () => {
    const text = ['name,lat,lon', 'A,1,2', 'B,north,2', 'C,3,4', 'D,3,200', 'E,5,6', 'F,7', 'G,8,9'].join('\n');
    const res = await send([{ name: 'sites.csv', text }]);
    expect(res.results.features.map((f) => f.properties.name).sort()).toEqual(['A', 'C', 'E', 'G']);
    expect(warning(res.warnings, 'bad_rows')).toMatchObject({
      rows: [
        { file: 'sites.csv', line: 3, reason: 'latitude "north" is not a number' },
        { file: 'sites.csv', line: 5, reason: 'longitude 200 is outside -180..180' },
        { file: 'sites.csv', line: 7, reason: 'expected 3 fields, found 2' },
      ],
      more: 0,
    });
  });

  it('answers 400 with a code when no row is usable', async () => {
    const p = await refused([{ name: 'bad.csv', text: 'lat,lon\nx,1\n' }]);
    expect(p.code).toBe('no_usable_rows');
    expect(p.detail).toBe('bad.csv: none of its 1 row(s) could be read (line 2: latitude "x" is not a number)');
  });

  it('says a header-only file has a header and no rows', async () => {
    const p = await refused([{ name: 'only-header.csv', text: 'name,lat,lon\n' }]);
    expect(p.code).toBe('header_only');
    expect(p.detail).toBe('only-header.csv: file has a header and no rows');
  });

  it('refuses a binary file with a short printable message', async () => {
    const zip = new Blob([new Uint8Array([0x50, 0x4b, 0x03, 0x04, 0x14, 0, 0, 0, 8, 0, 0xff, 0xfe, 0x00, 0x01, 0x7f, 0x80, ...new Array(4000).fill(0)])]);
    const p = await refused([{ name: 'sites.csv', text: zip }]);
    expect(p.code).toBe('binary');
    expect(p.detail).toBe('sites.csv: not a text file: it looks like a ZIP archive (XLSX, KMZ or a zipped shapefile?); send CSV or GeoJSON text');
  });

  it('decodes UTF-16 and Latin-1 files and names the encoding', async () => {
    const csv = 'name,lat,lon\nCafé,48.85,2.35\n';
    const form = new FormData();
    form.append('query', 'my sites');
    form.append('files', new Blob([new Uint8Array([0xff, 0xfe]), Buffer.from(csv, 'utf16le')]), 'wide.csv');
    form.append('files', new Blob([Buffer.from(csv, 'latin1')]), 'latin.csv');
    const res = await computeForm(r, form);
    expect(res.results.features.map((f) => f.properties.name)).toEqual(['Café', 'Café']);
    const enc = (res.warnings as W[]).filter((w) => w.code === 'encoding');
    expect(enc.map((w) => [w['file'], w['encoding']])).toEqual([
      ['wide.csv', 'UTF-16LE'],
      ['latin.csv', 'Windows-1252 (Latin-1)'],
    ]);
  });

  it('names Web Mercator for coordinates in metres', async () => {
    // Spherical Mercator of Tokyo and New York (x = R·λ, y = R·ln tan(π/4 + φ/2)).
    const R = 6378137;
    const m = (lon: number, lat: number) => `${(R * lon * Math.PI) / 180},${R * Math.log(Math.tan(Math.PI / 4 + (lat * Math.PI) / 360))}`;
    const p = await refused([{ name: 'm.csv', text: `name,lon,lat\nTokyo,${m(139.69, 35.69)}\nNew York,${m(-74, 40.71)}\n` }]);
    expect(p.code).toBe('crs');
    expect(p.detail).toContain('coordinates look like Web Mercator metres (EPSG:3857)');
    expect(p.detail).toContain('reproject to WGS 84');
  });

  it('warns when latitude and longitude look swapped', async () => {
    const names = ['Madrid', 'Berlin', 'Warsaw', 'Budapest', 'Vienna', 'Prague', 'Nairobi', 'Kinshasa', 'Addis Ababa', 'Khartoum'];
    const rows = names.map((n) => {
      const [lon, lat] = city(n).loc.coordinates;
      return `${n},${lon},${lat}`; // longitude written in the latitude column
    });
    const res = await send([{ name: 'swapped.csv', text: 'name,lat,lon\n' + rows.join('\n') }]);
    expect(warning(res.warnings, 'swapped_coordinates')).toMatchObject({ file: 'swapped.csv', checked: names.length });
  });

  it('keeps the types of uploaded columns in properties.attributes', async () => {
    const res = await send([{ name: 't.csv', text: 'name,lat,lon,count,zip,open\nA,1,2,12,02134,true\nB,3,4,7.5,10001,false\n' }]);
    const a = res.results.features.find((f) => f.properties.name === 'A')!;
    expect(a.properties.attributes).toEqual({ name: 'A', count: 12, zip: '02134', open: true });
  });

  it('says "features" must be an array, and where coordinates are strings', async () => {
    const p = await refused([{ name: 'f.geojson', text: JSON.stringify({ type: 'FeatureCollection', features: 'nope' }) }]);
    expect(p.code).toBe('features_not_array');
    expect(p.detail).toBe('f.geojson line 1: "features" must be an array of Feature objects, found a string');
    const s = await refused([{ name: 's.geojson', text: JSON.stringify({ type: 'Feature', properties: {}, geometry: { type: 'Point', coordinates: ['2.35', '48.85'] } }) }]);
    expect(s.detail).toBe('s.geojson: none of its 1 feature(s) could be read (line 1: feature 1: coordinates are strings (["2.35","48.85"]); write them as numbers)');
  });

  it('counts features without geometry and warns which duplicated column was used', async () => {
    const fc = {
      type: 'FeatureCollection',
      features: [
        { type: 'Feature', properties: { name: 'A' }, geometry: { type: 'Point', coordinates: [1, 2] } },
        { type: 'Feature', properties: { name: 'B' }, geometry: null },
      ],
    };
    const res = await send([
      { name: 'n.geojson', text: JSON.stringify(fc) },
      { name: 'd.csv', text: 'name,lat,lat,lon\nD,10,20,30\n' },
    ]);
    expect(res.results.features.map((f) => f.properties.name).sort()).toEqual(['A', 'D']);
    expect(warning(res.warnings, 'null_geometry')).toMatchObject({ file: 'n.geojson', count: 1 });
    expect(warning(res.warnings, 'duplicate_header')).toMatchObject({ file: 'd.csv', column: 'lat', columns: [2, 3], used: 2 });
    expect(res.results.features.find((f) => f.properties.name === 'D')!.geometry).toEqual({ type: 'Point', coordinates: [30, 10] });
    expect(codes(res.warnings)).not.toContain('no_uploads');
  });

  it('does not echo a 5,000,000-character cell', async () => {
    const big = 'y'.repeat(5_000_000);
    const form = fileForm({ query: 'my sites', answer: 'true' }, [{ name: 'big.csv', text: `name,lat,lon,notes\n${big},1,2,${big}\n` }]);
    const res = await fetch(`${r.baseUrl}/v1/compute`, { method: 'POST', headers: { authorization: 'Bearer test-bearer-key-0001' }, body: form });
    const text = await res.text();
    expect(res.status).toBe(200);
    // Two 5 MB cells, each echoed as a name, an attribute and in the answer: bounded by the caps.
    expect(text.length).toBeLessThan(6 * 16_384 + 20_000);
    const body = JSON.parse(text) as { warnings: W[] };
    expect(warning(body.warnings, 'truncated_values')!.values).toEqual(
      expect.arrayContaining([{ file: 'big.csv', line: 2, column: 'notes', length: 5_000_000 }]),
    );
  });
});

describe('long file names', () => {
  it('cuts a 10 kB file name in results and says so', async () => {
    const long = 'n'.repeat(10_000) + '.csv';
    const res = await send([{ name: long, text: 'name,lat,lon\nA,1,2\n' }]);
    const f = res.results.features[0]!;
    expect(f.properties.source.name).toBe('n'.repeat(199) + '…');
    expect(f.properties.source.name.length).toBe(200);
    expect(warning(res.warnings, 'truncated_values')!.values).toEqual([{ file: 'n'.repeat(199) + '…', line: null, column: '(file name)', length: 10_004 }]);
    expect(JSON.stringify(res).length).toBeLessThan(5_000);
  });
});

describe('upload limits', () => {
  it('413 for a file over 20 MiB names the file and the limit', async () => {
    const p = await refused([{ name: 'huge.csv', text: 'lat,lon\n' + '1,1\n'.repeat(5_300_000) }], 413);
    expect(p.code).toBe('file_too_large');
    expect(p.detail).toBe('huge.csv: file too large: at most 20 MiB per file');
  });

  it('413 for an eleventh file names it and the limit', async () => {
    const files = Array.from({ length: 11 }, (_, i) => ({ name: `f${i + 1}.csv`, text: 'lat,lon\n1,1\n' }));
    const p = await refused(files, 413);
    expect(p.code).toBe('files_limit');
    expect(p.detail).toBe('f11.csv: too many files: at most 10 files (uploads and images together) per request');
    // Ten files are fine.
    expect((await send(files.slice(0, 10))).results.numberMatched).toBe(10);
  });
});
