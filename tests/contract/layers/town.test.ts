import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as turf from '@turf/turf';
import OpeningHours from 'opening_hours';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../../../electron/ground/logger';
import { createLocalService, type LocalService } from '../../../electron/local-service/server';
import { ComputeResponseExact, type ComputeResponse } from '../../../shared/service/compute';
import { QuestionReading } from '../../../shared/service/reading';
import { catalog, databaseFor, KEYS } from '../local-service/harness';
import { airports, apLat, apLon, cities, countryByCode, isLarge, km, populationOf } from '../local-service/raw';
import { writeTownFiles, type TownFiles } from '../../support/town/files';
import { at, type TownFeature } from '../../support/town/town';
import { distanceTo, inPolygon, named, nearestFirst, pointOf } from './town-questions';

/**
 * Questions over the generated town (an OSM extract) and a client's district layer, each
 * answered through HTTP compute and checked against turf over the generator's features.
 */
let dir: string;
let town: TownFiles;
let service: LocalService;
let baseUrl: string;
let districtFeatures: { properties: Record<string, unknown> }[];
// A Friday, 12:45 local time: the lunch break of one pharmacy, the others open or not as their hours say.
const NOW = new Date(2026, 0, 2, 12, 45);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fieldlens-town-q-'));
  town = writeTownFiles(join(dir, 'files'));
  const quarters = town.features.filter((f) => f.properties['place'] === 'quarter');
  const districts = join(dir, 'files', 'districts.geojson');
  districtFeatures = quarters.map((q, i) => ({ type: 'Feature', geometry: q.geometry, properties: { name: q.properties['name'], number: i + 1 } }));
  writeFileSync(districts, JSON.stringify({ type: 'FeatureCollection', features: districtFeatures }));
  service = createLocalService({ dataDir: join(dir, 'data'), keys: KEYS, logger: createMemoryLogger(), clock: () => NOW, catalog: catalog(), database: await databaseFor(join(dir, 'data')) });
  ({ baseUrl } = await service.start());
  await service.layers.startImport(town.pbf, { name: 'Lennbrück OSM' }).done;
  await service.layers.startImport(districts).done;
});
afterAll(async () => {
  await service?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function ask(query: string, extra: Record<string, unknown> = {}): Promise<ComputeResponse> {
  const res = await fetch(`${baseUrl}/v1/compute`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEYS.bearer}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query, limit: 2000, ...extra }),
  });
  const body = await res.json();
  if (res.status !== 200) throw new Error(`${query}: ${res.status} ${JSON.stringify(body)}`);
  return ComputeResponseExact.parse(body);
}

async function askWithSites(query: string, csv: string): Promise<ComputeResponse> {
  const form = new FormData();
  form.append('query', query);
  form.append('limit', '2000');
  form.append('files', new Blob([csv]), 'sites.csv');
  const res = await fetch(`${baseUrl}/v1/compute`, { method: 'POST', headers: { authorization: `Bearer ${KEYS.bearer}` }, body: form });
  const body = await res.json();
  if (res.status !== 200) throw new Error(`${query}: ${res.status} ${JSON.stringify(body)}`);
  return ComputeResponseExact.parse(body);
}

/** A question that must be refused: the 422 problem+json body. */
async function askRefused(query: string, extra: Record<string, unknown> = {}): Promise<{ detail: string; unread: { words: string; why: string }[]; layers?: string[]; holds?: { subject: string; columns: string[] } }> {
  const res = await fetch(`${baseUrl}/v1/compute`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEYS.bearer}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query, limit: 2000, ...extra }),
  });
  const body = (await res.json()) as { code: string; detail: string; unread: { words: string; why: string }[]; layers?: string[] };
  if (res.status !== 422 || body.code !== 'unread_question') throw new Error(`${query}: expected a refusal, got ${res.status} ${JSON.stringify(body).slice(0, 400)}`);
  return body;
}

const names = (r: ComputeResponse) => r.results.features.map((f) => f.properties.name);
const sorted = (xs: string[]) => [...xs].sort();
const text = (r: ComputeResponse) => r.warnings.map((w) => (w as { message: string }).message).join('\n');
const codes = (r: ComputeResponse) => r.warnings.map((w) => (w as { code: string }).code);
const tagged = (k: string, v?: string) => town.features.filter((f) => f.properties[k] !== undefined && (v === undefined || f.properties[k] === v));
const nameList = (fs: TownFeature[]) => sorted(fs.map((f) => f.properties['name']!));
const pharmacies = () => tagged('amenity', 'pharmacy');
const geom = (name: string) => named(town.features, name).geometry;
const count = (r: ComputeResponse) =>
  (r.warnings.find((w) => (w as { code: string }).code === 'measurement') as { measurement: { value: number } } | undefined)?.measurement.value;

