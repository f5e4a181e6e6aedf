import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ComputeResponse } from '../../../shared/service/compute';
import { extractXml } from '../../support/overpassnl/osm-xml';
import { keyOf, type Element } from '../../support/overpassnl/ql-run';
import { compute, refused, startService, stopService, type Running } from '../local-service/harness';

/**
 * What a place sells or is for ("selling octane 80 fuel", "offering LPG", "shops for hearing
 * aids", "an office for a lawyer"), who operates it with no other subject ("objects operated by
 * X") and figures joined by "and" after a key ("admin level 8 and 9"): each answer is checked against a filter over the elements written here.
 */
const els: Element[] = [];
let id = 1;
const node = (lon: number, lat: number, tags: Record<string, string>) => els.push({ type: 'node', id: id++, tags, coords: [[lon, lat]] });
const ring = (lon: number, lat: number): [number, number][] => [[lon, lat], [lon + 0.001, lat], [lon + 0.001, lat + 0.001], [lon, lat + 0.001], [lon, lat]];

node(9.0, 48.0, { amenity: 'fuel', 'fuel:octane_80': 'yes', 'fuel:lpg': 'yes' });
node(9.001, 48.0, { amenity: 'fuel', 'fuel:octane_80': 'no', 'fuel:octane_92': 'yes' });
node(9.002, 48.0, { amenity: 'fuel' });
node(9.003, 48.0, { amenity: 'fuel', 'fuel:lpg': 'yes' });
node(9.01, 48.0, { shop: 'hearing_aids', name: 'Hörwelt' });
node(9.011, 48.0, { shop: 'optician', name: 'Brille' });
node(9.012, 48.0, { shop: 'hearing_aids' });
node(9.02, 48.0, { office: 'lawyer', name: 'Kanzlei' });
node(9.021, 48.0, { office: 'company' });
node(9.04, 48.01, { highway: 'bus_stop', operator: 'Cotral' });
els.push({ type: 'way', id: id++, tags: { amenity: 'bus_station', operator: 'COTRAL Spa' }, coords: ring(9.041, 48.01) });
node(9.042, 48.01, { highway: 'bus_stop', operator: 'ATAC' });
for (const [n, level] of [[0, '8'], [1, '9'], [2, '10']] as const)
  els.push({ type: 'relation', id: id++, tags: { type: 'boundary', boundary: 'administrative', admin_level: level, name: `Bezirk ${n}` }, coords: ring(9.03 + n * 0.002, 48.0) });

let r: Running;
beforeAll(async () => {
  r = await startService();
  const file = join(r.dataDir, 'offers.osm');
  writeFileSync(file, extractXml(els, 1_000_000));
  await r.service.layers.startImport(file, { name: 'Offers extract' }).done;
});
afterAll(() => stopService(r));

const ids = (res: ComputeResponse) => res.results.features.map((f) => String(f.properties.source_id)).sort();
const where = (test: (t: Record<string, string>, e: Element) => boolean) => els.filter((e) => test(e.tags, e)).map(keyOf).sort();
const ask = async (query: string) => ids(await compute(r, { query, limit: 500 }));

describe('what a place sells or is for', () => {
  it('reads "selling octane 80 fuel" and "offering LPG" as the namespaced key =yes', async () => {
    const octane = where((t) => t['amenity'] === 'fuel' && t['fuel:octane_80'] === 'yes');
    expect(octane.length).toBe(1);
    expect(await ask('gas stations selling octane 80 fuel')).toEqual(octane);
    expect(await ask('fuel stations offering LPG')).toEqual(where((t) => t['amenity'] === 'fuel' && t['fuel:lpg'] === 'yes'));
  });

  it('refuses a thing sold that no layer has a key for', async () => {
    const res = await refused(r, { query: 'gas stations selling octane 100 fuel' });
    expect(JSON.stringify(res.unread)).toMatch(/octane 100/);
  });

  it('reads "shops for hearing aids" and "an office for a lawyer" as a value of the subject\'s key', async () => {
    const aids = where((t) => t['shop'] === 'hearing_aids');
    expect(aids.length).toBe(2);
    expect(await ask('shops for hearing aids')).toEqual(aids);
    expect(await ask('an office for a lawyer')).toEqual(where((t) => t['office'] === 'lawyer'));
  });

  it('reads "objects operated by X" with no other subject as the features whose operator holds X', async () => {
    expect(await ask('objects operated by Cotral')).toEqual(where((t) => (t['operator'] ?? '').toLowerCase().includes('cotral')));
  });

  it('reads "admin level 8 and 9" as either figure', async () => {
    expect(await ask('admin level 8 and 9 relations')).toEqual(where((t, e) => e.type === 'relation' && ['8', '9'].includes(t['admin_level'] ?? '')));
  });
});
