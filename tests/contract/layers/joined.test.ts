import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ComputeResponse } from '../../../shared/service/compute';
import { extractXml } from '../../support/overpassnl/osm-xml';
import { keyOf, type Element } from '../../support/overpassnl/ql-run';
import { compute, startService, stopService, type Running } from '../local-service/harness';

/** Words run together as a value of the head noun's key ("Do-It-Yourself stores"), checked against a filter over the elements written here. */
const els: Element[] = [];
let id = 1;
const node = (lon: number, lat: number, tags: Record<string, string>) => els.push({ type: 'node', id: id++, tags, coords: [[lon, lat]] });
node(9.0, 48.0, { shop: 'doityourself', name: 'Baumarkt' });
node(9.001, 48.0, { shop: 'doityourself' });
node(9.002, 48.0, { shop: 'hardware' });
node(9.003, 48.0, { shop: 'ice_cream' });
node(9.004, 48.0, { amenity: 'ice_cream' });
node(9.005, 48.0, { shop: 'clothes', name: 'coolcat' });

let r: Running;
beforeAll(async () => {
  r = await startService();
  const file = join(r.dataDir, 'joined.osm');
  writeFileSync(file, extractXml(els, 1_000_000));
  await r.service.layers.startImport(file, { name: 'Joined' }).done;
});
afterAll(() => stopService(r));

const ids = (res: ComputeResponse) => res.results.features.map((f) => String(f.properties.source_id)).sort();
const where = (test: (t: Record<string, string>) => boolean) => els.filter((e) => test(e.tags)).map(keyOf).sort();
const ask = async (query: string) => ids(await compute(r, { query, limit: 500 }));

describe('words run together as a value', () => {
  it('reads "Do-It-Yourself-stores" and "do it yourself shops" as shop=doityourself', async () => {
    const diy = where((t) => t['shop'] === 'doityourself');
    expect(diy.length).toBe(2);
    expect(await ask('Do-It-Yourself-stores')).toEqual(diy);
    expect(await ask('do it yourself shops')).toEqual(diy);
  });

  it('takes no name for a value: "cool cat store" is not name=coolcat', async () => {
    const res = await compute(r, { query: 'cool cat store', limit: 500 }).catch((e: Error) => e);
    const text = res instanceof Error ? res.message : JSON.stringify(res.warnings);
    expect(text).not.toContain('name=coolcat');
  });
});