/** Same features in the same order, each at the distance turf gives (features at equal distance in either order). */
function expectRanked(r: ComputeResponse, want: { name: string; d: number }[]) {
  expect(r.results.features.map((f) => f.properties.distance_meters)).toEqual(want.map((w) => expect.closeTo(w.d, 0)));
  expect(sorted(names(r))).toEqual(sorted(want.map((w) => w.name)));
  const d = new Map(want.map((w) => [w.name, w.d]));
  for (const f of r.results.features) expect(f.properties.distance_meters).toBeCloseTo(d.get(f.properties.name)!, 0);
}

describe('subjects from the vocabulary', () => {
  it('1. "pharmacies": the OSM preset by its tag value, plural', async () => {
    const r = await ask('pharmacies');
    expect(sorted(names(r))).toEqual(nameList(pharmacies()));
    expect(text(r)).toContain('amenity=pharmacy');
  });

  it('2. "chemists": a term of the same preset', async () => {
    expect(sorted(names(await ask('chemists')))).toEqual(nameList(pharmacies()));
  });

  it('3. "fire stations" and 4. "wind turbines": multi-word preset names', async () => {
    expect(names(await ask('fire stations'))).toEqual(nameList(tagged('amenity', 'fire_station')));
    expect(names(await ask('wind turbines'))).toEqual(nameList(tagged('generator:source', 'wind')));
  });

  it('5. "power substations": a point and a polygon, each returned as its own geometry', async () => {
    const r = await ask('power substations');
    expect(sorted(names(r))).toEqual(nameList(tagged('power', 'substation')));
    const byName = new Map(r.results.features.map((f) => [f.properties.name, f.geometry.type]));
    for (const f of tagged('power', 'substation')) expect(byName.get(f.properties['name']!)).toBe(f.geometry.type);
  });

  it('6. "Starbucks": a brand of name-suggestion-index, by its Wikidata id', async () => {
    const r = await ask('Starbucks');
    expect(names(r)).toEqual(nameList(tagged('brand:wikidata', 'Q37158')));
    expect(text(r)).toContain('brand:wikidata=Q37158');
  });

  it('6b. "shops": a key of the tags, any value', async () => {
    const r = await ask('shops');
    expect(sorted(names(r))).toEqual(nameList(tagged('shop')));
    expect(text(r)).toContain('shop=*');
  });

  it('7. "bakeries", 8. "supermarkets": plural forms of tag values', async () => {
    expect(sorted(names(await ask('bakeries')))).toEqual(nameList(tagged('shop', 'bakery')));
    expect(sorted(names(await ask('supermarkets')))).toEqual(nameList(tagged('shop', 'supermarket')));
  });

  it('9. "districts": a layer by its own name; polygons come back as polygons', async () => {
    const r = await ask('districts');
    expect(sorted(names(r))).toEqual(nameList(tagged('place', 'quarter')));
    expect(r.results.features.every((f) => f.properties.source.name === 'districts' && f.geometry.type === 'Polygon')).toBe(true);
  });

  it('10. "the Lenne": a feature by a column value (its name), a line returned as a line', async () => {
    const r = await ask('the Lenne');
    expect(names(r)).toEqual(['Lenne']);
    expect(r.results.features[0]!.geometry).toEqual(geom('Lenne'));
  });
});

describe('unknown subjects and missing positions', () => {
  it('11. a word no vocabulary knows: refused, naming the word and the layers there are', async () => {
    const r = await askRefused('zorblaxes near Lennbrück Hauptbahnhof');
    expect(r.unread.map((u) => u.words)).toEqual(['zorblaxes']);
    expect(r.layers).toEqual(expect.arrayContaining(['Lennbrück OSM', 'districts']));
    expect(r.detail).toContain('zorblaxes');
    expect(r.detail).toContain('districts');
  });

  it('12. "cities near me" without coordinates: refused, never every city', async () => {
    const r = await askRefused('cities near me');
    expect(r.unread).toEqual([{ words: 'near me', why: expect.stringMatching(/needs a position/) }]);
  });

  it('13. "pharmacies near me" with coordinates: within 50 km of them, nearest first', async () => {
    const here = pointOf(named(town.features, 'Lennbrück Hauptbahnhof'));
    const r = await ask('pharmacies near me', { coordinates: [{ name: 'me', latitude: here[1], longitude: here[0] }] });
    expectRanked(r, nearestFirst(pharmacies(), { type: 'Point', coordinates: here }));
  });
});

