import { describe, expect, it } from 'vitest';
import { gpkgGeometry, toWkt } from '../../../electron/export/geometry';
import { safeUrl, tableNameFor } from '../../../electron/export/gpkg';
import { AttributeTypes, compassDegrees, isoCaptureDate } from '../../../electron/export/records';
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

  it('types attribute columns only when every value agrees', () => {
    const t = new AttributeTypes();
    t.observe({ a: 1, b: 1, c: 'x', d: true, e: 1, f: { x: 1 }, name: 'clash' });
    t.observe({ a: 2, b: 2.5, c: null, d: false, e: 'one' });
    expect(t.columns(['name'])).toEqual([
      { key: 'a', column: 'a', type: 'INTEGER' },
      { key: 'b', column: 'b', type: 'REAL' },
      { key: 'c', column: 'c', type: 'TEXT' },
      { key: 'd', column: 'd', type: 'BOOLEAN' },
      { key: 'name', column: 'attr_name', type: 'TEXT' },
    ]);
  });
});
