import { describe, expect, it } from 'vitest';
import { gpkgGeometry, toWkt } from '../../../electron/export/geometry';
import { safeUrl, tableNameFor } from '../../../electron/export/gpkg';
import { cellOf, derivedCells, FieldSet, layoutColumns } from '../../../electron/export/fields';
import { COLUMNS, compassDegrees, isoCaptureDate, syncRecords } from '../../../electron/export/records';
import type { ComputeFeature } from '../../../shared/service/compute';
import { compassText } from '../../../shared/service/imagery';

describe('GeoPackage geometry blobs', () => {
  it('writes the GP header, XY envelope and little-endian ISO WKB of a point', () => {
    const { blob, envelope } = gpkgGeometry({ type: 'Point', coordinates: [13.404954, 52.520008] });
    expect(blob.subarray(0, 3).toString('latin1')).toBe('GP\0');
    expect(blob[3]).toBe(0b11); // little-endian, envelope code 1
    expect(blob.readInt32LE(4)).toBe(4326);
    expect([8, 16, 24, 32].map((o) => blob.readDoubleLE(o))).toEqual([13.404954, 13.404954, 52.520008, 52.520008]);
    expect(blob[40]).toBe(1);
    expect(blob.readUInt32LE(41)).toBe(1);
    expect([blob.readDoubleLE(45), blob.readDoubleLE(53)]).toEqual([13.404954, 52.520008]);
    expect(blob.length).toBe(61);
    expect(envelope).toEqual({ minX: 13.404954, maxX: 13.404954, minY: 52.520008, maxY: 52.520008 });
  });

  it('encodes a polygon with a hole and computes its envelope', () => {
    const outer = [[0, 0], [4, 0], [4, 3], [0, 3], [0, 0]];
    const hole = [[1, 1], [2, 1], [2, 2], [1, 1]];
    const { blob, envelope } = gpkgGeometry({ type: 'Polygon', coordinates: [outer, hole] as never });
    expect(envelope).toEqual({ minX: 0, maxX: 4, minY: 0, maxY: 3 });
    const wkb = blob.subarray(40);
    expect(wkb.readUInt32LE(1)).toBe(3);
    expect(wkb.readUInt32LE(5)).toBe(2); // rings
    expect(wkb.readUInt32LE(9)).toBe(5); // points in the outer ring
    expect(wkb.length).toBe(9 + 4 + 16 * 5 + 4 + 16 * 4);
  });

  it('marks an empty geometry and leaves out the envelope', () => {
    const { blob, envelope } = gpkgGeometry({ type: 'MultiPoint', coordinates: [] });
    expect(envelope).toBeNull();
    expect(blob[3]! & 0b1110).toBe(0);
    expect((blob[3]! >> 4) & 1).toBe(1);
    expect(blob.length).toBe(8 + 9);
  });

  it('writes WKT for every geometry type', () => {
    expect(toWkt({ type: 'MultiPoint', coordinates: [[1, 2], [3, 4]] })).toBe('MULTIPOINT ((1 2), (3 4))');
    expect(toWkt({ type: 'MultiLineString', coordinates: [] })).toBe('MULTILINESTRING EMPTY');
    expect(
      toWkt({ type: 'GeometryCollection', geometries: [{ type: 'Point', coordinates: [1.5, -2] }, { type: 'LineString', coordinates: [[0, 0], [1, 1]] }] }),
    ).toBe('GEOMETRYCOLLECTION (POINT (1.5 -2), LINESTRING (0 0, 1 1))');
  });
});

describe('names and values', () => {
  it('makes table names safe and unique, ignoring case', () => {
    const taken = new Set<string>();
    expect(tableNameFor('Cafés near Zürich?', taken)).toBe('Cafés_near_Zürich');
    expect(tableNameFor('cafés near zürich!', taken)).toBe('cafés_near_zürich_2');
    expect(tableNameFor('2024 survey', taken)).toBe('layer_2024_survey');
    expect(tableNameFor('rtree_x', taken)).toBe('layer_rtree_x');
    expect(tableNameFor('???', taken)).toBe('layer');
    expect(tableNameFor('"; DROP TABLE x; --', taken)).toBe('DROP_TABLE_x');
  });

  it('strips credentials and key-like parameters from service URLs', () => {
    expect(safeUrl('https://u:p@api.example.com/v?api_key=1&token=2&x=3')).toBe('https://api.example.com/v?x=3');
    expect(safeUrl('')).toBe('');
  });

  it('reads capture dates and compass facings written the spec way', () => {
    expect(isoCaptureDate('March 5, 2024')).toBe('2024-03-05');
    expect(isoCaptureDate('2024-03-05')).toBeNull();
    for (let d = 0; d < 360; d += 22.5) expect(compassDegrees(compassText(d))).toBe(d);
    expect(compassDegrees('Up (U)')).toBeNull();
  });

});