describe('relationships', () => {
  it('14. within N of a named point', async () => {
    const station = geom('Lennbrück Hauptbahnhof');
    const r = await ask('pharmacies within 500 m of Lennbrück Hauptbahnhof');
    const want = nearestFirst(pharmacies(), station).filter((x) => x.d <= 500);
    expect(want.length).toBeGreaterThan(0);
    expectRanked(r, want);
  });

  it('14b. distances in ft, yd and nmi, a ring, beyond and farthest first, as on the built-in kinds', async () => {
    const all = nearestFirst(pharmacies(), geom('Lennbrück Hauptbahnhof'));
    expectRanked(await ask('pharmacies within 1640 ft of Lennbrück Hauptbahnhof'), all.filter((x) => x.d <= 1640 * 0.3048));
    expectRanked(await ask('pharmacies within 550 yd of Lennbrück Hauptbahnhof'), all.filter((x) => x.d <= 550 * 0.9144));
    expectRanked(await ask('pharmacies within 0.3 nmi of Lennbrück Hauptbahnhof'), all.filter((x) => x.d <= 0.3 * 1852));
    const ring = all.filter((x) => x.d >= 200 && x.d <= 800);
    expect(ring.length).toBeGreaterThan(0);
    expectRanked(await ask('pharmacies between 200 and 800 m of Lennbrück Hauptbahnhof'), ring);
    const beyond = all.filter((x) => x.d > 800);
    expect(beyond.length).toBeGreaterThan(0);
    expectRanked(await ask('pharmacies more than 800 m from Lennbrück Hauptbahnhof'), beyond);
    const far = await ask('the 2 farthest pharmacies from Lennbrück Hauptbahnhof');
    expect(far.results.features.map((f) => f.properties.distance_meters)).toEqual([...all].reverse().slice(0, 2).map((w) => expect.closeTo(w.d, 0)));
  });

  it('15. within N of a line: distance to its nearest point', async () => {
    const want = nearestFirst(pharmacies(), geom('Lenne')).filter((x) => x.d <= 300);
    expect(want.length).toBeGreaterThan(0);
    expectRanked(await ask('pharmacies within 300 m of the Lenne'), want);
  });

  it('16. along a street: within the default 50 m, said in the answer', async () => {
    const r = await ask('pharmacies along the Lenne');
    expectRanked(r, nearestFirst(pharmacies(), geom('Lenne')).filter((x) => x.d <= 50));
    expect(text(r)).toContain('within 50 m of');
    const wide = await ask('parking along Südstraße');
    expectRanked(wide, nearestFirst(tagged('amenity', 'parking'), geom('Südstraße')).filter((x) => x.d <= 50));
  });

  it('16b. a line measured from is carried by its step of the reading, for the map to draw', async () => {
    const r = await ask('pharmacies along the Lenne');
    const plan = r.warnings.find((w) => (w as { code: string }).code === 'plan') as { reading: QuestionReading };
    const reading = QuestionReading.parse(plan.reading);
    const step = reading.relations.find((x) => x.reference.includes('Lenne'))!;
    // The river as the generator drew it: every vertex carried lies on it, and it runs end to end.
    const lenne = geom('Lenne') as { type: 'LineString'; coordinates: number[][] };
    const carried = step.line!.coordinates.flat();
    expect(carried.length).toBeGreaterThan(1);
    const onRiver = new Set(lenne.coordinates.map((p) => p.join(',')));
    expect(carried.every((p) => onRiver.has(p.join(',')))).toBe(true);
    expect(carried[0]).toEqual(lenne.coordinates[0]);
    expect(carried.at(-1)).toEqual(lenne.coordinates.at(-1));
    // A building's outline is no line: its step carries none.
    const point = await ask('pharmacies within 300 m of the Rathaus');
    const pointPlan = point.warnings.find((w) => (w as { code: string }).code === 'plan') as { reading: QuestionReading };
    expect(pointPlan.reading.relations.every((x) => x.line === undefined)).toBe(true);
  });

  it('17. nearest to a polygon: the single nearest', async () => {
    const r = await ask('the nearest pharmacy to the Rathaus');
    expectRanked(r, nearestFirst(pharmacies(), geom('Rathaus')).slice(0, 1));
  });

  it('18. the 3 nearest to a named point', async () => {
    const r = await ask('the 3 nearest pharmacies to Lennbrück Hauptbahnhof', { answer: true });
    const want = nearestFirst(pharmacies(), geom('Lennbrück Hauptbahnhof'));
    expectRanked(r, want.slice(0, 3));
    // Only the nearest were read from the index: the answer does not say of how many (it said "of 3").
    expect(want.length).toBeGreaterThan(3);
    expect(r.answer.content).toMatch(/^The nearest of the "pharmacies" features to Lennbrück Hauptbahnhof is /);
  });

  it('19. in a polygon feature by name', async () => {
    const nord = geom('Nordviertel');
    const want = pharmacies().filter((f) => inPolygon(pointOf(f), nord));
    expect(want.length).toBeGreaterThan(0);
    expect(sorted(names(await ask('pharmacies in Nordviertel')))).toEqual(nameList(want));
  });

  it('20. in a polygon with a hole (the park is cut out of Ostviertel)', async () => {
    const ost = geom('Ostviertel');
    const want = [...pharmacies(), ...tagged('shop')].filter((f) => inPolygon(pointOf(f), ost));
    const r = await ask('pharmacies in Ostviertel');
    expect(sorted(names(r))).toEqual(nameList(want.filter((f) => f.properties['amenity'] === 'pharmacy')));
    // Apotheke im Park stands in the hole.
    expect(names(r)).not.toContain('Apotheke im Park');
  });

  it('21. outside a polygon', async () => {
    const nord = geom('Nordviertel');
    expect(sorted(names(await ask('pharmacies outside Nordviertel')))).toEqual(nameList(pharmacies().filter((f) => !inPolygon(pointOf(f), nord))));
  });

  it('22. intersecting a line: bridges over the Lenne', async () => {
    const river = geom('Lenne');
    const want = tagged('bridge', 'yes').filter((f) => turf.booleanIntersects(f.geometry, river));
    expect(want).toHaveLength(3);
    expect(sorted(names(await ask('bridges over the Lenne')))).toEqual(nameList(want));
  });

  it('23. crossing: streets (residential roads) crossing a quarter', async () => {
    const sud = geom('Südviertel');
    const want = tagged('highway', 'residential').filter((f) => turf.booleanIntersects(f.geometry, sud));
    expect(sorted(names(await ask('residential roads crossing Südviertel')))).toEqual(nameList(want));
  });

  it('24. count per polygon of another layer: pharmacies per district', async () => {
    const r = await ask('pharmacies per district');
    const want = tagged('place', 'quarter').map((q) => ({ name: q.properties['name']!, count: pharmacies().filter((p) => inPolygon(pointOf(p), q.geometry)).length }));
    const got = r.results.features.map((f) => ({ name: f.properties.name, count: (f.properties.attributes as { count: number }).count }));
    expect(sorted(got.map((g) => `${g.name}:${g.count}`))).toEqual(sorted(want.map((w) => `${w.name}:${w.count}`)));
    expect(got.map((g) => g.count)).toEqual([...got.map((g) => g.count)].sort((a, b) => b - a));
    expect(count(r)).toBe(want.reduce((n, w) => n + w.count, 0));
  });

  it('25. count per polygon of the same layer: supermarkets per quarter', async () => {
    const r = await ask('supermarkets per quarter');
    const want = tagged('place', 'quarter').map((q) => `${q.properties['name']}:${tagged('shop', 'supermarket').filter((p) => inPolygon(pointOf(p), q.geometry)).length}`);
    expect(sorted(r.results.features.map((f) => `${f.properties.name}:${(f.properties.attributes as { count: number }).count}`))).toEqual(sorted(want));
  });

  it('26. within N of a class of another layer feature: supermarkets within 400 m of a pharmacy', async () => {
    const want = tagged('shop', 'supermarket').filter((s) => pharmacies().some((p) => turf.distance(pointOf(s), pointOf(p), { units: 'meters' }) <= 400));
    expect(sorted(names(await ask('supermarkets within 400 m of a pharmacy')))).toEqual(nameList(want));
  });

  it('27. near a class: Starbucks near the station (within 50 km, nearest first)', async () => {
    const r = await ask('Starbucks near the station');
    expectRanked(r, nearestFirst(tagged('brand', 'Starbucks'), geom('Lennbrück Hauptbahnhof')));
  });

  it('28. how many, in a polygon', async () => {
    const sud = geom('Südviertel');
    const r = await ask('how many pharmacies are in Südviertel');
    expect(count(r)).toBe(pharmacies().filter((f) => inPolygon(pointOf(f), sud)).length);
  });

  it('29. a map box', async () => {
    const box: [number, number, number, number] = [8.515, 47.305, 8.535, 47.32];
    const want = pharmacies().filter((f) => turf.booleanPointInPolygon(pointOf(f), turf.bboxPolygon(box)));
    expect(sorted(names(await ask(`pharmacies in bbox ${box.join(',')}`)))).toEqual(nameList(want));
  });

  it('30. fire stations within 2 km of the station', async () => {
    expectRanked(await ask('fire stations within 2 km of Lennbrück Hauptbahnhof'), nearestFirst(tagged('amenity', 'fire_station'), geom('Lennbrück Hauptbahnhof')).filter((x) => x.d <= 2000));
  });
});

