import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compute, startService, stopService, type Running } from './harness';
import { airports, apLat, apLon, km } from './raw';

/** Every written answer with distances names what they were measured from. */
let r: Running;
beforeAll(async () => {
  r = await startService();
});
afterAll(async () => {
  await stopService(r);
});

const origin = (content: string | null) => /Distances are from ([^.]*(?:\.\d+[^.]*)*)\./.exec(content ?? '')?.[1] ?? null;
const depot = { name: 'Depot', latitude: 45.76, longitude: 4.84 };

describe('the origin of distances in the answer', () => {
  it('a named place', async () => {
    const res = await compute(r, { query: 'nearest airport to Lyon' });
    expect(res.results.features[0]!.properties.distance_meters).toBeGreaterThan(0);
    expect(origin(res.answer.content)).toBe('Lyon, France');
  });

  it("a request coordinate named in the question is the person's site", async () => {
    const res = await compute(r, { query: 'nearest airport to Depot', coordinates: [depot] });
    expect(origin(res.answer.content)).toBe("your site 'Depot'");
  });

  it('a request coordinate the question does not name is still said', async () => {
    const res = await compute(r, { query: 'airports', coordinates: [depot], limit: 3 });
    expect(res.results.features.every((f) => typeof f.properties['distance_km'] === 'number')).toBe(true);
    expect(origin(res.answer.content)).toBe("your site 'Depot'");
  });

  it('a position written in the question', async () => {
    const res = await compute(r, { query: 'nearest airport to 45.76, 4.84' });
    const [nearest] = [...airports].sort((a, b) => km(apLon(a), apLat(a), 4.84, 45.76) - km(apLon(b), apLat(b), 4.84, 45.76));
    expect(res.results.features[0]!.properties.source_id).toBe(nearest!.id);
    expect(origin(res.answer.content)).toMatch(/^45\.76,? 4\.84$/);
  });

  it('a class of items: the nearest of them', async () => {
    const res = await compute(r, { query: 'cities within 20 km of an airport', limit: 3 });
    expect(res.results.numberMatched).toBeGreaterThan(0);
    expect(origin(res.answer.content)).toBe('the nearest of the airports');
  });

  it('an answer without distances says nothing about them', async () => {
    const res = await compute(r, { query: 'airports in France', limit: 3 });
    expect(res.results.features.every((f) => !('distance_km' in f.properties))).toBe(true);
    expect(res.answer.content).not.toContain('Distances are from');
  });
});

describe('the origin of distances in an answer about data layers', () => {
  let t: Running;
  beforeAll(async () => {
    t = await startService();
    const town = join(t.dataDir, 'town.geojson');
    const point = (name: string, lon: number, tags: Record<string, string>) => ({ type: 'Feature', properties: { name, ...tags }, geometry: { type: 'Point', coordinates: [lon, 45.76] } });
    const features = [point('Cafe near', 4.841, { amenity: 'cafe' }), point('Cafe far', 4.85, { amenity: 'cafe' }), point('Bellecour', 4.84, { amenity: 'fountain' })];
    writeFileSync(town, JSON.stringify({ type: 'FeatureCollection', features }));
    await t.service.layers.startImport(town).done;
  });
  afterAll(async () => {
    if (t) await stopService(t);
  });

  it('a site of the person asking', async () => {
    const res = await compute(t, { query: 'nearest cafe to Depot', coordinates: [depot] });
    expect(res.results.features[0]!.properties.name).toBe('Cafe near');
    expect(origin(res.answer.content)).toBe("your site 'Depot'");
  });

  it('a layer feature', async () => {
    const res = await compute(t, { query: 'cafes within 2 km of a fountain' });
    expect(res.results.features.map((f) => f.properties.name)).toEqual(['Cafe near', 'Cafe far']);
    expect(origin(res.answer.content)).toBe('the nearest fountain');
  });

  it('a layer feature named in the question', async () => {
    const res = await compute(t, { query: 'cafes within 2 km of Bellecour' });
    expect(res.results.features.map((f) => f.properties.name)).toEqual(['Cafe near', 'Cafe far']);
    expect(origin(res.answer.content)).toBe('Bellecour');
  });
});
