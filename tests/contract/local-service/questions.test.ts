import * as turf from '@turf/turf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromMgrs, fromUtm, toMgrs } from '../../../shared/coords';
import type { ComputeResponse } from '../../../shared/service/compute';
import { codeForStatus, describeErrorBody } from '../../../electron/client/errors';
import { compute, computeForm, fileForm, postJson, refused, startService, stopService, type Running } from './harness';
import { airports, apLat, apLon, city, km, type RawAirport } from './raw';

/**
 * Questions read in full or not answered: the unanswerable set (each refused naming what was not
 * read, none answered), and the distance relations and units, each checked against distances
 * computed here from the raw airports.
 */
let r: Running;
beforeAll(async () => {
  r = await startService();
});
afterAll(() => stopService(r));

const MAX = 2000;
const ids = (res: ComputeResponse) => res.results.features.map((f) => f.properties.source_id);
const sorted = (xs: (string | number)[]) => xs.map(String).sort();
const from = (lon: number, lat: number) => (a: RawAirport) => km(apLon(a), apLat(a), lon, lat);
const NMI = 1.852;
const MI = 1.609344;
const FT = 0.0003048;
const YD = 0.0009144;

const sitesCsv =
  'site_id,name,latitude,longitude,status,priority\n' +
  's1,North yard,48.8566,2.3522,open,high\n' +
  's2,River depot,45.764,4.8357,closed,low\n' +
  's3,Old mill,43.2965,5.3698,open,low\n';

