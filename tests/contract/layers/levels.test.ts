import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ComputeResponse } from '../../../shared/service/compute';
import { extractXml } from '../../support/overpassnl/osm-xml';
import { keyOf, type Element } from '../../support/overpassnl/ql-run';
import { compute, startService, stopService, type Running } from '../local-service/harness';

/** "Level 6 administrative boundaries": admin_level said turned round, checked against a filter over the elements written here. */
const els: Element[] = [];
let id = 1;
const ring = (lon: number, lat: number): [number, number][] => [[lon, lat], [lon + 0.01, lat], [lon + 0.01, lat + 0.01], [lon, lat + 0.01], [lon, lat]];
for (const [n, level] of [[0, '6'], [1, '6'], [2, '8'], [3, '4']] as const)
  els.push({ type: 'relation', id: id++, tags: { type: 'boundary', boundary: 'administrative', admin_level: level, name: `Gebiet ${n}` }, coords: ring(9 + n * 0.02, 48) });
els.push({ type: 'relation', id: id++, tags: { type: 'multipolygon', leisure: 'park', admin_level: '6', name: 'Stray' }, coords: ring(9.1, 48) });

let r: Running;
beforeAll(async () => {
  r = await startService();
  const file = join(r.dataDir, 'levels.osm');
  writeFileSync(file, extractXml(els, 1_000_000));
  await r.service.layers.startImport(file, { name: 'Levels' }).done;
});
afterAll(() => stopService(r));

const ids = (res: ComputeResponse) => res.results.features.map((f) => String(f.properties.source_id)).sort();
const where = (test: (t: Record<string, string>) => boolean) => els.filter((e) => test(e.tags)).map(keyOf).sort();

describe('a key said turned round', () => {
  it('reads "level 6 administrative boundaries" as administrative boundaries with admin_level=6', async () => {
    const expected = where((t) => t['boundary'] === 'administrative' && t['admin_level'] === '6');
    expect(expected.length).toBe(2);
    expect(ids(await compute(r, { query: 'level 6 administrative boundaries', limit: 500 }))).toEqual(expected);
    expect(ids(await compute(r, { query: 'Level 8 administrative boundaries', limit: 500 }))).toEqual(where((t) => t['boundary'] === 'administrative' && t['admin_level'] === '8'));
  });
});
