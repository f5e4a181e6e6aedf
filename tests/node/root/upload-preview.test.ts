import { describe, expect, it } from 'vitest';
import { previewUpload } from '../../../electron/root/upload-preview';
import { PREVIEW_POSITIONS_MAX } from '../../../shared/rpc/methods/uploads';

describe('upload preview positions', () => {
  it('carries every readable row, in file order, for the map; bad rows are not drawn', async () => {
    const rows = [
      ['Lyon depot', '45.7485', '4.8467'],
      ['Broken', 'north', '4.8'],
      ['Annecy store', '45.8992', '6.1294'],
      ['Atlantic buoy', '40.0', '-40.0'],
    ];
    const csv = ['name,lat,lon', ...rows.map((r) => r.join(','))].join('\n');
    const p = await previewUpload('sites.csv', Buffer.from(csv));
    const want = rows.filter((r) => Number.isFinite(Number(r[1]))).map(([name, lat, lon]) => ({ name, longitude: Number(lon), latitude: Number(lat) }));
    expect(p.positions).toEqual(want);
    expect(p.featureCount).toBe(want.length);
  });

  it('reads GeoJSON points the same way', async () => {
    const fc = {
      type: 'FeatureCollection',
      features: [
        { type: 'Feature', properties: { name: 'A' }, geometry: { type: 'Point', coordinates: [2.35, 48.85] } },
        { type: 'Feature', properties: { name: 'B' }, geometry: { type: 'Point', coordinates: [-0.12, 51.5] } },
      ],
    };
    const p = await previewUpload('places.geojson', Buffer.from(JSON.stringify(fc)));
    expect(p.positions.map((q) => [q.longitude, q.latitude])).toEqual(fc.features.map((f) => f.geometry.coordinates));
  });

  it('a file larger than the map takes is drawn in part; the count still covers it all', async () => {
    const n = PREVIEW_POSITIONS_MAX + 7;
    const lines = ['name,lat,lon'];
    for (let i = 0; i < n; i++) lines.push(`p${i},${(i % 170) - 85},${(i % 350) - 175}`);
    const p = await previewUpload('big.csv', Buffer.from(lines.join('\n')));
    expect(p.featureCount).toBe(n);
    expect(p.positions).toHaveLength(PREVIEW_POSITIONS_MAX);
    expect(p.positions.at(-1)).toEqual({ name: `p${PREVIEW_POSITIONS_MAX - 1}`, latitude: ((PREVIEW_POSITIONS_MAX - 1) % 170) - 85, longitude: ((PREVIEW_POSITIONS_MAX - 1) % 350) - 175 });
  });
});
