import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as turf from '@turf/turf';
import type { Feature, Geometry } from 'geojson';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ComputeResponse } from '../../../shared/service/compute';
import { compute, refused, startService, stopService, type Running } from '../local-service/harness';

/**
 * Qualifiers before a layer noun ("second hand shops"), presets that share a noun ("schools"),
 * and a place the layer knows only as a point ("in Hamburg"), over a small OSM-tagged layer;
 * each answer checked against a filter or turf over the features written here.
 */
let r: Running;
const features: Feature<Geometry, Record<string, string>>[] = [];
const point = (lon: number, lat: number, tags: Record<string, string>) =>
  features.push({ type: 'Feature', geometry: { type: 'Point', coordinates: [lon, lat] }, properties: tags });
const line = (coords: [number, number][], tags: Record<string, string>) =>
  features.push({ type: 'Feature', geometry: { type: 'LineString', coordinates: coords }, properties: tags });
const square = (lon: number, lat: number, tags: Record<string, string>) =>
  features.push({ type: 'Feature', geometry: turf.bboxPolygon([lon, lat, lon + 0.002, lat + 0.002]).geometry, properties: tags });

// Around Hamburg (a place node, no boundary) and some 60 km away.
const HAMBURG: [number, number] = [9.993, 53.5511];
const SHOPS = ['second_hand', 'bakery', 'supermarket', 'second_hand', 'clothes', 'bakery', 'second_hand'];
SHOPS.forEach((shop, i) => point(9.9 + i * 0.05, 53.5 + (i % 3) * 0.02, { shop, name: `Shop ${i + 1}` }));
point(10.9, 53.9, { shop: 'second_hand', name: 'Far thrift' });
['rail', 'abandoned', 'rail', 'disused', 'abandoned'].forEach((railway, i) =>
  line([[9.8 + i * 0.1, 53.4], [9.85 + i * 0.1, 53.45]], { railway, name: `Track ${i + 1}` }));
point(10.0, 53.56, { amenity: 'school', name: 'School A' });
point(10.3, 53.7, { amenity: 'school', name: 'School B' });
square(9.95, 53.54, { amenity: 'school', building: 'school', name: 'School C' });
square(9.97, 53.53, { building: 'school', name: 'Old school building' });
point(9.99, 53.57, { education: 'school', amenity: 'school', name: 'School D' });
point(...HAMBURG, { place: 'city', name: 'Hamburg' });
point(10.01, 53.56, { amenity: 'pharmacy', name: 'Pharmacy near' });
point(10.2, 53.62, { amenity: 'pharmacy', name: 'Pharmacy 15 km' });
point(10.9, 53.6, { amenity: 'pharmacy', name: 'Pharmacy far' });

beforeAll(async () => {
  r = await startService();
  const file = join(r.dataDir, 'hh.geojson');
  writeFileSync(file, JSON.stringify({ type: 'FeatureCollection', features }));
  await r.service.layers.startImport(file, { name: 'Hamburg extract' }).done;
});
afterAll(() => stopService(r));

const names = (res: ComputeResponse) => res.results.features.map((f) => f.properties.name).sort();
const text = (res: ComputeResponse) => res.warnings.map((w) => (w as { message: string }).message).join('\n');
const where = (test: (t: Record<string, string>) => boolean) => features.filter((f) => test(f.properties)).map((f) => f.properties['name']!).sort();
const isSchool = (t: Record<string, string>) => t['amenity'] === 'school' || t['education'] === 'school';
const ask = (query: string) => compute(r, { query, limit: 500 });

describe('a phrase before a layer noun narrows it, never is dropped', () => {
  it('"second hand shops" are shop=second_hand, not every shop', async () => {
    const want = where((t) => t['shop'] === 'second_hand');
    expect(want.length).toBeLessThan(where((t) => t['shop'] !== undefined).length);
    for (const q of ['second hand shops', 'secondhand shops', 'used shops']) expect(names(await ask(q)), q).toEqual(want);
  });

  it('"abandoned railways" are railway=abandoned', async () => {
    const want = where((t) => t['railway'] === 'abandoned');
    expect(want.length).toBeGreaterThan(0);
    expect(names(await ask('abandoned railways'))).toEqual(want);
  });

  it('a qualifier that contradicts the noun is refused by name; one no feature also has leaves nothing', async () => {
    const p = await refused(r, { query: 'bakery supermarkets' });
    expect(p.unread.map((u) => u.words)).toEqual(['bakery']);
    const want = where((t) => t['amenity'] === 'pharmacy' && isSchool(t));
    expect(names(await ask('pharmacy schools'))).toEqual(want);
  });
});

describe('presets sharing a noun', () => {
  it('"schools" are the School preset (amenity=school, education=school), not school buildings', async () => {
    const want = where(isSchool);
    expect(names(await ask('schools'))).toEqual(want);
    expect(want).not.toContain('Old school building');
  });
});

describe('a place known only as a point', () => {
  it('"in Hamburg" is read as within 20 km of it, and says so', async () => {
    const near = (t: Record<string, string>, f: Feature) => t['amenity'] === 'pharmacy' && turf.distance(HAMBURG, (f.geometry as { coordinates: number[] }).coordinates, { units: 'kilometers' }) <= 20;
    const want = features.filter((f) => near(f.properties, f)).map((f) => f.properties['name']!).sort();
    expect(want.length).toBeGreaterThan(0);
    const res = await ask('pharmacies in Hamburg');
    expect(names(res)).toEqual(want);
    expect(text(res)).toMatch(/known only as a point.*within 20 km/);
  });

  it('with a distance of its own besides, it is refused', async () => {
    const p = await refused(r, { query: 'pharmacies in Hamburg within 5 km of 53.55, 10.0' });
    expect(p.unread.map((u) => u.words)).toContain('Hamburg');
  });
});