describe('uploads and built-in kinds mixed with layers', () => {
  // Metres east/north of the town centre: beside Umspannwerk Süd, by the station, beside Umspannwerk Ost, in the north.
  const sites = ([[-1000, -950], [300, 350], [880, 560], [0, 1400]] as const).map(([x, y], i) => {
    const [lon, lat] = at(x, y);
    return { name: `Site ${i + 1}`, lon: lon!, lat: lat! };
  });
  const csv = `name,lat,lon\n${sites.map((s) => `${s.name},${s.lat},${s.lon}`).join('\n')}\n`;

  it('31. which of my sites are within 1 km of a substation (a point and a polygon)', async () => {
    const subs = tagged('power', 'substation');
    const want = sites.filter((s) => subs.some((f) => distanceTo([s.lon, s.lat], f.geometry) <= 1000)).map((s) => s.name);
    expect(want.length).toBeGreaterThan(0);
    expect(want.length).toBeLessThan(sites.length);
    expect(sorted(names(await askWithSites('which of my sites are within 1 km of a substation', csv)))).toEqual(sorted(want));
  });

  it('32. my sites in a polygon feature', async () => {
    const nord = geom('Nordviertel');
    expect(sorted(names(await askWithSites('my sites in Nordviertel', csv)))).toEqual(sorted(sites.filter((s) => inPolygon([s.lon, s.lat], nord)).map((s) => s.name)));
  });

  it('33. pharmacies within 500 m of my sites', async () => {
    const want = pharmacies().filter((p) => sites.some((s) => turf.distance(pointOf(p), [s.lon, s.lat], { units: 'meters' }) <= 500));
    expect(want.length).toBeGreaterThan(0);
    expect(sorted(names(await askWithSites('pharmacies within 500 m of my sites', csv)))).toEqual(nameList(want));
  });

  it('34. cities (built in) within 15 km of a substation', async () => {
    const subs = tagged('power', 'substation').map((f) => turf.centroid(f.geometry).geometry.coordinates);
    const want = cities.filter((c) => subs.some((p) => km(c.loc.coordinates[0], c.loc.coordinates[1], p[0]!, p[1]!) <= 14.9)).map((c) => String(c.cityId));
    const maybe = cities.filter((c) => subs.some((p) => km(c.loc.coordinates[0], c.loc.coordinates[1], p[0]!, p[1]!) <= 15.1)).map((c) => String(c.cityId));
    const got = (await ask('cities within 15 km of a substation')).results.features.map((f) => f.properties.source_id);
    expect(want.length).toBeGreaterThan(0);
    for (const id of want) expect(got).toContain(id);
    for (const id of got) expect(maybe).toContain(id);
  });

  it('35b. a kind with its modifier as the reference: within 14.5 km of an airport, of a large airport', async () => {
    const kindAirports = airports.filter((a) => a.type === 'large_airport' || a.type === 'medium_airport');
    const within = (list: typeof airports) =>
      pharmacies().filter((p) => list.some((a) => turf.distance(pointOf(p), [apLon(a), apLat(a)], { units: 'kilometers' }) <= 14.5));
    // No pharmacy lies within 100 m of the edge, so formulas of the earth's radius cannot disagree.
    for (const p of pharmacies()) for (const a of kindAirports) expect(Math.abs(turf.distance(pointOf(p), [apLon(a), apLat(a)]) - 14.5)).toBeGreaterThan(0.1);
    const any = within(kindAirports);
    const large = within(kindAirports.filter(isLarge));
    expect(any.length).toBeGreaterThan(large.length);
    expect(sorted(names(await ask('pharmacies within 14.5 km of an airport')))).toEqual(nameList(any));
    expect(sorted(names(await ask('pharmacies within 14.5 km of a large airport')))).toEqual(nameList(large));
  });

  it('35c. polygons ranked by distance to a class of points far outside the layer: the nearest airport wherever it lies', async () => {
    const large = airports.filter(isLarge);
    const want = districtFeatures
      .map((f) => {
        const g = (f as unknown as { geometry: Parameters<typeof distanceTo>[1] }).geometry;
        return { name: String(f.properties['name']), d: Math.min(...large.map((a) => distanceTo([apLon(a), apLat(a)], g))) };
      })
      .sort((a, b) => a.d - b.d);
    // The nearest large airport lies kilometres beyond every district: a search kept to the layer's box would find none.
    expect(want[0]!.d).toBeGreaterThan(5000);
    const r = await ask('districts sorted by distance to a large airport');
    expect(names(r)).toEqual(want.map((w) => w.name));
    for (const [k, f] of r.results.features.entries()) expect(f.properties.distance_meters / want[k]!.d).toBeCloseTo(1, 4);
  });

  it('35. pharmacies in Lyon: the layer holds none there, and nothing else is answered', async () => {
    const r = await ask('pharmacies in Lyon');
    expect(r.results.numberMatched).toBe(0);
  });
});

