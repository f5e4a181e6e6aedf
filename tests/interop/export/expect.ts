import { expect } from 'vitest';
import type { ComputeFeature } from '../../../shared/service/compute';
import type { Geometry } from '../../../shared/service/geojson';
import type { ImageryRecord } from '../../../shared/service/imagery';
import type { Observation } from '../../../shared/service/stream';
import type { OgrFeature } from './tools';

const TOLERANCE = 1e-9;

/** Geometry read back equals the input: same structure, every coordinate within 1e-9 degrees. */
export function expectSameGeometry(got: OgrFeature['geometry'], want: Geometry | null, where: string): void {
  if (want === null) {
    expect(got, where).toBeNull();
    return;
  }
  expect(got?.type, where).toBe(want.type);
  if (want.type === 'GeometryCollection') {
    expect(got?.geometries?.length, where).toBe(want.geometries.length);
    want.geometries.forEach((g, i) => expectSameGeometry(got!.geometries![i] as OgrFeature['geometry'], g, `${where}[${i}]`));
    return;
  }
  const walk = (a: unknown, b: unknown, path: string) => {
    if (typeof b === 'number') {
      expect(typeof a, path).toBe('number');
      expect(Math.abs((a as number) - b), `${path}: ${String(a)} vs ${b}`).toBeLessThanOrEqual(TOLERANCE);
      return;
    }
    const bb = b as unknown[];
    // Positions are compared in XY: the writers are 2D.
    const isPosition = typeof bb[0] === 'number';
    const aa = a as unknown[];
    expect(Array.isArray(aa), path).toBe(true);
    const n = isPosition ? 2 : bb.length;
    if (!isPosition) expect(aa.length, path).toBe(bb.length);
    for (let i = 0; i < n; i++) walk(aa[i], bb[i], `${path}[${i}]`);
  };
  walk(got?.coordinates, want.coordinates, where);
}

const asBool = (v: unknown) => (v === null || v === undefined ? null : v === 1 || v === '1' || v === true || v === 'true');

/**
 * A cell read back through GDAL equals the feature's value: booleans as 0/1, objects and arrays
 * as JSON text; in a text column (mixed types) numbers and booleans as JSON writes them.
 */
export function expectCell(got: unknown, want: unknown, where: string, text = false): void {
  if (want === null || want === undefined) expect(got, where).toBeNull();
  else if (typeof want === 'object') expect(JSON.parse(String(got)), where).toEqual(want);
  else if (text) expect(got, where).toBe(typeof want === 'string' ? want : JSON.stringify(want));
  else if (typeof want === 'boolean') expect(asBool(got), where).toBe(want);
  else expect(got, where).toBe(want);
}

/** `columns`: attribute key -> column name; `text`: keys whose column is TEXT for mixed values. */
export function expectComputeRow(p: OgrFeature['properties'], f: ComputeFeature, columns: Record<string, string>, text: string[] = []): void {
  const where = `feature ${f.id}`;
  expect(p['feature_id'], where).toBe(f.id);
  expect(p['source_id'], where).toBe(f.properties.source_id);
  expect(p['name'], where).toBe(f.properties.name);
  expect(p['address'], where).toBe(f.properties.address);
  expect(p['score'], where).toBe(f.properties.score);
  expect(p['distance_meters'], where).toBe(f.properties.distance_meters);
  expect(p['source_name'], where).toBe(f.properties.source.name);
  expect(p['source_url'], where).toBe(f.properties.source.url);
  expect(Object.keys(columns).sort(), where).toEqual(Object.keys(f.properties.attributes).sort());
  for (const [key, column] of Object.entries(columns))
    expectCell(p[column], f.properties.attributes[key], `${where}.${key}`, text.includes(key));
}

export function expectObservationRow(p: OgrFeature['properties'], o: Observation): void {
  const q = o.properties;
  const where = `observation ${o.id}`;
  expect(p['feature_id'], where).toBe(o.id);
  for (const k of ['feature_name', 'address', 'date', 'year', 'month', 'source', 'owner', 'image_url', 'video_id', 'video_url', 'duration'] as const)
    expect(p[k], `${where}.${k}`).toBe(q[k]);
  expect(asBool(p['is_video']), where).toBe(q.is_video);
  expect(asBool(p['interactive']), where).toBe(q.interactive);
}

export function expectImageryRow(p: OgrFeature['properties'], r: ImageryRecord): void {
  const where = `imagery ${r.id}`;
  expect(p['feature_id'], where).toBe(r.id);
  expect(p['address'], where).toBe(r.address);
  expect(p['date'], where).toBe(r.date);
  expect(p['compass'], where).toBe(r.compass);
  expect(p['image_url'], where).toBe(r.image);
  expect(asBool(p['interactive']), where).toBe(r.interactive);
}
