import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ComputeResponse } from '../../../shared/service/compute';
import { extractXml } from '../../support/overpassnl/osm-xml';
import { keyOf, type Element } from '../../support/overpassnl/ql-run';
import { compute, startService, stopService, type Running } from '../local-service/harness';

/**
 * "with hgv" where some features say hgv=no, and "not schools" or "not a platform" after a subject
 * of names alone ("places called X", a name in quotes): each answer is checked against a filter
 * over the elements written here.
 */
const els: Element[] = [];
let id = 1;
const node = (lon: number, lat: number, tags: Record<string, string>) => els.push({ type: 'node', id: id++, tags, coords: [[lon, lat]] });
const ring = (lon: number, lat: number): [number, number][] => [[lon, lat], [lon + 0.001, lat], [lon + 0.001, lat + 0.001], [lon, lat + 0.001], [lon, lat]];

node(9.0, 48.0, { amenity: 'parking', hgv: 'yes' });
node(9.001, 48.0, { amenity: 'parking', hgv: 'designated' });
node(9.002, 48.0, { amenity: 'parking', hgv: 'no' });
node(9.003, 48.0, { amenity: 'parking' });
node(9.004, 48.0, { landuse: 'orchard', conservation: 'yes' });
node(9.005, 48.0, { landuse: 'orchard', conservation: 'no' });
els.push({ type: 'way', id: id++, tags: { landuse: 'residential', name: 'Privé' }, coords: ring(9.01, 48.01) });
els.push({ type: 'way', id: id++, tags: { landuse: 'school', name: 'Privé' }, coords: ring(9.012, 48.01) });
node(9.014, 48.01, { amenity: 'bench', name: 'Privé' });
node(9.015, 48.01, { landuse: 'farmland', name: 'Public' });
els.push({ type: 'way', id: id++, tags: { highway: 'residential', name: 'Lindenufer' }, coords: [[9.02, 48.02], [9.021, 48.02]] });
els.push({ type: 'way', id: id++, tags: { highway: 'platform', name: 'Lindenufer' }, coords: [[9.02, 48.021], [9.021, 48.021]] });
els.push({ type: 'relation', id: id++, tags: { type: 'multipolygon', name: 'Lindenufer', landuse: 'grass' }, coords: ring(9.022, 48.02) });

let r: Running;
beforeAll(async () => {
  r = await startService();
  const file = join(r.dataDir, 'negation.osm');
  writeFileSync(file, extractXml(els, 1_000_000));
  await r.service.layers.startImport(file, { name: 'Negation extract' }).done;
});
afterAll(() => stopService(r));

const ids = (res: ComputeResponse) => res.results.features.map((f) => String(f.properties.source_id)).sort();
const where = (test: (t: Record<string, string>, e: Element) => boolean) => els.filter((e) => test(e.tags, e)).map(keyOf).sort();
const ask = async (query: string) => ids(await compute(r, { query, limit: 500 }));

describe('a key that says no, a negation among the features of its key', () => {
  it('reads "with hgv" as hgv there and not "no"', async () => {
    const expected = where((t) => t['amenity'] === 'parking' && 'hgv' in t && t['hgv'] !== 'no');
    expect(expected.length).toBe(2);
    expect(await ask('parking with hgv')).toEqual(expected);
    expect(await ask('orchards with conservation')).toEqual(where((t) => t['landuse'] === 'orchard' && 'conservation' in t && t['conservation'] !== 'no'));
  });

  it('reads "places called X that are not schools" as features of the key, other than schools', async () => {
    const expected = where((t) => t['name'] === 'Privé' && 'landuse' in t && t['landuse'] !== 'school');
    expect(expected.length).toBe(1);
    expect(await ask('places called Privé that are not schools')).toEqual(expected);
  });

  it('reads "X which is not a platform" after a name as another value of the key', async () => {
    const expected = where((t) => t['name'] === 'Lindenufer' && 'highway' in t && t['highway'] !== 'platform');
    expect(expected.length).toBe(1);
    expect(await ask('"Lindenufer" which is not a platform')).toEqual(expected);
  });

  it('keeps the plain negation after a subject of its own (an element type)', async () => {
    expect(await ask('ways that are not platforms')).toEqual(where((t, e) => e.type === 'way' && t['highway'] !== 'platform'));
  });
});