describe('nearest layer features to an uploaded route', () => {
  it('"the 3 nearest pharmacies to my route": a route of many vertices, ranked by the distance to the line', async () => {
    const lenne = geom('Lenne') as { type: 'LineString'; coordinates: number[][] };
    // The river's course with 200 vertices on each of its segments: a long route to measure.
    const coordinates = lenne.coordinates
      .slice(1)
      .flatMap((b, i) => {
        const a = lenne.coordinates[i]!;
        return Array.from({ length: 200 }, (_, k) => [a[0]! + ((b[0]! - a[0]!) * k) / 200, a[1]! + ((b[1]! - a[1]!) * k) / 200]);
      })
      .concat([lenne.coordinates.at(-1)!]);
    expect(coordinates.length).toBeGreaterThan(1000);
    const route = { type: 'LineString' as const, coordinates };
    const form = new FormData();
    form.append('query', 'the 3 nearest pharmacies to my route');
    form.append('files', new Blob([JSON.stringify({ type: 'Feature', properties: { name: 'route' }, geometry: route })]), 'route.geojson');
    const res = await fetch(`${baseUrl}/v1/compute`, { method: 'POST', headers: { authorization: `Bearer ${KEYS.bearer}` }, body: form });
    expect(res.status).toBe(200);
    expectRanked(ComputeResponseExact.parse(await res.json()), nearestFirst(pharmacies(), route).slice(0, 3));
  });
});

