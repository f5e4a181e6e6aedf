import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../../../electron/ground/logger';
import { createLocalService, type LocalService } from '../../../electron/local-service/server';
import { ComputeResponseExact, type ComputeResponse } from '../../../shared/service/compute';
import { catalog, databaseFor, KEYS } from '../local-service/harness';
import { writeTownFiles, type TownFiles } from '../../support/town/files';

/**
 * The town's OSM file converted by GDAL's OSM driver (`ogr2ogr -f GPKG`), which packs most tags
 * into `other_tags`, answers the same questions as the PBF made from the same file: the same
 * features by name and distance, each with the tags the generator gave it.
 */
const hasOgr = (() => {
  try {
    execFileSync('ogr2ogr', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();
if (!hasOgr) console.warn('ogr-osm.test.ts skipped: ogr2ogr (GDAL) is not installed');

const NOW = new Date(2026, 0, 2, 12, 45);
let dir: string;
let town: TownFiles;
const services: LocalService[] = [];
let pbfUrl: string;
let gpkgUrl: string;
let shpUrl: string;

async function start(name: string, file: string): Promise<string> {
  const dataDir = join(dir, `data-${name}`);
  const service = createLocalService({ dataDir, keys: KEYS, logger: createMemoryLogger(), clock: () => NOW, catalog: catalog(), database: await databaseFor(dataDir) });
  services.push(service);
  const { baseUrl } = await service.start();
  await service.layers.startImport(file, { name: 'Lennbrück OSM' }).done;
  return baseUrl;
}

beforeAll(async () => {
  if (!hasOgr) return;
  dir = mkdtempSync(join(tmpdir(), 'fieldlens-ogr-osm-'));
  town = writeTownFiles(join(dir, 'files'));
  const gpkg = join(dir, 'files', 'town-ogr.gpkg');
  execFileSync('ogr2ogr', ['-f', 'GPKG', gpkg, town.osm], { stdio: ['ignore', 'ignore', 'pipe'] });
  // A Shapefile holds one geometry type: the points layer of the same conversion.
  const shpDir = join(dir, 'files', 'town-ogr-shp');
  execFileSync('ogr2ogr', ['-f', 'ESRI Shapefile', shpDir, town.osm, 'points'], { stdio: ['ignore', 'ignore', 'pipe'] });
  pbfUrl = await start('pbf', town.pbf);
  gpkgUrl = await start('gpkg', gpkg);
  shpUrl = await start('shp', join(shpDir, 'points.shp'));
});
afterAll(async () => {
  for (const s of services) await s.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function ask(baseUrl: string, query: string): Promise<ComputeResponse> {
  const res = await fetch(`${baseUrl}/v1/compute`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEYS.bearer}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query, limit: 2000 }),
  });
  const body = await res.json();
  if (res.status !== 200) throw new Error(`${query}: ${res.status} ${JSON.stringify(body).slice(0, 400)}`);
  return ComputeResponseExact.parse(body);
}

// Names and distances: geometry types may differ where GDAL's own rules do (its osmconf.ini
// writes a closed power=substation way as a line, the PBF reader as an area).
const answer = (r: ComputeResponse) => r.results.features.map((f) => `${f.properties.name} (${Math.round(f.properties.distance_meters)} m)`).sort();

describe.skipIf(!hasOgr)('an OSM extract converted by ogr2ogr', () => {
  it('packed tags are read as tags: same answers as the PBF', async () => {
    for (const q of [
      'pharmacies',
      'pharmacies open now',
      'wheelchair accessible pharmacies',
      'pharmacies operated by Apotheken AG',
      'pharmacies within 500 m of Lennbrück Hauptbahnhof',
      'pharmacies in Nordviertel',
      'supermarkets',
      'parking with capacity over 100',
      'Starbucks',
      'fire stations',
      'power substations',
    ]) {
      const [pbf, gpkg] = await Promise.all([ask(pbfUrl, q), ask(gpkgUrl, q)]);
      expect(pbf.results.numberMatched, q).toBeGreaterThan(0);
      expect(answer(gpkg), q).toEqual(answer(pbf));
    }
  });

  it('the points written as a Shapefile answer the same about point features', async () => {
    for (const q of ['pharmacies', 'pharmacies open now', 'wheelchair accessible pharmacies', 'pharmacies within 500 m of Lennbrück Hauptbahnhof']) {
      const [pbf, shp] = await Promise.all([ask(pbfUrl, q), ask(shpUrl, q)]);
      const points = pbf.results.features.filter((f) => f.geometry.type === 'Point');
      expect(points.length, q).toBeGreaterThan(0);
      expect(answer(shp), q).toEqual(answer({ ...pbf, results: { ...pbf.results, features: points } }));
    }
  });

  it('each feature carries the tags the generator gave it, none left packed', async () => {
    const r = await ask(gpkgUrl, 'pharmacies');
    for (const f of r.results.features) {
      const attrs = f.properties.attributes as Record<string, unknown>;
      const gen = town.features.find((x) => x.properties['name'] === f.properties.name)!;
      expect(attrs, f.properties.name).toMatchObject(gen.properties);
      expect(attrs['other_tags']).toBeUndefined();
    }
  });
});