describe('the unanswerable set: refused, naming what was not read; never answered', () => {
  const cases: { query: string; words: RegExp; holds?: RegExp; figure?: true }[] = [
    // Conditions no source holds.
    { query: 'airports with runways longer than 3,000 m in Greece', words: /runways/, holds: /iata/ },
    { query: 'airports over 1 million people', words: /population/, holds: /iata/ },
    { query: 'largest airports in France', words: /largest/, holds: /size/ },
    // "long" with no coordinates after it is a plain word, not a longitude.
    { query: 'airports with a long runway', words: /\blong runway\b/, holds: /iata/ },
    { query: 'pharmacies in Lyon', words: /pharmacies/ },
    { query: 'airports within 20 km of a fire station', words: /fire station/ },
    // Photos by what is seen in them, in a service without a photo catalog.
    { query: 'photos showing cars near Lyon', words: /photos showing cars/ },
    // Nonsense words.
    { query: 'purple airports in Malta', words: /purple/ },
    { query: 'xyzzy plugh', words: /xyzzy plugh/ },
    { query: 'cities that glorp in Spain', words: /glorp/ },
    // Unknown places, typos included (no close match is taken without saying so).
    { query: 'airports in Narnia', words: /Narnia/ },
    { query: 'airports within 30 km of Qwertzland', words: /Qwertzland/ },
    { query: 'airports near Springfield, France', words: /Springfield/ },
    // Unsupported units, and relations with nothing to measure from.
    { query: 'airports within 10 parsecs of Paris', words: /parsecs/ },
    { query: 'airports within 3 leagues of Lyon', words: /leagues/ },
    // A figure before a word no rule reads is no population: the figure goes with the word.
    { query: 'cities more than 100 furlongs from Madrid', words: /more than 100 furlongs/, figure: true },
    { query: 'airports more than 30 leagues from Paris', words: /more than 30 leagues/, figure: true },
    { query: 'hospitals over 5 blocks from Lyon', words: /over 5 blocks/, figure: true },
    { query: 'cities larger than 3 parsecs', words: /parsecs/ },
    { query: 'cities between 1 and 2 leagues of Lyon', words: /between 1 and 2 leagues/, figure: true },
    { query: 'cities at least 4 furlongs away from Madrid in Spain', words: /at least 4 furlongs/ },
    { query: 'cities under 12 fathoms from the coast', words: /under 12 fathoms/, figure: true },
    { query: 'cities within 20 km of a city over 100 furlongs', words: /over 100 furlongs/, figure: true },
    { query: 'nearest airports', words: /nearest/ },
    { query: 'cities near me', words: /near me/ },
  ];
  for (const c of cases)
    it(`"${c.query}"`, async () => {
      const p = await refused(r, { query: c.query });
      expect(p.contentType).toMatch(/^application\/problem\+json/);
      expect(p.code).toBe('unread_question');
      expect(p.unread.map((u) => u.words).join(' | ')).toMatch(c.words);
      expect(p.detail).toMatch(c.words);
      expect(p.reading.length).toBeGreaterThan(0);
      expect(p.plan.text).toBe(p.reading);
      // A figure the question gave with a unit the reader lacks is in no step of the reading.
      if (c.figure) {
        expect(p.plan.filters, c.query).toEqual([]);
        expect(p.plan.relations.map((x) => x.reference).join(' '), c.query).not.toMatch(/people/);
      }
      if (c.holds) expect(p.holds!.columns.join(', ')).toMatch(c.holds);
      expect(p).not.toHaveProperty('results');
    });

  it('a condition an upload does not hold: refused, listing the file\'s columns', async () => {
    const form = fileForm({ query: 'my sites with a helipad' }, [{ name: 'sites.csv', text: sitesCsv }]);
    const p = await refused(r, form);
    expect(p.unread.map((u) => u.words)).toEqual(['helipad']);
    expect(p.holds!.columns).toEqual(expect.arrayContaining(['site_id', 'status', 'priority']));
  });

  it('a follow-up of an adjective alone ("only large ones") narrows the set it continues by that subject\'s word', async () => {
    for (const [country, cc] of [['Portugal', 'PT'], ['Iceland', 'IS']] as const) {
      const first = await compute(r, { query: `airports in ${country}`, limit: MAX });
      const again = await compute(r, { query: 'only large ones', search_id: first.id, limit: MAX });
      const want = airports.filter((a) => a.iso_country === cc && a.type === 'large_airport').map((a) => a.id);
      expect(want.length).toBeGreaterThan(0);
      expect(sorted(ids(again))).toEqual(sorted(want));
    }
  });

  it('a misspelt place or word one edit from a known one is read so, with a warning naming the reading', async () => {
    const res = await compute(r, { query: 'airprots in Swtizerland', limit: MAX });
    expect(sorted(ids(res))).toEqual(sorted(airports.filter((a) => a.iso_country === 'CH').map((a) => a.id)));
    const typos = res.warnings.filter((w) => (w as { code: string }).code === 'typo').map((w) => (w as { message: string }).message);
    expect(typos).toEqual(expect.arrayContaining(['read "Swtizerland" as "Switzerland"', 'read "airprots" as "airports"']));
  });

  it('a correction that would lose the subject the question named is not taken: the word is refused instead', async () => {
    // "long" is one edit from "along", which would read "along airports" as a relation and search cities.
    const p = await refused(r, { query: 'long airports near Lyon' });
    expect(p.unread.map((u) => u.words)).toEqual(['long']);
    expect(p.holds!.subject).toBe('airports');
  });

  it('a follow-up with a word not read is refused too', async () => {
    const first = await compute(r, { query: 'airports in Spain', limit: 1 });
    const p = await refused(r, { query: 'only the ones with runways', search_id: first.id });
    expect(p.unread.map((u) => u.words)).toEqual(['runways']);
    expect(p.holds!.subject).toBe('airports');
  });

  it('a follow-up distance with no place of its own narrows the earlier answer, measured from its place', async () => {
    const [lon, lat] = city('Paris', 'FR').loc.coordinates;
    const first = await compute(r, { query: 'airports within 100 km of Paris', limit: 1 });
    expect(first.results.numberMatched).toBe(airports.filter((a) => from(lon, lat)(a) <= 100).length);
    for (const [query, limitKm] of [
      ['only the ones within 30 km', 30],
      ['only those within 30 km', 30],
      ['only the ones within 30 mi', 30 * MI],
    ] as const) {
      const res = await compute(r, { query, search_id: first.id, limit: MAX });
      const want = airports.filter((a) => from(lon, lat)(a) <= limitKm).map((a) => a.id);
      expect(want.length, query).toBeGreaterThan(0);
      expect(sorted(ids(res)), query).toEqual(sorted(want));
      expect(res.warnings.map((w) => (w as { message: string }).message).join('\n'), query).toMatch(/measured from Paris/);
    }
  });

  it('"my sites" inside "my polygon" with both uploaded: the points inside it, not every row and the polygon', async () => {
    const area = turf.bboxPolygon([1, 44, 6, 49]);
    const zones = JSON.stringify({ type: 'FeatureCollection', features: [{ ...area, properties: { name: 'Zone' } }] });
    const rows = sitesCsv.trim().split('\n').slice(1).map((l) => l.split(','));
    const want = rows.filter((c) => turf.booleanPointInPolygon([Number(c[3]), Number(c[2])], area)).map((c) => c[1]).sort();
    expect(want.length).toBeGreaterThan(0);
    expect(want.length).toBeLessThan(rows.length);
    for (const query of ['which of my sites lie inside my polygon', 'my sites in my area']) {
      const res = await computeForm(r, fileForm({ query, limit: String(MAX) }, [{ name: 'sites.csv', text: sitesCsv }, { name: 'zones.geojson', text: zones }]));
      expect(res.results.features.map((f) => f.properties.name).sort(), query).toEqual(want);
      expect(res.warnings.map((w) => (w as { code: string }).code), query).not.toContain('unused_files');
    }
  });

  it('a file sent but not used by the question is named in a warning', async () => {
    const res = await computeForm(r, fileForm({ query: 'airports in Malta', limit: String(MAX) }, [{ name: 'sites.csv', text: sitesCsv }]));
    expect(sorted(ids(res))).toEqual(sorted(airports.filter((a) => a.iso_country === 'MT').map((a) => a.id)));
    const unused = res.warnings.find((w) => (w as { code: string }).code === 'unused_files') as { files: string[] } | undefined;
    expect(unused?.files).toEqual(['sites.csv']);
  });

  it('a population filter on uploads reads their own numeric population column', async () => {
    const csv = 'name,latitude,longitude,population\nA,48.8,2.3,500\nB,45.7,4.8,2500\nC,43.3,5.4,12000\nD,44.8,-0.6,\n';
    const rows = csv.trim().split('\n').slice(1).map((l) => l.split(','));
    const want = rows.filter((c) => c[3] !== '' && Number(c[3]) >= 1000).map((c) => c[0]).sort();
    const res = await computeForm(r, fileForm({ query: 'my sites with population over 1000', limit: String(MAX) }, [{ name: 'towns.csv', text: csv }]));
    expect(res.results.features.map((f) => f.properties.name).sort()).toEqual(want);
  });

  it('"in the current view", "here": the map view the request sent, refused by name without one', async () => {
    const view = [-4, 40, 3.5, 44];
    const want = sorted(airports.filter((a) => a.iso_country === 'ES' && apLon(a) >= view[0]! && apLon(a) <= view[2]! && apLat(a) >= view[1]! && apLat(a) <= view[3]!).map((a) => a.id));
    expect(want.length).toBeGreaterThan(0);
    for (const query of ['airports in Spain in the current view', 'airports in Spain in the selected window', 'airports in Spain in this area', 'airports in Spain here', 'airports in Spain in the map view']) {
      expect(sorted(ids(await compute(r, { query, view_bbox: view, limit: MAX }))), query).toEqual(want);
      const p = await refused(r, { query });
      expect(p.unread.map((u) => u.words).join(' '), query).toMatch(/view|window|area|here/);
    }
    // In a form, as "west,south,east,north" text.
    const res = await computeForm(r, fileForm({ query: 'airports in Spain in the current view', view_bbox: view.join(','), limit: String(MAX) }, []));
    expect(sorted(ids(res))).toEqual(want);
    const bad = await postJson(r, { query: 'airports in the current view', view_bbox: [3, 44, -4, 40] });
    expect(bad.status).toBe(400);
  });

  it('a position in whole numbers with a comma, and a count before the noun with an order after it', async () => {
    const near = airports.filter((a) => from(5, 45)(a) <= 40).map((a) => a.id);
    expect(near.length).toBeGreaterThan(0);
    expect(sorted(ids(await compute(r, { query: 'airports within 40 km of 45, 5', limit: MAX })))).toEqual(sorted(near));
    const [plon, plat] = city('Paris', 'FR').loc.coordinates;
    const far = [...airports].sort((a, b) => from(plon, plat)(b) - from(plon, plat)(a)).slice(0, 5).map((a) => a.id);
    expect(ids(await compute(r, { query: 'the 5 airports farthest from Paris', limit: MAX }))).toEqual(far);
    const [llon, llat] = city('Lyon', 'FR').loc.coordinates;
    const close = [...airports].sort((a, b) => from(llon, llat)(a) - from(llon, llat)(b)).slice(0, 2).map((a) => a.id);
    expect(ids(await compute(r, { query: 'which 2 airports are closest to Lyon', limit: MAX }))).toEqual(close);
  });

  it('the client takes the detail as the server\'s message, a validation error the user reads', async () => {
    const res = await postJson(r, { query: 'airports with runways in Greece' });
    const seen = describeErrorBody(JSON.stringify(res.body), res.contentType);
    expect(codeForStatus(res.status)).toBe('VALIDATION');
    expect(seen.message).toBe((res.body as { detail: string }).detail);
    expect(seen.fieldErrors).toEqual([{ field: 'query', message: expect.stringContaining('"runways"') }]);
  });

  it('the detail says what the data holds in one paragraph the client shows as is', async () => {
    const p = await refused(r, { query: 'airports with runways longer than 3,000 m in Greece' });
    expect(p.detail).toMatch(/^The question was not answered: part of it could not be read: "with runways longer|^The question was not answered: part of it could not be read: "runways longer/);
    expect(p.detail).toContain('Airports have: name');
    expect(p.detail).toContain('Read so far: airports · in Greece');
    expect(p.detail.length).toBeLessThan(500);
  });
});