describe('figures per country of layer features', () => {
  // The generated town lies south of Zürich (47.31 N, 8.52 E), well inside Switzerland.
  it('"how many pharmacies per country": one country item with the town\'s count, as for kinds', async () => {
    const r = await ask('how many pharmacies per country');
    expect(r.results.numberMatched).toBe(1);
    const [f] = r.results.features;
    expect(f!.properties.name).toBe(countryByCode.get('CH')!.name.common);
    expect(f!.properties.attributes).toMatchObject({ count: pharmacies().length });
    expect(count(r)).toBe(1);
  });

  it('"pharmacies per capita in Switzerland": the count over the population of the country', async () => {
    const r = await ask('pharmacies per capita in Switzerland');
    const m = r.warnings.find((w) => (w as { code: string }).code === 'measurement') as { measurement: { kind: string; value: number } };
    expect(m.measurement.kind).toBe('per_capita');
    expect(m.measurement.value).toBe(Math.round((pharmacies().length / populationOf.get('CH')!) * 1e6 * 1000) / 1000);
  });
});

describe('conditions', () => {
  const openAt = (f: TownFeature, at: Date) => new OpeningHours(f.properties['opening_hours']!, null).getState(at);
  const sunday = new Date(2026, 0, 4);

  it('36. open now, on the service clock', async () => {
    const want = pharmacies().filter((f) => openAt(f, NOW));
    expect(want.length).toBeGreaterThan(0);
    expect(want.length).toBeLessThan(pharmacies().length);
    const r = await ask('pharmacies open now');
    expect(sorted(names(r))).toEqual(nameList(want));
    expect(text(r)).toContain('opening_hours');
  });

  it('37. open on Sunday', async () => {
    const want = pharmacies().filter((f) => new OpeningHours(f.properties['opening_hours']!, null).getOpenIntervals(sunday, new Date(2026, 0, 5)).length > 0);
    expect(sorted(names(await ask('pharmacies open on Sunday')))).toEqual(nameList(want));
  });

  it('37b. open at a time today', async () => {
    for (const [said, h, m] of [['open at 8', 8, 0], ['open at 18:45', 18, 45], ['open at 7 pm', 19, 0]] as const) {
      const at = new Date(NOW.getFullYear(), NOW.getMonth(), NOW.getDate(), h, m);
      expect(sorted(names(await ask(`pharmacies ${said}`))), said).toEqual(nameList(pharmacies().filter((f) => openAt(f, at))));
    }
  });

  it('38. wheelchair accessible', async () => {
    const r = await ask('wheelchair accessible pharmacies');
    expect(sorted(names(r))).toEqual(nameList(pharmacies().filter((f) => f.properties['wheelchair'] === 'yes')));
    expect(text(r)).toContain('wheelchair=yes');
  });

  it('39. operated by X', async () => {
    expect(sorted(names(await ask('pharmacies operated by Apotheken AG')))).toEqual(nameList(pharmacies().filter((f) => f.properties['operator'] === 'Apotheken AG')));
    expect(names(await ask('substations operated by Netz AG'))).toEqual(nameList(tagged('power', 'substation').filter((f) => f.properties['operator'] === 'Netz AG')));
  });

  it('40. numeric column: parking with capacity over 100', async () => {
    const r = await ask('parking with capacity over 100');
    expect(sorted(names(r))).toEqual(nameList(tagged('amenity', 'parking').filter((f) => Number(f.properties['capacity']) > 100)));
    expect(sorted(names(await ask('parking with capacity of at least 150')))).toEqual(nameList(tagged('amenity', 'parking').filter((f) => Number(f.properties['capacity']) >= 150)));
  });

  it('40b. ordered by a numeric column: the 2 largest parking by capacity, the smallest first', async () => {
    const byCapacity = tagged('amenity', 'parking').sort((a, b) => Number(b.properties['capacity']) - Number(a.properties['capacity']));
    const largest = await ask('the 2 largest parking by capacity');
    expect(names(largest)).toEqual(byCapacity.slice(0, 2).map((f) => f.properties['name']));
    expect(text(largest)).toContain('largest capacity first');
    expect(names(await ask('top 2 parking by capacity'))).toEqual(byCapacity.slice(0, 2).map((f) => f.properties['name']));
    expect(names(await ask('smallest parking by capacity'))).toEqual(byCapacity.reverse().map((f) => f.properties['name']));
  });

  it('41. a condition and a relation together: wheelchair accessible supermarkets in Nordviertel', async () => {
    const nord = geom('Nordviertel');
    const want = tagged('shop', 'supermarket').filter((f) => f.properties['wheelchair'] === 'yes' && inPolygon(pointOf(f), nord));
    expect(sorted(names(await ask('wheelchair accessible supermarkets in Nordviertel')))).toEqual(nameList(want));
  });

  it('42. how many open on Sunday', async () => {
    const want = pharmacies().filter((f) => new OpeningHours(f.properties['opening_hours']!, null).getOpenIntervals(sunday, new Date(2026, 0, 5)).length > 0);
    expect(count(await ask('how many pharmacies open on Sunday'))).toBe(want.length);
  });
});

