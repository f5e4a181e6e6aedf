import { booleanPointInPolygon, point, polygon } from '@turf/turf';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ComputeResponse } from '../../../shared/service/compute';
import { extractXml } from '../../support/overpassnl/osm-xml';
import { keyOf, type Element } from '../../support/overpassnl/ql-run';
import { compute, refused, startService, stopService, type Running } from '../local-service/harness';

/**
 * "in admin level 6 areas with the name Essen": two boundaries share a name and differ in their
 * admin level; the answer is what lies in the one of that level, checked with turf against the
 * elements written here.
 */
const els: Element[] = [];
let id = 1;
const ring = (lon: number, lat: number, size: number): [number, number][] => [[lon, lat], [lon + size, lat], [lon + size, lat + size], [lon, lat + size], [lon, lat]];
const boundary = (level: string, coords: [number, number][]) =>
  els.push({ type: 'relation', id: id++, tags: { type: 'boundary', boundary: 'administrative', admin_level: level, name: 'Essenheim' }, coords });
// The town (level 8) inside its district (level 6) of the same name.
boundary('6', ring(9.0, 48.0, 0.1));
boundary('8', ring(9.02, 48.02, 0.02));
for (const [lon, lat] of [[9.03, 48.03], [9.05, 48.05], [9.09, 48.09], [9.2, 48.2]] as const)
  els.push({ type: 'node', id: id++, tags: { amenity: 'recycling' }, coords: [[lon, lat]] });

let r: Running;
beforeAll(async () => {
  r = await startService();
  const file = join(r.dataDir, 'keyed.osm');
  writeFileSync(file, extractXml(els, 1_000_000));
  await r.service.layers.startImport(file, { name: 'Keyed areas' }).done;
});
afterAll(() => stopService(r));

const ids = (res: ComputeResponse) => res.results.features.map((f) => String(f.properties.source_id)).sort();
const ask = async (query: string) => ids(await compute(r, { query, limit: 500 }));
const insideLevel = (level: string) => {
  const area = polygon([els.find((e) => e.tags['admin_level'] === level)!.coords]);
  return els.filter((e) => e.tags['amenity'] === 'recycling' && booleanPointInPolygon(point(e.coords[0]!), area)).map(keyOf).sort();
};

describe('an area by its name and a key said in words', () => {
  it('reads "in admin level N areas with the name X" as inside the polygon of that level', async () => {
    expect(insideLevel('6').length).toBeGreaterThan(insideLevel('8').length);
    expect(await ask('recycling in admin level 6 areas with the name Essenheim')).toEqual(insideLevel('6'));
    expect(await ask('recycling in the admin level 8 area named Essenheim')).toEqual(insideLevel('8'));
  });

  it('refuses a level no polygon of that name has', async () => {
    const res = await refused(r, { query: 'recycling in admin level 4 areas with the name Essenheim' });
    expect(JSON.stringify(res.unread)).toMatch(/admin_level=4/);
  });
});
