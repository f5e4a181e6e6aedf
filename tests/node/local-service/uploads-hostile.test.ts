import { describe, expect, it } from 'vitest';
import { loadNameHeaders } from '../../../electron/local-service/vocabulary/header-words';
import { createSlicer, MAX_VERTICES, readUpload, UploadError, UploadReport, type UploadFeature, type UploadWarning } from '../../../electron/local-service/uploads';

const noCountry = () => '';

async function read(name: string, text: string) {
  const report = new UploadReport();
  const features = await readUpload(name, Buffer.from(text), { countryAt: noCountry, report, slice: createSlicer() });
  return { features, warnings: report.warnings() };
}
const rows = async (name: string, text: string): Promise<UploadFeature[]> => (await read(name, text)).features;
const warning = (ws: UploadWarning[], code: string) => ws.find((w) => w.code === code);

async function failure(name: string, text: string): Promise<UploadError> {
  try {
    await read(name, text);
  } catch (e) {
    if (e instanceof UploadError) return e;
    throw e;
  }
  throw new Error('no error');
}

describe('files that once misled', () => {
  it('keeps a "__proto__", "constructor" or "prototype" column as a column of its own', async () => {
    const { features: csv, warnings } = await read('p.csv', 'name,lat,lon,__proto__,constructor,prototype\nA,45,4,x,y,z\n');
    // Kept, and named: validators such as zod leave a "__proto__" key out of what they return.
    expect(warning(warnings, 'reserved_name')).toMatchObject({ file: 'p.csv', column: '__proto__' });
    expect(warning(warnings, 'reserved_name')!.message).toMatch(/^p\.csv: the column "__proto__" is kept in the answer, but JSON readers/);
    const a = csv[0]!.attributes;
    expect(Object.keys(a)).toEqual(['name', '__proto__', 'constructor', 'prototype']);
    expect(Object.getOwnPropertyDescriptor(a, '__proto__')?.value).toBe('x');
    expect(Object.getPrototypeOf(a)).toBe(Object.prototype);
    expect(JSON.parse(JSON.stringify(a))).toEqual(JSON.parse('{"name":"A","__proto__":"x","constructor":"y","prototype":"z"}'));
    const geoRead = await read('p.geojson', '{"type":"Feature","geometry":{"type":"Point","coordinates":[4,45]},"properties":{"__proto__":{"polluted":1},"constructor":2}}');
    expect(geoRead.warnings.filter((w) => w.code === 'reserved_name')).toHaveLength(1);
    const g = geoRead.features[0]!.attributes;
    expect(Object.keys(g)).toEqual(['__proto__', 'constructor']);
    expect(Object.getOwnPropertyDescriptor(g, '__proto__')?.value).toEqual({ polluted: 1 });
    expect((g as { polluted?: unknown }).polluted).toBeUndefined();
  });

  it('numbers as they were typed: a numeric "__proto__" column becomes numbers too', async () => {
    const csv = await rows('n.csv', 'name,lat,lon,__proto__\nA,45,4,12\nB,46,5,-3.5\n');
    expect(csv.map((f) => Object.getOwnPropertyDescriptor(f.attributes, '__proto__')?.value)).toEqual([12, -3.5]);
  });

  it('says 1e400 is out of range, not projected units', async () => {
    const fc = '{"type":"FeatureCollection","features":[\n{"type":"Feature","geometry":{"type":"Point","coordinates":[1e400,45]},"properties":{}}\n]}';
    const e = await failure('big.geojson', fc);
    expect(e.code).toBe('no_usable_rows');
    expect(e.message).toContain('line 2: feature 1: coordinates are out of range: not finite numbers');
    expect(e.message).not.toMatch(/projected/);
    const { features, warnings } = await read('big.csv', 'name,lat,lon\nA,1e400,4\nB,45,4\n');
    expect(features.map((f) => f.name)).toEqual(['B']);
    expect(warning(warnings, 'bad_rows')).toMatchObject({ rows: [{ line: 2, reason: 'latitude "1e400" is out of range (not a finite number)' }] });
    expect(JSON.stringify(warnings)).not.toMatch(/projected/);
  });

  it('refuses an HTML page named .csv as not CSV', async () => {
    const e = await failure('export.csv', '<!DOCTYPE html>\n<html><head><title>Sign in</title></head><body>Session expired</body></html>\n');
    expect(e.code).toBe('not_csv');
    expect(e.message).toBe('export.csv line 1: not CSV: it looks like an HTML page; save the table as CSV');
  });

  it('shows a NUL or other control character in a file name as "?"', async () => {
    const e = await failure('sites\u0000.csv\u001b[2J', 'name,lat,lon\n');
    expect(e.message).toBe('sites?.csv?[2J: file has a header and no rows');
    expect(e.file).toBe('sites?.csv?[2J');
  });

  it('takes a "Nom", "Nombre" or "Naam" column as the name when the name headers of other languages are given', async () => {
    const names = loadNameHeaders();
    let asked = 0;
    const nameHeaders = () => (asked++, names);
    for (const h of ['Nom', 'Nombre', 'Naam', 'Nome', 'Eigenname', '名称']) {
      const report = new UploadReport();
      const csv = await readUpload('fr.csv', Buffer.from(`${h};lat;lon\nGare de Lyon;48.8443;2.3743\n`), { countryAt: noCountry, report, slice: createSlicer(), nameHeaders });
      expect(csv[0]!.name, h).toBe('Gare de Lyon');
    }
    const geo = await readUpload('fr.geojson', Buffer.from('{"type":"Feature","geometry":{"type":"Point","coordinates":[2.37,48.84]},"properties":{"Nom":"Gare de Lyon"}}'), {
      countryAt: noCountry,
      report: new UploadReport(),
      slice: createSlicer(),
      nameHeaders,
    });
    expect(geo[0]!.name).toBe('Gare de Lyon');
    // An English header still comes first.
    const both = await readUpload('b.csv', Buffer.from('nom,name,lat,lon\nX,Y,45,4\n'), { countryAt: noCountry, report: new UploadReport(), slice: createSlicer(), nameHeaders });
    expect(both[0]!.name).toBe('Y');
    // Asked for once per file that had no English name column (7 above), not for the last one.
    expect(asked).toBe(7);
  });

  it('refuses GeoJSON nested past 100 levels before parsing it, and reads it at 100', async () => {
    const at = (d: number) => `{"type":"Feature","geometry":{"type":"Point","coordinates":[4,45]},"properties":{"x":${'['.repeat(d - 2)}${']'.repeat(d - 2)}}}`;
    // The root object and "properties" are two levels: d - 2 arrays make d in all.
    expect((await rows('ok.geojson', at(100))).length).toBe(1);
    const e = await failure('deep.geojson', at(101));
    expect(e.code).toBe('too_deep');
  });

  it('leaves out a WKT cell past 10,000 vertices, naming the limit, and reads one at the limit', async () => {
    const line = (n: number) => `"LINESTRING (${Array.from({ length: n }, (_, i) => `${i % 3} ${i % 2}`).join(', ')})"`;
    const { features, warnings } = await read('w.csv', `name,wkt\nA,${line(10_001)}\nB,${line(10_001 - 1)}\n`);
    expect(features.map((f) => f.name)).toEqual(['B']);
    expect(warning(warnings, 'bad_rows')).toMatchObject({
      rows: [{ line: 2, reason: '"wkt" has more than 10,000 vertices, the limit for WKT in a table; simplify it, or send the file as GeoJSON' }],
    });
  });

  it('refuses a lone geometry past the vertex limit, counted on the text', async () => {
    const n = MAX_VERTICES + 1;
    const text = `{"type":"LineString","coordinates":[${Array.from({ length: n }, (_, i) => `[${i % 3},${i % 2}]`).join(',')}]}`;
    const e = await failure('line.geojson', text);
    expect(e.code).toBe('too_many_vertices');
    expect(e.message).toBe('line.geojson: its geometry has more than 1,000,000 vertices (the limit per feature); simplify it first');
  });
});