describe('distances in every unit asked, checked against the raw airports', () => {
  const athens = city('Athens', 'GR');
  const [aLon, aLat] = athens.loc.coordinates;
  const dA = from(aLon, aLat);

  it('"within 60 nmi of Athens": nautical miles, echoed in nmi with km', async () => {
    const res = await compute(r, { query: 'airports within 60 nmi of Athens', limit: MAX, answer: true });
    const want = airports.filter((a) => dA(a) <= 60 * NMI);
    expect(want.length).toBeGreaterThan(2);
    expect(sorted(ids(res))).toEqual(sorted(want.map((a) => a.id)));
    expect(res.answer.content).toContain('60 nmi (111 km)');
    const spelled = await compute(r, { query: 'airports within 60 nautical miles of Athens', limit: MAX });
    expect(sorted(ids(spelled))).toEqual(sorted(want.map((a) => a.id)));
  });

  it('feet, yards and miles', async () => {
    for (const [query, limitKm] of [
      ['airports within 200,000 ft of Athens', 200_000 * FT],
      ['airports within 90000 yd of Athens', 90_000 * YD],
      ['airports within 40 mi of Athens', 40 * MI],
    ] as const) {
      const res = await compute(r, { query, limit: MAX });
      expect(sorted(ids(res)), query).toEqual(sorted(airports.filter((a) => dA(a) <= limitKm).map((a) => a.id)));
    }
  });

  it('"between 50 and 150 km of Athens": a ring, both ends included', async () => {
    const want = airports.filter((a) => dA(a) >= 50 && dA(a) <= 150);
    expect(want.length).toBeGreaterThan(0);
    for (const query of ['airports between 50 and 150 km of Athens', 'airports between 50 km and 150 km from Athens']) {
      const res = await compute(r, { query, limit: MAX });
      expect(sorted(ids(res)), query).toEqual(sorted(want.map((a) => a.id)));
    }
    const mixed = await compute(r, { query: 'airports between 27 nmi and 150 km from Athens', limit: MAX });
    expect(sorted(ids(mixed))).toEqual(sorted(airports.filter((a) => dA(a) >= 27 * NMI && dA(a) <= 150).map((a) => a.id)));
  });

  it('"more than 300 km from Athens" in Greece, and "beyond": farther than the distance', async () => {
    const want = airports.filter((a) => a.iso_country === 'GR' && dA(a) > 300);
    expect(want.length).toBeGreaterThan(0);
    for (const query of ['airports in Greece more than 300 km from Athens', 'Greek airports beyond 300 km of Athens', 'airports in Greece over 300 km away from Athens']) {
      const res = await compute(r, { query, limit: MAX });
      expect(sorted(ids(res)), query).toEqual(sorted(want.map((a) => a.id)));
    }
  });

  it('farthest N: the most distant first', async () => {
    const want = airports.filter((a) => a.iso_country === 'GR').sort((a, b) => dA(b) - dA(a)).slice(0, 3);
    const res = await compute(r, { query: 'the 3 farthest airports in Greece from Athens', limit: MAX });
    expect(ids(res)).toEqual(want.map((a) => a.id));
  });

  it('a position in the text, in decimal, hemisphere letters, DMS, UTM and MGRS: nearest N to it', async () => {
    const lat = 48.8566;
    const lon = 2.3522;
    const want = [...airports].sort((a, b) => from(lon, lat)(a) - from(lon, lat)(b)).slice(0, 5).map((a) => a.id);
    for (const query of ['nearest 5 airports to 48.8566, 2.3522', 'the 5 nearest airports to 48.8566 N 2.3522 E', 'nearest 5 airports to 48°51′23.8″N 2°21′7.9″E']) {
      const res = await compute(r, { query, limit: MAX });
      expect(ids(res), query).toEqual(want);
    }
    const mgrs = toMgrs({ lat, lon }, 5);
    if (!mgrs) throw new Error("no MGRS reference for Paris");
    const m = fromMgrs(mgrs);
    if ('error' in m) throw new Error(m.error);
    const byM = await compute(r, { query: `nearest 5 airports to ${mgrs}`, limit: MAX });
    expect(ids(byM)).toEqual([...airports].sort((a, b) => from(m.lon, m.lat)(a) - from(m.lon, m.lat)(b)).slice(0, 5).map((a) => a.id));
    const u = fromUtm(31, 'U', 452000, 5411000);
    if ('error' in u) throw new Error(u.error);
    const byU = await compute(r, { query: 'airports within 40 km of 31U 452000 5411000', limit: MAX });
    expect(sorted(ids(byU))).toEqual(sorted(airports.filter((a) => from(u.lon, u.lat)(a) <= 40).map((a) => a.id)));
  });

  it('relations compose: within 100 nmi of a position, in one country, farthest first', async () => {
    const [lon, lat] = [23.9445, 37.9364];
    const d = from(lon, lat);
    const want = airports.filter((a) => a.iso_country === 'GR' && d(a) <= 100 * NMI).sort((a, b) => d(b) - d(a));
    const res = await compute(r, { query: 'Greek airports within 100 nmi of 37.9364, 23.9445 farthest first', limit: MAX });
    expect(ids(res)).toEqual(want.map((a) => a.id));
  });

  it('every answer carries its reading: a structured warning and one sentence', async () => {
    const res = await compute(r, { query: 'airports within 60 nmi of Athens nearest first', limit: 1, answer: true });
    const plan = res.warnings.find((w) => (w as { code: string }).code === 'plan') as { reading: { subject: string; relations: { relation: string; max_km: number }[]; order: string } };
    expect(plan.reading.subject).toBe('airports');
    expect(plan.reading.relations[0]!.relation).toBe('within 60 nmi (111 km)');
    expect(plan.reading.relations[0]!.max_km).toBeCloseTo(60 * NMI, 6);
    expect(plan.reading.order).toBe('nearest first');
    expect(res.answer.content).toMatch(/Read as: airports · within 60 nmi \(111 km\) of Athens[^·]* · nearest first\.$/);
  });
});

