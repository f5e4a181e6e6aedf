import { describe, expect, it } from 'vitest';
import { defaultCatalogDir, loadCatalog } from '../../../electron/local-service/catalog/catalog';
import { parseQuery } from '../../../electron/local-service/query/parse';
import { readModels } from '../../../electron/local-service/imagery/perception/models';
import { ClassVocabulary } from '../../../electron/local-service/imagery/perception/vocabulary';

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

  it('reads nautical miles, feet and yards, rings and lower bounds, farthest first', () => {
    expect(read('cities within 60 nmi of Lyon').within).toMatchObject({ radiusKm: 60 * 1.852, said: { value: 60, unit: 'nmi' } });
    expect(read('cities within 5 nautical miles of Lyon').within).toMatchObject({ radiusKm: 5 * 1.852, said: { unit: 'nautical miles' } });
    expect(read('cities within 3000 ft of Lyon').within?.radiusKm).toBeCloseTo(3000 * 0.0003048, 12);
    expect(read('cities within 1,000 yards of Lyon').within?.radiusKm).toBeCloseTo(1000 * 0.0009144, 12);
    expect(read('cities between 1 and 2 km of Lyon').within).toMatchObject({ radiusKm: 2, minKm: 1, minInclusive: true });
    expect(read('cities between 500 m and 2 km from Lyon').within).toMatchObject({ radiusKm: 2, minKm: 0.5 });
    expect(read('cities more than 100 km from Lyon').within).toMatchObject({ radiusKm: Infinity, minKm: 100, minInclusive: false });
    expect(read('cities at least 10 mi from Lyon').within).toMatchObject({ minKm: 10 * 1.609344, minInclusive: true });
    expect(read('cities more than 2.5m inhabitants')).toMatchObject({ popMin: 2.5e6 });
    expect(read('cities over 100 km')).toMatchObject({ notRead: [{ words: 'over 100 km' }] });
    expect(read('the 3 farthest airports from Lyon')).toMatchObject({ order: 'distance_desc', top: 3 });
    expect(read('the 2 most distant airports from Lyon')).toMatchObject({ order: 'distance_desc', top: 2 });
  });

  it('reads positions written in the text', () => {
    const at = (q: string) => {
      const ref = read(q).distanceRef;
      return ref?.type === 'points' ? ref.points[0] : undefined;
    };
    expect(at('nearest airports to 48.8566, 2.3522')).toMatchObject({ lat: 48.8566, lon: 2.3522 });
    expect(at('nearest airports to 33.9 S 151.2 E')).toMatchObject({ lat: -33.9, lon: 151.2 });
    expect(at('nearest airports to 40.4168, -3.7038')).toMatchObject({ lat: 40.4168, lon: -3.7038 });
    const dms = at('nearest airports to 48°30′00″N 2°15′00″W')!;
    expect(dms.lat).toBeCloseTo(48.5, 9);
    expect(dms.lon).toBeCloseTo(-2.25, 9);
    // Whole numbers with a comma are a position, said in a warning; without one they are none.
    expect(at('nearest airports to 1, 2')).toMatchObject({ lat: 1, lon: 2 });
    expect(read('airports within 40 km of 45, 5').warnings.map((w) => w.message)).toContain('read "45, 5" as the position latitude 45, longitude 5');
    expect(read('airports within 40 km of 45.0, 5').within?.reference).toMatchObject({ points: [{ lat: 45, lon: 5 }] });
    expect(read('nearest airports to 1 2').notRead.length).toBeGreaterThan(0);
  });

  it('names every part it could not read, and only those', () => {
    expect(read('airports with runways longer than 3000 m in Greece').notRead).toEqual([{ words: 'runways longer than 3000 m', why: 'no rule reads these words' }]);
    expect(read('could you please show me the airports in Greece').notRead).toEqual([]);
    expect(read('airports in Narnia').notRead.map((u) => u.words)).toEqual(['Narnia']);
    expect(read('airports cities').notRead.map((u) => u.words)).toEqual(['cities']);
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
    // "near me" without request coordinates is read, and answers nothing rather than every city.
    expect(read('cities near me').ignored).toEqual([]);
    expect(read('cities near me').unread).toEqual(['near me']);
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

describe('readings of issues 15 and 18', () => {
  it('1. "nearest" with a singular noun takes one, with a plural ranks all, with a count takes that many', () => {
    expect(read('nearest airport to Cusco')).toMatchObject({ order: 'distance', top: 1 });
    expect(read('which airport is closest to Cusco')).toMatchObject({ order: 'distance', top: 1 });
    expect(read('nearest airports to Cusco').top).toBeUndefined();
    expect(read('nearest airports to Cusco').order).toBe('distance');
    expect(read('the 3 nearest airports to Cusco')).toMatchObject({ order: 'distance', top: 3 });
    expect(read('airports near Cusco')).toMatchObject({ order: 'distance', within: { radiusKm: 50 } });
  });

  it('2. city names match ASCII spellings and alternate names, most important first', () => {
    expect(read('cities near Lodz').within?.reference.label).toBe('Łódź, Poland');
    expect(read('cities near Geneva').within?.reference.label).toBe('Genève, Switzerland');
    expect(read('cities near Nuremberg').within?.reference.label).toBe('Nürnberg, Germany');
  });

  it('3. keeps the unit the question used next to the radius in km', () => {
    expect(read('cities within 300 miles of Lyon').within).toMatchObject({ said: { value: 300, unit: 'miles' } });
    expect(read('cities within 300 miles of Lyon').within?.radiusKm).toBeCloseTo(300 * 1.609344, 9);
  });

  it('5. a population filter after a reference class belongs to that class', () => {
    const p = read('which of my sites are near a city over 1 million people', { fileNames: ['sites.csv'] });
    expect(p).toMatchObject({ subject: 'upload', within: { reference: { type: 'class', kind: 'city', popMin: 1e6 } } });
    expect(p.popMin).toBeUndefined();
    const q = read('my sites within 20 km of a city with over 1 million people', { fileNames: ['sites.csv'] });
    expect(q.within?.reference).toMatchObject({ kind: 'city', popMin: 1e6 });
    // A filter after the subject stays with the subject.
    expect(read('cities over 1 million near an airport')).toMatchObject({ popMin: 1e6, within: { reference: { kind: 'airport' } } });
  });

  it('6. reads boxes, keeps thousands separators apart from box lists, and flags unreadable areas', () => {
    const box = { west: 4.5, south: 45.5, east: 5.5, north: 46 };
    expect(read('airports bbox 4.5,45.5,5.5,46').bbox).toEqual(box);
    expect(read('airports between latitude 45.5 and 46 and longitude 4.5 and 5.5').bbox).toEqual(box);
    expect(read('airports 45.5N to 46N, 4.5E to 5.5E').bbox).toEqual(box);
    expect(read('airports 33S to 34S, 18E to 19E').bbox).toEqual({ west: 18, south: -34, east: 19, north: -33 });
    expect(read('airports bbox 10,100,20,110').invalid).toMatch(/latitudes must lie between -90 and 90/);
    expect(read('cities over 1,000,000 people')).toMatchObject({ popMin: 1e6 });
    expect(read('airports bbox 4.5,45.5').invalid).toMatch(/four numbers/);
    expect(read('airports in Narnia').unread).toEqual(['Narnia']);
  });

  it('7. "sort X by distance to Y" reads like "X sorted by distance to Y"', () => {
    const files = { fileNames: ['sites.csv'] };
    const a = read('sort my sites by distance to Paris', files);
    const b = read('my sites sorted by distance to Paris', files);
    expect(a).toMatchObject({ subject: 'upload', order: 'distance', distanceRef: { label: 'Paris, France' }, ignored: [] });
    expect({ ...a, warnings: [] }).toEqual({ ...b, warnings: [] });
  });

  it('8. a country or division after a city name chooses among namesakes', () => {
    expect(read('airports near Geneva, Switzerland').within?.reference.label).toBe('Genève, Switzerland');
    expect(read('airports near Paris, Texas').within?.reference.label).toBe('Paris, TX, United States');
    expect(read('airports near Paris Texas').within?.reference.label).toBe('Paris, TX, United States');
    expect(read('airports near Springfield, France').unread).toEqual(['Springfield, France']);
  });
});

describe('photos by what the detector saw in them', () => {
  const models = readModels();
  const detections = new ClassVocabulary(models.classes);
  const seen = (q: string) => read(q, { detections });

  it('"photos showing <class>" reads every class of the detector\'s data by its label', () => {
    for (const c of models.classes) {
      const plan = seen(`photos showing ${c.label}`);
      expect(plan.notRead).toEqual([]);
      expect(plan.seen).toMatchObject({ label: c.label, said: `photos showing ${c.label}` });
    }
  });

  it('reads plurals and other words of a class, several wordings, and the relations after them', () => {
    expect(seen('photos of people').seen).toMatchObject({ label: 'person', plural: true });
    expect(seen('pictures that show a bus').seen).toMatchObject({ label: 'bus', plural: true });
    expect(seen('photo with fire hydrants').seen).toMatchObject({ label: 'fire hydrant', plural: false });
    const benches = seen('benches seen within 2 km of 45.76, 4.84');
    expect(benches).toMatchObject({ subject: null, seen: { label: 'bench', said: 'benches seen' }, within: { radiusKm: 2 }, notRead: [] });
    expect(seen('stop signs spotted in France')).toMatchObject({ seen: { label: 'stop sign' }, countries: ['FR'], notRead: [] });
    const cars = seen('photos showing cars near airports');
    expect(cars).toMatchObject({ subject: null, seen: { label: 'car' }, within: { reference: { type: 'class', kind: 'airport' } }, notRead: [] });
  });

  it('a thing the detector has no class for is not read, naming it and the classes there are', () => {
    const plan = seen('photos showing tanks near Lyon');
    expect(plan.seen).toMatchObject({ label: null });
    expect(plan.notRead).toEqual([{ words: 'tanks', why: expect.stringContaining('person, bicycle, car'), part: 'subject' }]);
    expect(seen('tanks seen near Lyon').notRead.map((u) => u.words)).toEqual(['tanks']);
    // A second class is not dropped as filler: one class per question.
    expect(seen('photos showing cars and people near Lyon').notRead).toEqual([{ words: 'and people', why: expect.stringContaining('one class') }]);
    // A name after "photos of" is a place, not a thing seen: no class is refused for it.
    const paris = seen('photos of Paris');
    expect(paris.seen).toBeUndefined();
    expect(paris.notRead[0]).toEqual({ words: 'photos of', why: expect.stringContaining('photos showing cars') });
    // Without a detector nothing is read as seen.
    expect(read('photos showing cars').notRead).toEqual([expect.objectContaining({ words: 'photos showing cars', why: expect.stringMatching(/detector/) })]);
  });

  it('questions without photo words read as before', () => {
    expect(seen('cities within 30 km of Lyon')).toMatchObject({ subject: 'city', notRead: [] });
    expect(seen('cities within 30 km of Lyon').seen).toBeUndefined();
    expect(seen('cities over 1 million people').seen).toBeUndefined();
  });
});
