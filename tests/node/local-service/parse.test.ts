import { describe, expect, it } from 'vitest';
import { defaultCatalogDir, loadCatalog } from '../../../electron/local-service/catalog/catalog';
import { parseQuery } from '../../../electron/local-service/query/parse';

const catalog = loadCatalog(defaultCatalogDir());
const read = (q: string, extra: Partial<Parameters<typeof parseQuery>[1]> = {}) =>
  parseQuery(q, { catalog, coordinates: [], fileNames: [], ...extra });
const codes = (q: string) => read(q).warnings.map((w) => w.code);

describe('query reading', () => {
  it('reads subjects with their synonyms and sizes', () => {
    expect(read('airfields in Chile')).toMatchObject({ subject: 'airport', countries: ['CL'] });
    expect(read('major airstrips')).toMatchObject({ subject: 'airport', large: true });
    expect(read('regional airports')).toMatchObject({ subject: 'airport', large: false });
    expect(read('towns in Norway')).toMatchObject({ subject: 'city', countries: ['NO'] });
    expect(read('capitals')).toMatchObject({ subject: 'city', capital: true });
    expect(read('nations')).toMatchObject({ subject: 'country' });
  });

  it('reads distances in km, miles and meters', () => {
    expect(read('cities within 30 km of Lyon').within?.radiusKm).toBe(30);
    expect(read('cities within 20 mi of Lyon').within?.radiusKm).toBeCloseTo(32.18688);
    expect(read('cities within 500 m of Lyon').within?.radiusKm).toBe(0.5);
    expect(read('cities less than 10km from Lyon').within?.radiusKm).toBe(10);
  });

  it('reads population figures with multipliers and ranges', () => {
    expect(read('cities over 1 million people')).toMatchObject({ popMin: 1e6 });
    expect(read('cities with more than 2.5m inhabitants')).toMatchObject({ popMin: 2.5e6 });
    expect(read('cities under 50,000')).toMatchObject({ popMax: 5e4 });
    expect(read('cities between 100 and 500k')).toMatchObject({ popMin: 1e5, popMax: 5e5 });
    expect(read('cities between 100k and 500k')).toMatchObject({ popMin: 1e5, popMax: 5e5 });
  });

  it('reads order, top N and measurements', () => {
    expect(read('top 5 largest cities')).toMatchObject({ top: 5, order: 'population_desc' });
    expect(read('3 nearest airports to Oslo')).toMatchObject({ top: 3, order: 'distance' });
    expect(read('how many airports per country')).toMatchObject({ measurement: 'count', byCountry: true });
    expect(read('airports per capita in Peru')).toMatchObject({ measurement: 'per_capita', countries: ['PE'] });
    expect(read('airports per square km in Peru')).toMatchObject({ measurement: 'per_area' });
  });

  it('says how it read the question: ignored words, default radii, ambiguous places', () => {
    expect(read('shiny airports in Peru').ignored).toEqual(['shiny']);
    expect(codes('shiny airports in Peru')).toContain('ignored_words');
    expect(codes('airports near Lyon')).toContain('reading');
    const amb = read('airports near Paris').warnings.find((w) => w.code === 'ambiguous_place');
    expect(amb?.message).toMatch(/used Paris, France/);
    expect(codes('airports near Paris, France')).not.toContain('ambiguous_place');
  });

  it('does not take everyday words for places, and finds "X City" without "City"', () => {
    expect(read('cities near me').within).toBeUndefined();
    expect(read('cities near me').ignored).toEqual(['near']);
    expect(read('airports near New York').within?.reference.label).toBe('New York City, NY, United States');
    expect(read('airports in the UK')).toMatchObject({ countries: ['GB'] });
    expect(read('airports in the uk')).toMatchObject({ countries: ['GB'] });
    expect(read('airports in AT')).toMatchObject({ countries: ['AT'] });
  });

  it('reads "near <country>" as in the country, with no radius', () => {
    const p = read('airports near France');
    expect(p).toMatchObject({ subject: 'airport', countries: ['FR'] });
    expect(p.within).toBeUndefined();
    expect(p.warnings.map((w) => w.message)).toContain(
      'read "near France" as "in France": distances to a whole country or region are not measured',
    );
    expect(read('airports in Europe').countries).toContain('DE');
    expect(read('airports in Europe').countries).not.toContain('US');
    expect(read('capitals of South America').countries).toEqual(expect.arrayContaining(['BR', 'AR', 'CL']));
    expect(read('cities in America').countries).toEqual(['US']);
  });

  it('uses request coordinates and file names', () => {
    const coordinates = [{ name: 'Base Camp', latitude: 27.98, longitude: 86.92 }];
    const p = read('airports around base camp', { coordinates });
    expect(p.within?.reference).toMatchObject({ type: 'points', points: [{ lon: 86.92, lat: 27.98, label: 'Base Camp' }] });
    expect(read('which rows of depots are near an airport', { fileNames: ['depots.csv'] })).toMatchObject({
      subject: 'upload',
      within: { reference: { type: 'class', kind: 'airport' } },
    });
  });

  it('reads follow-ups against a saved subject', () => {
    const p = read('only those in Spain', { savedSubject: 'airport' });
    expect(p).toMatchObject({ subject: null, countries: ['ES'], ignored: [] });
    expect(read('cities near those', { savedSubject: 'airport' }).within?.reference.type).toBe('saved');
  });
});

describe('ordering', () => {
  it('sorts large sets by distance exactly like the comparator, ties by item number', async () => {
    const { sortByDistance } = await import('../../../electron/local-service/query/execute');
    let seed = 9;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    const items = Array.from({ length: 5000 }, (_, i) => ({
      k: 'city' as const,
      i: i * 37,
      ...(next() < 0.05 ? {} : { d: Math.round(next() * 300) * 1000 + (next() < 0.5 ? 0 : 0.25) }),
    }));
    const want = [...items].sort((a, b) => (a.d ?? Infinity) - (b.d ?? Infinity) || a.i - b.i);
    sortByDistance(items);
    expect(items).toEqual(want);
  });
});
