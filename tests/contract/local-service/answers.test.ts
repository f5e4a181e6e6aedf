import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ComputeResponse } from '../../../shared/service/compute';
import { compute, computeForm, fileForm, postJson, problem, refused, startService, stopService, type Running } from './harness';
import { airports, apLat, apLon, cities, city, km } from './raw';

/**
 * Answers of issues 15 and 18, each computed here from the raw npm packages and a haversine
 * in the test, never from the service's catalog code.
 */
let r: Running;
beforeAll(async () => {
  r = await startService();
});
afterAll(async () => {
  await stopService(r);
});

const ids = (res: ComputeResponse) => res.results.features.map((f) => f.properties.source_id);
const sorted = (xs: (string | number)[]) => xs.map(String).sort();
const warningText = (res: ComputeResponse) => res.warnings.map((w) => (w as { message: string }).message).join('\n');
const byDistanceFrom = (lon: number, lat: number) => [...airports].sort((a, b) => km(apLon(a), apLat(a), lon, lat) - km(apLon(b), apLat(b), lon, lat));
const peopleKm = (d: number) => (d >= 10 ? `${Math.round(d).toLocaleString('en-US')} km` : `${Math.round(d * 10) / 10} km`);
const geneva = cities.find((c) => c.country === 'CH' && c.name === 'Genève')!;

describe('answers (issue 15)', () => {
  it('1. "nearest airport to Cusco" is the single nearest, named with its distance; the plural ranks all by distance', async () => {
    const [lon, lat] = city('Cusco', 'PE').loc.coordinates;
    const want = byDistanceFrom(lon, lat);
    const one = await compute(r, { query: 'Nearest airport to Cusco' });
    expect(ids(one)).toEqual([want[0]!.id]);
    const d = km(apLon(want[0]!), apLat(want[0]!), lon, lat);
    const props = one.results.features[0]!.properties;
    expect(props['distance_km']).toBeCloseTo(d, 1);
    expect(props.distance_meters).toBeCloseTo(d * 1000, -1);
    expect(one.answer.content).toContain(`${want[0]!.name}, ${peopleKm(d)}`);
    expect(warningText(one)).toMatch(/single nearest/);

    const all = await compute(r, { query: 'closest airports to Cusco', limit: 5 });
    expect(all.results.numberMatched).toBe(airports.length);
    expect(ids(all)).toEqual(want.slice(0, 5).map((a) => a.id));
    const three = await compute(r, { query: 'the 3 nearest airports to Cusco' });
    expect(ids(three)).toEqual(want.slice(0, 3).map((a) => a.id));
  });

  it('1. a bare "airports near X" is ranked nearest first', async () => {
    const [lon, lat] = city('Lyon', 'FR').loc.coordinates;
    const want = byDistanceFrom(lon, lat).filter((a) => km(apLon(a), apLat(a), lon, lat) <= 50);
    const res = await compute(r, { query: 'airports near Lyon' });
    expect(ids(res)).toEqual(want.map((a) => a.id));
  });

  it('a named request coordinate is the place its name says, even where the name is also a word of the vocabulary', async () => {
    // "Depot" is also an OSM preset name; the request's own coordinate wins.
    const depot = { name: 'Depot', latitude: 45.76, longitude: 4.84 };
    const want = byDistanceFrom(depot.longitude, depot.latitude);
    const one = await compute(r, { query: 'nearest airport to Depot', coordinates: [depot] });
    expect(ids(one)).toEqual([want[0]!.id]);
    const d = km(apLon(want[0]!), apLat(want[0]!), depot.longitude, depot.latitude);
    expect(one.results.features[0]!.properties.distance_meters).toBeCloseTo(d * 1000, -1);
    const near = await compute(r, { query: 'airports within 20 km of depot', coordinates: [depot] });
    expect(sorted(ids(near))).toEqual(sorted(want.filter((a) => km(apLon(a), apLat(a), depot.longitude, depot.latitude) <= 20).map((a) => a.id)));
  });

  it('a reference no layer holds is refused, never every item at no distance', async () => {
    // The reference is in the reading all the same, so the refusal names the step that holds it.
    for (const [query, words, step] of [['nearest airport to a fire station', 'fire station', 'relation:0'], ['airports within 20 km of a pharmacy', 'pharmacy', 'relation:0']]) {
      const res = await refused(r, { query });
      expect(res.unread).toEqual([{ words, why: expect.stringMatching(/no layer holds such features/), step }]);
      expect(res.plan.relations[0]!.reference).toBe(words);
    }
  });

  it('2. "Geneva" is Genève, Switzerland (an alternate name, the most important match), and the other Genevas are named', async () => {
    const [lon, lat] = geneva.loc.coordinates;
    const res = await compute(r, { query: 'nearest airport to Geneva' });
    expect(ids(res)).toEqual([byDistanceFrom(lon, lat)[0]!.id]);
    expect(res.answer.content).toContain('Genève, Switzerland');
    const amb = res.warnings.find((w) => (w as { code: string }).code === 'ambiguous_place') as { message: string } | undefined;
    expect(amb?.message).toContain('used Genève, Switzerland');
    expect(amb?.message).toContain('Geneva, IL, United States');
  });

  it('2. an ASCII spelling finds a name with letters NFD keeps ("Lodz" is Łódź)', async () => {
    const lodz = cities.find((c) => c.name === 'Łódź')!;
    const res = await compute(r, { query: 'nearest airport to Lodz' });
    expect(ids(res)).toEqual([byDistanceFrom(...lodz.loc.coordinates)[0]!.id]);
  });

  it('3. "within 300 miles" is echoed in miles, rounded for people, full precision in properties', async () => {
    const [lon, lat] = geneva.loc.coordinates;
    const radius = 300 * 1.609344;
    const want = airports.filter((a) => a.type === 'large_airport' && km(apLon(a), apLat(a), lon, lat) <= radius);
    const res = await compute(r, { query: 'large airports within 300 miles of Geneva, Switzerland', limit: 2000 });
    expect(sorted(ids(res))).toEqual(sorted(want.map((a) => a.id)));
    expect(res.answer.content).toContain(`within 300 miles (${Math.round(radius)} km) of Genève, Switzerland`);
    expect(res.answer.content).not.toContain('482.803');
    const f = res.results.features[0]!;
    const [flon, flat] = f.geometry.coordinates as [number, number];
    expect(f.properties['distance_km']).toBeCloseTo(km(flon, flat, lon, lat), 2);
  });
});

