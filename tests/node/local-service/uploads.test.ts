import { describe, expect, it } from 'vitest';
import { parseUpload, representativePoint, UploadError } from '../../../electron/local-service/uploads';

const noCountry = () => '';
const read = (name: string, text: string) => parseUpload(name, Buffer.from(text), noCountry);

describe('uploaded files', () => {
  it('finds lat/lon columns by header under any common delimiter', () => {
    for (const d of [',', ';', '\t', '|']) {
      const rows = read('s.csv', ['Name', 'Latitude', 'Longitude', 'kind'].join(d) + '\n' + ['A', '10.5', '-20.25', 'x'].join(d) + '\n');
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ name: 'A', lat: 10.5, lon: -20.25, attributes: { Name: 'A', kind: 'x' } });
    }
  });

  it('finds WKT columns by value when the header says nothing', () => {
    const rows = read('w.csv', 'id,shape_text\n1,"POLYGON ((0 0, 2 0, 2 2, 0 2, 0 0))"\n2,POINT (5 6)\n');
    expect(rows.map((r) => r.geometry.type)).toEqual(['Polygon', 'Point']);
    expect(rows[0]).toMatchObject({ lon: 1, lat: 1 });
  });

  it('reads GeoJSON of any geometry, keeping properties as attributes', () => {
    const fc = {
      type: 'FeatureCollection',
      features: [
        { type: 'Feature', properties: { name: 'L', v: 1 }, geometry: { type: 'LineString', coordinates: [[0, 0], [2, 2]] } },
        { type: 'Feature', properties: { title: 'No place' }, geometry: null },
      ],
    };
    const rows = read('l.geojson', JSON.stringify(fc));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ name: 'L', lon: 1, lat: 1, attributes: { name: 'L', v: 1 } });
    expect(read('g.json', JSON.stringify({ type: 'Point', coordinates: [3, 4] }))[0]).toMatchObject({ lon: 3, lat: 4 });
  });

  it('names the file and line of what it cannot read', () => {
    const err = (name: string, text: string) => {
      try {
        read(name, text);
      } catch (e) {
        return e as UploadError;
      }
      throw new Error('no error');
    };
    expect(err('a.csv', 'lat,lon\n1,2\n3,200\n').message).toBe('a.csv line 3: longitude 200 is outside -180..180');
    expect(err('b.csv', 'lat,lon\n1,2\n"3,4\n').line).toBe(3);
    expect(err('c.geojson', '{\n  "type": "Point",\n  "coordinates": [1, 2\n}').message).toMatch(/^c\.geojson line 4: invalid JSON/);
    const bad = JSON.stringify({ type: 'FeatureCollection', features: [{ type: 'Feature', properties: {}, geometry: { type: 'Point', coordinates: [500, 1] } }] }, null, 1);
    expect(err('d.geojson', bad).message).toMatch(/^d\.geojson line \d+: feature 1: invalid geometry/);
  });

  it('represents shapes by the mean of their outer vertices', () => {
    expect(representativePoint({ type: 'MultiPoint', coordinates: [[0, 0], [4, 2]] })).toEqual([2, 1]);
    expect(representativePoint({ type: 'GeometryCollection', geometries: [] })).toBeNull();
  });
});
