import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compute, computeForm, fileForm, startService, stopService, type Running } from './harness';
import { airports, apLat, apLon } from './raw';

/**
 * An answer per country says where the features it counts lie, per country (`members_bbox`, a
 * foreign member of each country feature): the map frames those, not the country's whole area.
 */
let r: Running;
beforeAll(async () => {
  r = await startService();
});
afterAll(() => stopService(r));

type Box = [number, number, number, number];
const boxOf = (points: [number, number][]): Box => [
  Math.min(...points.map((p) => p[0])),
  Math.min(...points.map((p) => p[1])),
  Math.max(...points.map((p) => p[0])),
  Math.max(...points.map((p) => p[1])),
];
const membersOf = (features: unknown[]) =>
  Object.fromEntries(features.map((f) => [(f as { properties: { country: string } }).properties.country, (f as { members_bbox?: Box }).members_bbox]));

describe('the box of the features an answer per country counts', () => {
  it('"sites per country": each country carries the box of its own sites', async () => {
    // Each site's country is known here and is not in the file.
    const sites: { name: string; lon: number; lat: number; cc: string }[] = [
      { name: 'Lyon depot', lon: 4.8467, lat: 45.7485, cc: 'FR' },
      { name: 'Annecy store', lon: 6.1294, lat: 45.8992, cc: 'FR' },
      { name: 'Grenoble yard', lon: 5.7245, lat: 45.1885, cc: 'FR' },
      { name: 'Milan yard', lon: 9.19, lat: 45.4642, cc: 'IT' },
      { name: 'Turin shop', lon: 7.6869, lat: 45.0703, cc: 'IT' },
    ];
    const csv = ['name,lat,lon', ...sites.map((s) => `${s.name},${s.lat},${s.lon}`)].join('\n');
    const res = await computeForm(r, fileForm({ query: 'sites per country' }, [{ name: 'sites.csv', text: csv }]));
    const want: Record<string, Box> = {};
    for (const cc of new Set(sites.map((s) => s.cc))) want[cc] = boxOf(sites.filter((s) => s.cc === cc).map((s) => [s.lon, s.lat]));
    expect(membersOf(res.results.features)).toEqual(want);
  });

  it('"airports in Portugal per country": the box of its airports, the Azores and Madeira included, not of its whole area', async () => {
    const res = await compute(r, { query: 'airports in Portugal per country' });
    const pt = airports.filter((a) => a.iso_country === 'PT');
    expect(pt.length).toBeGreaterThan(10);
    const got = membersOf(res.results.features)['PT']!;
    const want = boxOf(pt.map((a) => [apLon(a), apLat(a)]));
    got.forEach((v, i) => expect(v).toBeCloseTo(want[i]!, 4));
  });

  it('an answer that is not a count per country carries none', async () => {
    const res = await compute(r, { query: 'countries in Western Europe' });
    expect(res.results.features.length).toBeGreaterThan(3);
    expect(res.results.features.every((f) => !('members_bbox' in f))).toBe(true);
  });
});
