import { describe, expect, it } from 'vitest';
import { createSlicer, readUpload, UploadReport, type UploadWarning } from '../../../electron/local-service/uploads';
import { parseAngles } from '../../../shared/coords/angles';

/**
 * Latitude ±90 and longitude ±180 are the last valid values: every reader takes them exactly and
 * refuses the next step past them.
 */
const EDGES: [lat: number, lon: number][] = [
  [90, 0],
  [-90, 0],
  [0, 180],
  [0, -180],
  [90, -180],
];
const PAST: [lat: number, lon: number][] = [
  [90.000001, 0],
  [-90.000001, 0],
  [0, 180.000001],
  [0, -180.000001],
];

async function read(name: string, text: string) {
  const report = new UploadReport();
  const features = await readUpload(name, Buffer.from(text), { countryAt: () => '', report, slice: createSlicer() });
  const bad = report.warnings().find((w: UploadWarning) => w.code === 'bad_rows');
  return { features, badLines: ((bad?.rows ?? []) as { line: number; reason: string }[]).map((r) => [r.line, r.reason]) };
}

describe('coordinate range at its ends', () => {
  it('CSV uploads', async () => {
    const rows = [...EDGES, ...PAST].map(([lat, lon], i) => `P${i},${lat},${lon}`);
    const { features, badLines } = await read('edges.csv', ['name,latitude,longitude', ...rows].join('\n') + '\n');
    expect(features.map((f) => f.name)).toEqual(EDGES.map((_, i) => `P${i}`));
    expect(features.map((f) => f.geometry)).toEqual(EDGES.map(([lat, lon]) => ({ type: 'Point', coordinates: [lon, lat] })));
    expect(badLines).toEqual([
      [7, 'latitude 90.000001 is outside -90..90'],
      [8, 'latitude -90.000001 is outside -90..90'],
      [9, 'longitude 180.000001 is outside -180..180'],
      [10, 'longitude -180.000001 is outside -180..180'],
    ]);
  });

  it('GeoJSON uploads', async () => {
    const feature = ([lat, lon]: [number, number], i: number) => ({ type: 'Feature', properties: { name: `P${i}` }, geometry: { type: 'Point', coordinates: [lon, lat] } });
    const text = JSON.stringify({ type: 'FeatureCollection', features: [...EDGES, ...PAST].map(feature) }, null, 1);
    const { features, badLines } = await read('edges.geojson', text);
    expect(features.map((f) => f.name)).toEqual(EDGES.map((_, i) => `P${i}`));
    expect(features.map((f) => f.geometry)).toEqual(EDGES.map(([lat, lon]) => ({ type: 'Point', coordinates: [lon, lat] })));
    expect(badLines.map(([, reason]) => reason)).toEqual(PAST.map(([lat, lon], i) => `feature ${EDGES.length + i + 1}: coordinates ${lon}, ${lat} are outside longitude -180..180 / latitude -90..90`));
  });

  it('coordinates typed or pasted', () => {
    for (const [lat, lon] of EDGES) expect(parseAngles(`${lat}, ${lon}`)).toMatchObject({ lat, lon });
    for (const [lat, lon] of PAST) expect(parseAngles(`${lat}, ${lon}`)).toBeNull();
  });
});