describe('flat field set', () => {
  it('types each column from all its values', () => {
    const f = new FieldSet([{ name: 'name', type: 'TEXT' }]);
    f.observe(null, { a: 1, b: 1, c: 'x', d: true, e: 1, f: { x: 1 }, g: '2024-02-29', h: '2024-05-01T10:00:00+02:00', i: null });
    f.observe(null, { a: 2, b: 2.5, c: null, d: false, e: 'one', f: [1], g: '2023-12-31', h: '2024-05-01T10:00Z', i: null });
    f.observe(null, { a: 2 ** 31, e: true, g: '2024-05-01T00:00:00Z' });
    expect(f.layout().derived.map((c) => [c.name, c.type])).toEqual([
      ['a', 'INTEGER'],
      ['b', 'REAL'],
      ['c', 'TEXT'],
      ['d', 'BOOLEAN'],
      ['e', 'TEXT'],
      ['f', 'TEXT'],
      // A date-time among dates: mixed, so text.
      ['g', 'TEXT'],
      ['h', 'DATETIME'],
      ['i', 'TEXT'],
    ]);
    // Columns whose cells are the values themselves may be copied without converting.
    expect(f.layout().derived.filter((c) => !c.plain).map((c) => c.name)).toEqual(['e', 'f', 'h']);
  });

  it('keeps impossible dates, zoneless and sub-millisecond date-times as text', () => {
    for (const v of ['2023-02-29', '2024-13-01', '2024-05-01T10:00:00', '2024-05-01T10:00:00.1234Z', '2024-05-01 10:00:00Z']) {
      const f = new FieldSet([]);
      f.observe({ v }, null);
      expect(f.layout().derived[0]!.type, v).toBe('TEXT');
    }
  });

  it('writes values the way their column holds them', () => {
    expect(cellOf('DATETIME', '2024-05-01T10:00:00+02:00')).toBe('2024-05-01T08:00:00.000Z');
    expect(cellOf('DATETIME', '2024-12-31T23:30-01:00')).toBe('2025-01-01T00:30:00.000Z');
    expect(cellOf('BOOLEAN', false)).toBe(0);
    expect(cellOf('TEXT', 0.1 + 0.2)).toBe('0.30000000000000004');
    expect(cellOf('TEXT', true)).toBe('true');
    expect(cellOf('TEXT', { a: [1, 'x'] })).toBe('{"a":[1,"x"]}');
    expect(cellOf('REAL', undefined)).toBeNull();
  });

  it('orders spec fields, then properties, then attributes, renaming clashes case-insensitively', () => {
    const f = new FieldSet(COLUMNS.compute);
    f.observe({ kind: 'city', FID: 3, feature_id: 'x', feature_id_1: 'y' }, { name: 'n', Kind: 'k', rank: 1 });
    f.observe({ iata: 'GVA' }, { geom: 2, attr_name: 'taken', NAME: 'again' });
    const layout = f.layout();
    expect(layoutColumns(layout).map((c) => c.name)).toEqual([
      ...COLUMNS.compute.map((c) => c.name),
      'kind',
      'FID_1',
      'feature_id_1',
      // The name the rule gave feature_id is taken: the property of that name moves on.
      'feature_id_1_1',
      'iata',
      'attr_name',
      'attr_Kind',
      'rank',
      'attr_geom',
      // attr_name was already given to `name`: the uploaded `attr_name` moves on.
      'attr_attr_name',
      'attr_NAME_2',
    ]);
    expect(layout.derived.map((d) => d.origin)).toEqual([...Array(5).fill('property'), ...Array(6).fill('attribute')]);
  });

  it('puts fields past the column limit into one JSON column, so none is lost', () => {
    const f = new FieldSet([], 2);
    f.observe({ a: 1, other_fields: 'p' }, { b: 'x', c: true, d: null });
    const layout = f.layout();
    expect(layoutColumns(layout).map((c) => c.name)).toEqual(['a', 'other_fields', 'other_fields_1']);
    expect(derivedCells(layout, { a: 1, other_fields: 'p' }, { b: 'x', c: true, d: null })).toEqual([1, 'p', '{"b":"x","c":true}']);
    expect(derivedCells(layout, { a: 5 }, null)).toEqual([5, null, null]);
  });

  it('carries every property a compute feature has beyond the spec, and its attributes apart (flat in GeoJSON)', () => {
    const feature = {
      type: 'Feature',
      id: 'ourairports:1',
      geometry: { type: 'Point', coordinates: [6.1, 46.2] },
      properties: {
        source_id: '1',
        name: 'Geneva',
        address: 'Geneva, CH',
        score: 1,
        distance_meters: 0,
        source: { name: 'OurAirports', url: 'https://ourairports.com/', licence: 'PD' },
        attributes: { gate: 4 },
        kind: 'airport',
        iata: 'GVA',
        icao: null,
      },
    } as ComputeFeature;
    const [rec] = [...syncRecords({ name: 'x', kind: 'compute', features: [feature] })!];
    expect(rec!.extras).toEqual({ source_licence: 'PD', kind: 'airport', iata: 'GVA', icao: null });
    expect(rec!.attributes).toEqual({ gate: 4 });
    // GeoJSON: the uploaded columns flat beside the service's properties, as a file of them has them.
    const { attributes: _nested, ...service } = feature.properties;
    expect(rec!.properties).toEqual({ ...service, gate: 4 });
  });
});
