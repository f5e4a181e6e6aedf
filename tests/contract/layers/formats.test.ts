import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpeningHours from 'opening_hours';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../../../electron/ground/logger';
import { createLocalService } from '../../../electron/local-service/server';
import { ComputeResponseExact, type ComputeResponse } from '../../../shared/service/compute';
import { writeTownFiles, type TownFiles } from '../../support/town/files';
import { catalog, databaseFor, KEYS } from '../local-service/harness';
import { inPolygon, named, nearestFirst, pointOf } from './town-questions';

/**
 * The same questions over the town imported from each file format give the same answer, and
 * that answer is the one turf gives on the generator's features. Each format is served alone.
 */
let dir: string;
let town: TownFiles;
const NOW = new Date(2026, 0, 2, 12, 45);

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'fieldlens-town-formats-q-'));
  town = writeTownFiles(join(dir, 'files'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function askAll(file: string, questions: string[]): Promise<ComputeResponse[]> {
  const dataDir = join(dir, `data-${file.split('.').slice(1).join('-')}`);
  const service = createLocalService({ dataDir, keys: KEYS, logger: createMemoryLogger(), clock: () => NOW, catalog: catalog(), database: await databaseFor(dataDir) });
  const { baseUrl } = await service.start();
  try {
    await service.layers.startImport(file).done;
    const out: ComputeResponse[] = [];
    for (const query of questions) {
      const res = await fetch(`${baseUrl}/v1/compute`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEYS.bearer}`, 'content-type': 'application/json' },
        body: JSON.stringify({ query, limit: 2000 }),
      });
      expect(res.status, query).toBe(200);
      out.push(ComputeResponseExact.parse(await res.json()));
    }
    return out;
  } finally {
    await service.close();
  }
}

const ranked = (r: ComputeResponse) => r.results.features.map((f) => `${f.properties.name} ${Math.round(f.properties.distance_meters)}`);
const sortedNames = (r: ComputeResponse) => r.results.features.map((f) => f.properties.name).sort();

// Questions every format can answer: points and their tags (a Shapefile holds points only and
// cuts column names to 10 characters, so hours are asked of the formats that keep them).
const COMMON = ['pharmacies within 800 m of Lennbrück Hauptbahnhof', 'wheelchair accessible pharmacies', 'the 2 nearest pharmacies to Starbucks'];
const WITH_SHAPES = [...COMMON, 'pharmacies open on Sunday', 'pharmacies in Nordviertel', 'pharmacies within 300 m of the Lenne'];

describe('the same answer from every format', () => {
  let expected: string[][];
  beforeAll(() => {
    const ph = town.features.filter((f) => f.properties['amenity'] === 'pharmacy');
    const nord = named(town.features, 'Nordviertel').geometry;
    const sunday = new Date(2026, 0, 4);
    const fmt = (xs: { name: string; d: number }[]) => xs.map((x) => `${x.name} ${Math.round(x.d)}`);
    expected = [
      fmt(nearestFirst(ph, named(town.features, 'Lennbrück Hauptbahnhof').geometry).filter((x) => x.d <= 800)),
      ph.filter((f) => f.properties['wheelchair'] === 'yes').map((f) => f.properties['name']!).sort(),
      fmt(nearestFirst(ph, named(town.features, 'Starbucks').geometry).slice(0, 2)),
      ph.filter((f) => new OpeningHours(f.properties['opening_hours']!, null).getOpenIntervals(sunday, new Date(2026, 0, 5)).length > 0).map((f) => f.properties['name']!).sort(),
      ph.filter((f) => inPolygon(pointOf(f), nord)).map((f) => f.properties['name']!).sort(),
      fmt(nearestFirst(ph, named(town.features, 'Lenne').geometry).filter((x) => x.d <= 300)),
    ];
  });
  const answers = (rs: ComputeResponse[]) => rs.map((r, k) => ([1, 3, 4].includes(k) ? sortedNames(r) : ranked(r)));

  for (const key of ['osm', 'pbf', 'gpkg', 'fgb', 'geojson', 'kml'] as const) {
    it(`${key}: ${WITH_SHAPES.length} questions`, async () => {
      const got = answers(await askAll(town[key], WITH_SHAPES));
      expect(got.every((a) => a.length > 0)).toBe(true);
      expect(got).toEqual(expected);
    });
  }

  it(`shp (points only): ${COMMON.length} questions`, async () => {
    expect(answers(await askAll(town.shp, COMMON))).toEqual(expected.slice(0, COMMON.length));
  });

  // GPX holds the town's points only, as waypoints with name, amenity, shop and opening hours
  // (tests/support/town/files.ts): distances are measured to the points of each name.
  it('gpx (waypoints): 2 questions', async () => {
    const points = town.features.filter((f) => f.geometry.type === 'Point');
    const ph = points.filter((f) => f.properties['amenity'] === 'pharmacy');
    const fmt = (xs: { name: string; d: number }[]) => xs.map((x) => `${x.name} ${Math.round(x.d)}`);
    const want = [
      fmt(nearestFirst(ph, named(points, 'Lennbrück Hauptbahnhof').geometry).filter((x) => x.d <= 800)),
      fmt(nearestFirst(ph, named(points, 'Starbucks').geometry).slice(0, 2)),
    ];
    const got = (await askAll(town.gpx, [COMMON[0]!, COMMON[2]!])).map(ranked);
    expect(got.every((a) => a.length > 0)).toBe(true);
    expect(got).toEqual(want);
  });
});