describe('an uploaded polygon as the area', () => {
  const box = { west: 2, south: 43, east: 8, north: 47 };
  const area = JSON.stringify({
    type: 'Feature',
    properties: { name: 'survey area' },
    geometry: { type: 'Polygon', coordinates: [[[box.west, box.south], [box.east, box.south], [box.east, box.north], [box.west, box.north], [box.west, box.south]]] },
  });
  const inBox = (a: RawAirport) => apLon(a) > box.west && apLon(a) < box.east && apLat(a) > box.south && apLat(a) < box.north;

  it('"airports inside my area", "outside my area": the uploaded polygon, not every airport', async () => {
    const inside = await computeForm(r, fileForm({ query: 'airports inside my area', limit: String(MAX) }, [{ name: 'area.geojson', text: area }]));
    const want = airports.filter(inBox);
    expect(want.length).toBeGreaterThan(5);
    expect(sorted(ids(inside))).toEqual(sorted(want.map((a) => a.id)));
    const out = await computeForm(r, fileForm({ query: 'French airports outside my area', limit: String(MAX) }, [{ name: 'area.geojson', text: area }]));
    expect(sorted(ids(out))).toEqual(sorted(airports.filter((a) => a.iso_country === 'FR' && !inBox(a)).map((a) => a.id)));
  });

  it('composes with a distance: large airports in my area within 300 km of Lyon', async () => {
    const lyon = city('Lyon', 'FR');
    const d = from(lyon.loc.coordinates[0], lyon.loc.coordinates[1]);
    const res = await computeForm(r, fileForm({ query: 'large airports in my area within 300 km of Lyon', limit: String(MAX) }, [{ name: 'area.geojson', text: area }]));
    expect(sorted(ids(res))).toEqual(sorted(airports.filter((a) => inBox(a) && a.type === 'large_airport' && d(a) <= 300).map((a) => a.id)));
  });
});

