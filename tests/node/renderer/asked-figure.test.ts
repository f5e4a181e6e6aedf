import { describe, expect, it } from 'vitest';
import { readResults } from '../../../renderer/src/map/readResults';
import { labelText } from '../../../renderer/src/map/resultStyles';
import { useAskStore } from '../../../renderer/src/stores/ask';
import { useMapStore } from '../../../renderer/src/stores/map';
import { scriptedClient, withStores } from './support/stores';

/**
 * The figure a question asked about ("largest capacity first", "count per country") is what the
 * map's labels show after each name, as the table shows it as a column.
 */
const SITES = [
  { name: 'Annecy store', capacity: 340, lon: 6.1294, lat: 45.8992 },
  { name: 'Chambery shop', capacity: 210, lon: 5.9178, lat: 45.5646 },
];
const COUNTRIES = [
  { name: 'France', count: 2, population: 66977107 },
  { name: 'Italy', count: 1, population: 60421760 },
];

const feature = (i: number, name: string, attributes: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  type: 'Feature' as const,
  id: `f${i}`,
  geometry: { type: 'Point', coordinates: [5 + i, 45] },
  properties: { source_id: `s${i}`, name, address: '', score: 1, distance_meters: 0, source: { name: 'x', url: '' }, attributes, ...extra },
});

function answer(order: string | undefined, measurement: string | undefined, features: ReturnType<typeof feature>[]) {
  const reading = { subject: 'x', source: 'x', filters: [], relations: [], text: 'x', ...(order ? { order } : {}), ...(measurement ? { measurement } : {}) };
  return {
    queryId: 1,
    response: {
      id: '00000000-0000-4000-8000-000000000001',
      query: 'q',
      answer: { status: 'complete', content: 'ok', error: null },
      results: { type: 'FeatureCollection', numberMatched: features.length, numberReturned: features.length, features },
      warnings: [{ code: 'plan', message: 'read as: x', reading }],
      usage: { meters: 1 },
    },
  };
}

async function figureAfter(value: ReturnType<typeof answer>): Promise<readonly string[]> {
  const { client } = scriptedClient(async (method) => (method === 'compute.run' ? { ok: true, value } : { ok: true, value: {} }));
  const { ask, map } = withStores(client, () => ({ ask: useAskStore(), map: useMapStore() }));
  ask.query = 'q';
  await ask.run();
  return map.figures.ask;
}

describe('the figure asked about, on the map', () => {
  it('is the ordered column of "my 2 largest sites by capacity" and the count of "sites per country"', async () => {
    const sites = SITES.map((s, i) => feature(i, s.name, { name: s.name, capacity: s.capacity }));
    expect(await figureAfter(answer('largest capacity first', undefined, sites))).toEqual(['capacity']);
    // The country code named by "per country" is a column of the table, not a figure.
    const countries = COUNTRIES.map((c, i) => feature(i, c.name, { count: c.count, population: c.population }, { country: c.name.slice(0, 2).toUpperCase() }));
    expect(await figureAfter(answer(undefined, 'count per country', countries))).toEqual(['count']);
  });

  it('is none when the question asked about no column', async () => {
    const sites = SITES.map((s, i) => feature(i, s.name, { name: s.name, capacity: s.capacity }));
    expect(await figureAfter(answer('nearest first', undefined, sites))).toEqual([]);
  });

  it('follows each name in the labels, from a property or an uploaded attribute', () => {
    const collection = {
      type: 'FeatureCollection' as const,
      features: [
        ...SITES.map((s, i) => ({ ...feature(i, s.name, { capacity: s.capacity }), geometry: { type: 'Point', coordinates: [s.lon, s.lat] } })),
        { ...feature(9, 'France', {}, { count: COUNTRIES[0]!.count }), geometry: { type: 'Polygon', coordinates: [[[0, 44], [6, 44], [6, 50], [0, 50], [0, 44]]] } },
      ],
    };
    const labelled = readResults(collection, { details: true, figure: ['capacity', 'count'] }).features.map(labelText);
    expect(labelled).toEqual([...SITES.map((s) => `${s.name} · ${s.capacity}`), `France · ${COUNTRIES[0]!.count}`]);
    // Without a figure, the name alone.
    expect(readResults(collection, { details: true }).features.map(labelText)).toEqual([...SITES.map((s) => s.name), 'France']);
  });
});

describe('the frame of an answer per country', () => {
  // A mainland and a far-off part, in degrees: the far part is large enough to be framed on its own.
  const country = (members?: number[]) => ({
    type: 'Feature' as const,
    id: 'country:X',
    geometry: { type: 'MultiPolygon', coordinates: [[[[0, 40], [10, 40], [10, 50], [0, 50], [0, 40]]], [[[-60, 0], [-50, 0], [-50, 10], [-60, 10], [-60, 0]]]] },
    properties: { name: 'X' },
    ...(members ? { members_bbox: members } : {}),
  });
  const lonLat = (e: number[]) => {
    const R = 6378137;
    const lon = (x: number) => (x / R) * (180 / Math.PI);
    const lat = (y: number) => (2 * Math.atan(Math.exp(y / R)) - Math.PI / 2) * (180 / Math.PI);
    return [lon(e[0]!), lat(e[1]!), lon(e[2]!), lat(e[3]!)];
  };

  it('is the box of the features it counts, not the whole country', () => {
    const members = [4.8, 45.1, 6.2, 45.9];
    const extent = lonLat(readResults({ type: 'FeatureCollection', features: [country(members)] }, { details: false }).extent);
    extent.forEach((v, i) => expect(v).toBeCloseTo(members[i]!, 6));
    // Its label stands among them: the centre of their box.
    const [f] = readResults({ type: 'FeatureCollection', features: [country(members)] }, { details: true }).features;
    const [x, y] = f!.get('labelAt') as [number, number];
    const [lon, lat] = lonLat([x, y, x, y]);
    expect(lon).toBeCloseTo((members[0]! + members[2]!) / 2, 6);
    expect(lat).toBeGreaterThan(members[1]!);
    expect(lat).toBeLessThan(members[3]!);
  });

  it('is the country\'s own frame without one', () => {
    const extent = lonLat(readResults({ type: 'FeatureCollection', features: [country()] }, { details: false }).extent);
    // Both parts are large: framed whole, from the far part's west to the mainland's east.
    [-60, 0, 10, 50].forEach((v, i) => expect(extent[i]).toBeCloseTo(v, 6));
  });
});
