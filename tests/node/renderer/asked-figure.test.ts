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