describe('conditions on a column the layer does not hold', () => {
  // The columns of the districts file as written above.
  const districtColumns = () => sorted([...new Set(districtFeatures.flatMap((f) => Object.keys(f.properties)))]);

  it('46. refused (422) naming the condition and listing the columns the layer holds, never an empty answer', async () => {
    for (const [q, col] of [
      ['districts open now', 'opening_hours'],
      ['wheelchair accessible districts', 'wheelchair'],
      ['districts with capacity over 100', 'capacity'],
      ['districts operated by Netz AG', 'operator'],
    ] as const) {
      const r = await askRefused(q);
      expect(r.unread, q).toHaveLength(1);
      expect(r.unread[0]!.why, q).toBe(`districts have no ${col} column`);
      expect(r.holds?.subject, q).toBe('districts');
      expect(sorted(r.holds!.columns), q).toEqual(districtColumns());
      expect(r.detail, q).toContain(r.unread[0]!.words);
    }
    // The same condition on a subject whose layer holds the column is answered.
    expect((await ask('pharmacies open now')).results.numberMatched).toBeGreaterThan(0);
  });

  it('47. a follow-up with such a condition is refused too', async () => {
    const first = await ask('districts');
    expect(first.results.numberMatched).toBe(tagged('place', 'quarter').length);
    const res = await fetch(`${baseUrl}/v1/compute`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEYS.bearer}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'only those open now', search_id: first.id }),
    });
    const body = (await res.json()) as { code: string; unread: { words: string; why: string; step?: string }[] };
    expect(res.status).toBe(422);
    expect(body.code).toBe('unread_question');
    // Read with the question it continues ("districts only those open now"): the condition is the reading's first filter.
    expect(body.unread).toEqual([{ words: 'open now', why: 'districts have no opening_hours column', step: 'filter:0' }]);
  });
});

