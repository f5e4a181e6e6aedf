import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../../../electron/ground/logger';
import { createLocalService, type LocalService } from '../../../electron/local-service/server';
import { ComputeResponseExact, type ComputeResponse } from '../../../shared/service/compute';
import { catalog, databaseFor, KEYS } from '../local-service/harness';
import { writeTownFiles, type TownFiles } from '../../support/town/files';
import { distanceTo, named, pointOf } from './town-questions';

/**
 * A loaded extract is part of the gazetteer: every name of its place features (alt_name split at
 * ";", old_name, official_name, name:*) reads as that place. Expected sets come from the
 * generator's features with turf.
 */
const LOG = createMemoryLogger();
let dir: string;
let town: TownFiles;
let service: LocalService;
let baseUrl: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fieldlens-town-places-'));
  town = writeTownFiles(join(dir, 'files'));
  service = createLocalService({ dataDir: join(dir, 'data'), keys: KEYS, logger: LOG, clock: () => new Date(), catalog: catalog(), database: await databaseFor(join(dir, 'data')) });
  ({ baseUrl } = await service.start());
  await service.layers.startImport(town.pbf, { name: 'Lennbrück OSM' }).done;
});
afterAll(async () => {
  await service?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function post(query: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${baseUrl}/v1/compute`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEYS.bearer}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query, limit: 2000 }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}
async function ask(query: string): Promise<ComputeResponse> {
  const { status, body } = await post(query);
  if (status !== 200) throw new Error(`${query}: ${status} ${JSON.stringify(body).slice(0, 400)} ${LOG.lines.filter((l) => l.includes('"error"')).slice(-1).join('')}`);
  return ComputeResponseExact.parse(body);
}

const pharmacies = () => town.features.filter((f) => f.properties['amenity'] === 'pharmacy');
const names = (r: ComputeResponse) => r.results.features.map((f) => f.properties.name).sort();
const within = (place: string, metres: number) =>
  pharmacies()
    .filter((f) => distanceTo(pointOf(f), named(town.features, place).geometry) <= metres)
    .map((f) => f.properties['name']!)
    .sort();

describe('place names from a loaded extract', () => {
  it('the generator gives its quarters other names (the test reads them from there)', () => {
    const nord = named(town.features, 'Nordviertel').properties;
    expect(nord['alt_name']).toContain(';');
    expect(nord['old_name'] && nord['name:fr']).toBeTruthy();
    expect(named(town.features, 'Südviertel').properties['official_name']).toBeTruthy();
  });

  it('each alt_name of a ";" list, old_name, name:* and official_name reads as the place', async () => {
    const nord = named(town.features, 'Nordviertel').properties;
    const sued = named(town.features, 'Südviertel').properties;
    const cases: [string, string][] = [
      ...nord['alt_name']!.split(';').map((n): [string, string] => [n, 'Nordviertel']),
      [nord['old_name']!, 'Nordviertel'],
      [nord['name:fr']!, 'Nordviertel'],
      [sued['official_name']!, 'Südviertel'],
    ];
    for (const [said, place] of cases) {
      const want = within(place, 300);
      // Both inside and a little outside the quarter, so the reference is the polygon, not a point.
      expect(want.length, place).toBeGreaterThan(0);
      expect(names(await ask(`pharmacies within 300 m of ${said}`)), said).toEqual(want);
    }
  });

  it('the nearest to an alternative name ranks by the distance to that place', async () => {
    const res = await ask('the 2 nearest pharmacies to Oberstadt');
    const want = pharmacies()
      .map((f) => ({ name: f.properties['name']!, d: distanceTo(pointOf(f), named(town.features, 'Nordviertel').geometry) }))
      .sort((a, b) => a.d - b.d)
      .slice(0, 2);
    expect(res.results.features.map((f) => f.properties.name)).toEqual(want.map((w) => w.name));
  });

  it('a place no layer or gazetteer knows stays a 422 naming it', async () => {
    const { status, body } = await post('pharmacies within 300 m of Unterstadtheim');
    expect(status).toBe(422);
    expect(body['code']).toBe('unread_question');
    expect(String(body['detail'])).toContain('Unterstadtheim');
  });
});