describe('conditions on uploaded columns', () => {
  const hoursCsv =
    'site_id,name,latitude,longitude,opening_hours,operator\n' +
    'h1,Always,48.85,2.35,24/7,Acme Logistics\n' +
    'h2,Never on Sunday,45.76,4.83,Mo-Sa 08:00-18:00,Acme Logistics\n' +
    'h3,Weekdays,43.29,5.37,Mo-Fr 09:00-17:00,Other Co\n';

  it('"open on Sunday" and "operated by" are read from the file\'s columns', async () => {
    const sunday = await computeForm(r, fileForm({ query: 'my sites open on Sunday', limit: '10' }, [{ name: 'sites.csv', text: hoursCsv }]));
    expect(sunday.results.features.map((f) => f.properties.name)).toEqual(['Always']);
    const acme = await computeForm(r, fileForm({ query: 'my sites operated by Acme', limit: '10' }, [{ name: 'sites.csv', text: hoursCsv }]));
    expect(sorted(acme.results.features.map((f) => f.properties.name))).toEqual(['Always', 'Never on Sunday']);
  });

  it('"my open sites", "high priority sites", "status is closed": values of the file\'s columns', async () => {
    const ask = async (query: string) =>
      sorted((await computeForm(r, fileForm({ query, limit: '10' }, [{ name: 'sites.csv', text: sitesCsv }]))).results.features.map((f) => f.properties.name));
    expect(await ask('my open sites')).toEqual(['North yard', 'Old mill']);
    expect(await ask('my high priority sites')).toEqual(['North yard']);
    expect(await ask('my sites with status is closed')).toEqual(['River depot']);
    expect(await ask('my open sites within 300 km of Lyon')).toEqual(['Old mill']);
  });

  it('"top 3 by capacity", "smallest by capacity", "my 2 largest sites": a numeric column of the file orders the sites', async () => {
    const rows = [
      ['Depot A', 1200], ['Depot B', 80], ['Depot C', 450], ['Depot D', 3000], ['Depot E', 15],
    ] as const;
    const csv = 'name,latitude,longitude,capacity\n' + rows.map(([n, c], k) => `${n},${45 + k / 10},${5 + k / 10},${c}`).join('\n') + '\n';
    const ask = async (query: string) =>
      (await computeForm(r, fileForm({ query, limit: '10' }, [{ name: 'depots.csv', text: csv }]))).results.features.map((f) => f.properties.name);
    const desc = [...rows].sort((a, b) => b[1] - a[1]).map(([n]) => n);
    expect(await ask('top 3 of my sites by capacity')).toEqual(desc.slice(0, 3));
    expect(await ask('the 2 largest of my sites by capacity')).toEqual(desc.slice(0, 2));
    // The possessive before the order words: read as the same question.
    expect(await ask('my 2 largest sites by capacity')).toEqual(desc.slice(0, 2));
    expect(await ask('my top 3 sites by capacity')).toEqual(desc.slice(0, 3));
    expect(await ask('smallest of my sites by capacity')).toEqual([...desc].reverse());
  });

  it('a condition on a column the file does not have is refused, never every site', async () => {
    const p = await refused(r, fileForm({ query: 'my sites open now' }, [{ name: 'sites.csv', text: sitesCsv }]));
    // The refusal names the step that holds the condition: the reading's only filter.
    expect(p.unread).toEqual([{ words: 'open now', why: expect.stringMatching(/no opening_hours column/), step: 'filter:0' }]);
    expect(p.plan.filters).toEqual(['open now']);
    expect(p.holds!.columns).toEqual(expect.arrayContaining(['status', 'priority']));
  });

  it('conditions on built-in kinds, which hold none, are refused', async () => {
    const p = await refused(r, { query: 'airports open now in Spain' });
    expect(p.unread.map((u) => u.words)).toEqual(['open now']);
  });
});