describe('follow-ups', () => {
  it('45. "only those open now" continues a layer answer; a chain keeps every step; a new subject searches anew', async () => {
    const nord = geom('Nordviertel');
    const first = await ask('pharmacies outside Nordviertel');
    const outside = pharmacies().filter((f) => !inPolygon(pointOf(f), nord));
    expect(sorted(names(first))).toEqual(nameList(outside));
    const open = await ask('only those open now', { search_id: first.id });
    const openOutside = outside.filter((f) => new OpeningHours(f.properties['opening_hours']!, null).getState(NOW));
    expect(openOutside.length).toBeLessThan(outside.length);
    expect(sorted(names(open))).toEqual(nameList(openOutside));
    expect(codes(open)).toContain('context');
    const accessible = await ask('wheelchair accessible ones', { search_id: open.id });
    expect(sorted(names(accessible))).toEqual(nameList(openOutside.filter((f) => f.properties['wheelchair'] === 'yes')));
    const anew = await ask('cities in Switzerland over 300,000 people', { search_id: first.id });
    expect(anew.results.numberMatched).toBe(cities.filter((c) => c.country === 'CH' && c.population > 300_000).length);
    expect(anew.results.numberMatched).toBeGreaterThan(0);
  });
});

describe('results', () => {
  it('43. source names the layer and its licence; attributes carry the tags; address from the nearest place', async () => {
    const r = await ask('pharmacies within 300 m of Lennbrück Hauptbahnhof');
    const f = r.results.features[0]!;
    expect(f.properties.source).toMatchObject({ name: 'Lennbrück OSM', licence: 'OpenStreetMap contributors, ODbL 1.0' });
    const gen = named(town.features, f.properties.name);
    expect(f.properties.attributes).toMatchObject(gen.properties);
    const [lon, lat] = pointOf(gen);
    const nearest = [...cities].sort((a, b) => km(a.loc.coordinates[0], a.loc.coordinates[1], lon!, lat!) - km(b.loc.coordinates[0], b.loc.coordinates[1], lon!, lat!))[0]!;
    expect(f.properties.address.startsWith(`near ${nearest.name}`)).toBe(true);
  });

  it('44. an address from OSM addr:* tags when the feature has them', async () => {
    // The layer written here has one feature with an address.
    const file = join(dir, 'files', 'addressed.geojson');
    writeFileSync(file, JSON.stringify({ type: 'FeatureCollection', features: [{ type: 'Feature', geometry: { type: 'Point', coordinates: [8.52, 47.31] }, properties: { amenity: 'library', name: 'Stadtbibliothek', 'addr:street': 'Nordstraße', 'addr:housenumber': '12', 'addr:postcode': '8134', 'addr:city': 'Lennbrück' } }] }));
    const layer = await service.layers.startImport(file).done;
    try {
      const r = await ask('libraries');
      expect(names(r)).toEqual(['Stadtbibliothek']);
      expect(r.results.features[0]!.properties.address).toBe('12 Nordstraße, 8134 Lennbrück');
    } finally {
      await service.layers.remove(layer.id);
    }
    // Removed: its words are gone without a restart.
    expect((await askRefused('libraries')).unread.map((u) => u.words)).toEqual(['libraries']);
  });
});