describe('questions (issue 18)', () => {
  const siteCities = [city('Paris', 'FR'), city('Lyon', 'FR'), city('Reykjavík', 'IS')];
  const sitesCsv =
    'site_id,name,latitude,longitude\n' +
    siteCities.map((c, i) => `S${i + 1},${c.name} site,${c.loc.coordinates[1]},${c.loc.coordinates[0]}`).join('\n') +
    '\nS9,Open sea,0,-30\n';
  const sites = [...siteCities.map((c, i) => ({ id: `S${i + 1}`, p: c.loc.coordinates })), { id: 'S9', p: [-30, 0] as [number, number] }];
  const bigCities = cities.filter((c) => c.population > 1e6);
  const nearBig = (radius: number) =>
    sites.filter(({ p }) => bigCities.some((c) => km(c.loc.coordinates[0], c.loc.coordinates[1], p[0], p[1]) <= radius)).map((s) => s.id);

  it('5. "which of my sites are near a city over 1 million people": the filter belongs to the cities', async () => {
    const want = nearBig(50);
    expect(want.length).toBeGreaterThan(0);
    expect(want.length).toBeLessThan(sites.length);
    const res = await computeForm(r, fileForm({ query: 'which of my sites are near a city over 1 million people' }, [{ name: 'sites.csv', text: sitesCsv }]));
    expect(sorted(ids(res))).toEqual(sorted(want));
    expect(warningText(res)).not.toMatch(/population filters .* ignored/);
  });

  it('5. "within 20 km of a city with over 1 million people" filters the reference cities too', async () => {
    const res = await computeForm(
      r,
      fileForm({ query: 'which of my sites are within 20 km of a city with over 1 million people' }, [{ name: 'sites.csv', text: sitesCsv }]),
    );
    expect(sorted(ids(res))).toEqual(sorted(nearBig(20)));
  });

  it.each([
    'airports between latitude 45.5 and 46 and longitude 4.5 and 5.5',
    'airports bbox 4.5,45.5,5.5,46',
    'airports 45.5N to 46N, 4.5E to 5.5E',
    'airports between longitude 4.5 and 5.5 and latitude 45.5 and 46',
    'airports between lat 45.5 and 46 and long 4.5 and 5.5',
  ])('6. reads the box in "%s"', async (query) => {
    const want = airports.filter((a) => apLat(a) >= 45.5 && apLat(a) <= 46 && apLon(a) >= 4.5 && apLon(a) <= 5.5);
    expect(want.length).toBeGreaterThan(0);
    const res = await compute(r, { query });
    expect(sorted(ids(res))).toEqual(sorted(want.map((a) => a.id)));
  });

  it('6. a box with a west-hemisphere edge and negative numbers', async () => {
    const want = airports.filter((a) => apLat(a) >= 37 && apLat(a) <= 38.5 && apLon(a) >= -123 && apLon(a) <= -121.5);
    const res = await compute(r, { query: 'airports bbox -123,37,-121.5,38.5', limit: 2000 });
    expect(sorted(ids(res))).toEqual(sorted(want.map((a) => a.id)));
  });

  it('6. an area or place that cannot be read gives a 400 or an empty answer with a warning, never the whole table', async () => {
    const bad = await postJson(r, { query: 'airports bbox 4.5,95,5.5,46' });
    expect(bad.status).toBe(400);
    expect(problem(bad).detail).toMatch(/latitudes must lie between -90 and 90/);
    const half = await postJson(r, { query: 'airports between latitude 45.5 and 46' });
    expect(half.status).toBe(400);
    // "long" with a figure after it meant a longitude: refused as an area, never answered everywhere.
    const lone = await postJson(r, { query: 'airports long 4.5' });
    expect(lone.status).toBe(400);
    expect(problem(lone).detail).toMatch(/area after "long"/);
    const unknown = await refused(r, { query: 'airports in Narnia' });
    expect(unknown.unread.map((u) => u.words)).toEqual(['Narnia']);
    const far = await refused(r, { query: 'airports within 30 km of Narnia' });
    expect(far.unread.map((u) => u.words)).toEqual(['Narnia']);
    const wrongCountry = await refused(r, { query: 'airports near Springfield, France' });
    expect(wrongCountry.detail).toContain('Springfield');
  });

  it('7. word order does not decide meaning: "sort my sites by distance to Paris" == "my sites sorted by distance to Paris"', async () => {
    const [lon, lat] = city('Paris', 'FR').loc.coordinates;
    const want = [...sites].sort((a, b) => km(a.p[0], a.p[1], lon, lat) - km(b.p[0], b.p[1], lon, lat)).map((s) => s.id);
    const a = await computeForm(r, fileForm({ query: 'sort my sites by distance to Paris' }, [{ name: 'sites.csv', text: sitesCsv }]));
    const b = await computeForm(r, fileForm({ query: 'my sites sorted by distance to Paris' }, [{ name: 'sites.csv', text: sitesCsv }]));
    expect(ids(a)).toEqual(want);
    expect(ids(b)).toEqual(want);
    expect(a.warnings.some((w) => (w as { code: string }).code === 'ignored_words')).toBe(false);
  });

  it('8. "Geneva, Switzerland": the country hint chooses the place distances are measured from', async () => {
    const [lon, lat] = geneva.loc.coordinates;
    const res = await compute(r, { query: 'airports within 10 km of Geneva, Switzerland' });
    const want = airports.filter((a) => km(apLon(a), apLat(a), lon, lat) <= 10);
    expect(sorted(ids(res))).toEqual(sorted(want.map((a) => a.id)));
    for (const f of res.results.features) {
      const [flon, flat] = f.geometry.coordinates as [number, number];
      expect(f.properties.distance_meters / 1000).toBeCloseTo(km(flon, flat, lon, lat), 1);
      expect(f.properties.distance_meters).toBeLessThan(10_000);
    }
    const tx = await compute(r, { query: 'nearest airport to Paris, Texas' });
    const [tlon, tlat] = city('Paris', 'US', 'TX').loc.coordinates;
    expect(ids(tx)).toEqual([byDistanceFrom(tlon, tlat)[0]!.id]);
  });

  it('9. nearest answers say what was found: "the nearest of 5,210 airports … is X, 12 km"', async () => {
    const [lon, lat] = city('Lyon', 'FR').loc.coordinates;
    const want = byDistanceFrom(lon, lat);
    const res = await compute(r, { query: 'the 3 nearest airports to Lyon' });
    const d = km(apLon(want[0]!), apLat(want[0]!), lon, lat);
    expect(res.answer.content).toContain(
      `The nearest of ${airports.length.toLocaleString('en-US')} airports to Lyon, France is ${want[0]!.name}, ${peopleKm(d)}.`,
    );
    expect(res.answer.content).not.toMatch(/airports matched/);
  });
});
