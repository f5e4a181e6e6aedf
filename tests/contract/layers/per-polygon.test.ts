import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as turf from '@turf/turf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../../../electron/ground/logger';
import { createLocalService, type LocalService } from '../../../electron/local-service/server';
import { ComputeResponseExact, type ComputeResponse } from '../../../shared/service/compute';
import { catalog, databaseFor, KEYS } from '../local-service/harness';
import { airports, apLat, apLon } from '../local-service/raw';

/**
 * Counts per polygon of a layer when the subject is not a layer: a built-in kind and an uploaded
 * file, each counted in three zones and checked against turf over the raw open data and the rows sent.
 */
let dir: string;
let service: LocalService;
const logger = createMemoryLogger();
let baseUrl: string;

// Three boxes over France and its neighbours (lon/lat), and one far away that should count nothing.
const BOXES: Record<string, [number, number, number, number]> = {
  North: [0, 48, 6, 51],
  South: [-1, 42.5, 6, 46],
  Alps: [6, 45, 11, 48],
  Sea: [-40, 30, -35, 35],
};
const zones = Object.entries(BOXES).map(([name, box]) => turf.bboxPolygon(box, { properties: { name } }));

// Kind "airports": the medium and large airports of the open data.
const kindAirports = airports.filter((a) => a.type === 'large_airport' || a.type === 'medium_airport');

// Points at fixed steps over western Europe, some inside no zone.
const sites = Array.from({ length: 40 }, (_, i) => ({ name: `Site ${i + 1}`, lon: -3 + (i % 8) * 1.9, lat: 41.5 + Math.floor(i / 8) * 2.1 }));
const csv = `name,lat,lon\n${sites.map((s) => `${s.name},${s.lat},${s.lon}`).join('\n')}\n`;

/** "name:count" for every zone, from a point list: the expected answer. */
function countsIn(points: [number, number][]): string[] {
  return zones.map((z) => `${z.properties.name}:${points.filter((p) => turf.booleanPointInPolygon(p, z)).length}`).sort();
}
const got = (r: ComputeResponse) => r.results.features.map((f) => `${f.properties.name}:${(f.properties.attributes as { count: number }).count}`).sort();

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fieldlens-per-polygon-'));
  const file = join(dir, 'zones.geojson');
  writeFileSync(file, JSON.stringify({ type: 'FeatureCollection', features: zones }));
  service = createLocalService({ dataDir: join(dir, 'data'), keys: KEYS, logger, clock: () => new Date(), catalog: catalog(), database: await databaseFor(join(dir, 'data')) });
  ({ baseUrl } = await service.start());
  await service.layers.startImport(file).done;
});
afterAll(async () => {
  await service?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function post(body: string | FormData, headers: Record<string, string> = {}): Promise<ComputeResponse> {
  const res = await fetch(`${baseUrl}/v1/compute`, { method: 'POST', headers: { authorization: `Bearer ${KEYS.bearer}`, ...headers }, body });
  const json = await res.json();
  if (res.status !== 200) throw new Error(`${res.status} ${JSON.stringify(json)} ${logger.lines.filter((l) => l.includes('"error"')).join('\n')}`);
  return ComputeResponseExact.parse(json);
}

describe('counts per polygon of a layer, for subjects that are not layers', () => {
  it('a built-in kind: airports per zone, each zone counted and the busiest first', async () => {
    const want = countsIn(kindAirports.map((a) => [apLon(a), apLat(a)]));
    // The zones must tell a wrong count from a right one: several hold airports, one holds none.
    expect(want.filter((w) => !w.endsWith(':0')).length).toBeGreaterThanOrEqual(3);
    const r = await post(JSON.stringify({ query: 'airports per zone', limit: 100 }), { 'content-type': 'application/json' });
    expect(got(r)).toEqual(want);
    const counts = r.results.features.map((f) => (f.properties.attributes as { count: number }).count);
    expect(counts).toEqual([...counts].sort((a, b) => b - a));
  });

  it('an uploaded file: my sites per zone', async () => {
    const want = countsIn(sites.map((s) => [s.lon, s.lat]));
    expect(want.filter((w) => !w.endsWith(':0')).length).toBeGreaterThanOrEqual(3);
    const form = new FormData();
    form.append('query', 'my sites per zone');
    form.append('limit', '100');
    form.append('files', new Blob([csv]), 'sites.csv');
    expect(got(await post(form))).toEqual(want);
  });
});

describe('a follow-up on counts per polygon', () => {
  const json = { 'content-type': 'application/json' };
  const inNorth = (p: [number, number]) => turf.booleanPointInPolygon(p, zones.find((z) => z.properties.name === 'North')!);

  it('narrows what was counted, not the built-in cities: "those in North" after airports per zone', async () => {
    const first = await post(JSON.stringify({ query: 'airports per zone' }), json);
    const r = await post(JSON.stringify({ query: 'those in North', search_id: first.id }), json);
    expect(got(r)).toEqual(countsIn(kindAirports.map((a): [number, number] => [apLon(a), apLat(a)]).filter(inNorth)));
    expect(r.answer.content).toMatch(/counted per zone \(4 polygons\)/);
  });

  it('keeps the uploaded file: "those in North" after my sites per zone', async () => {
    const form = new FormData();
    form.append('query', 'my sites per zone');
    form.append('files', new Blob([csv]), 'sites.csv');
    const first = await post(form);
    const r = await post(JSON.stringify({ query: 'those in North', search_id: first.id }), json);
    const want = countsIn(sites.map((s): [number, number] => [s.lon, s.lat]).filter(inNorth));
    expect(want.some((w) => w.startsWith('North:') && !w.endsWith(':0'))).toBe(true);
    expect(got(r)).toEqual(want);
  });
});
