import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultCatalogDir, loadCatalog } from '../../../electron/local-service/catalog/catalog';
import type { KindEntry } from '../../../electron/local-service/catalog/kinds/entry';
import type { ComputeResponse } from '../../../shared/service/compute';
import { exactlyAt, GEOKDBUSH_RADIUS_KM, KM_RADII, METRE_RADII, TURF_RADIUS_M } from '../../support/boundary';
import { compute, computeForm, fileForm, startService, stopService, type Running } from './harness';

/**
 * "within N" is inclusive: a feature exactly N away is in the answer, and out of it once the
 * radius is a little shorter. Each path that decides "within" is asked over HTTP with a feature
 * placed, on one meridian from the equator, where every formulation of the great-circle distance
 * gives exactly N (tests/support/boundary.ts), on the sphere that path measures on.
 */
const LON = 4.5;
// Layer questions measure with turf (metres); the catalog and uploads with geokdbush (km).
const layerEdge = exactlyAt(TURF_RADIUS_M, METRE_RADII, 1e-6);
const pointEdge = exactlyAt(GEOKDBUSH_RADIUS_KM, KM_RADII, 1e-9);
const EDGE = [{ name: 'Edge', latitude: 0, longitude: LON }];

const names = (res: ComputeResponse) => res.results.features.map((f) => f.properties.name);

describe('within N is inclusive at exactly N', () => {
  let r: Running;
  beforeAll(async () => {
    const fixture = JSON.parse(readFileSync(new URL('./fixtures/lighthouses.json', import.meta.url), 'utf8')) as { entry: KindEntry };
    // One lighthouse on the edge of the catalog question, one well inside.
    const columns = {
      ref: ['edge', 'inside'],
      name: ['On the edge', 'Inside'],
      lon: [LON, LON],
      lat: [pointEdge.lat, pointEdge.lat / 2],
      country: ['GA', 'GA'],
      height: [10, 10],
      offshore: [1, 1],
    };
    r = await startService({ catalog: loadCatalog(defaultCatalogDir(), [{ entry: fixture.entry, columns }]) });
    const town = join(r.dataDir, 'town.geojson');
    const point = (name: string, lat: number, tags: Record<string, string>) => ({ type: 'Feature', properties: { name, ...tags }, geometry: { type: 'Point', coordinates: [LON, lat] } });
    writeFileSync(
      town,
      JSON.stringify({
        type: 'FeatureCollection',
        features: [
          point('Cafe on the edge', layerEdge.lat, { amenity: 'cafe' }),
          point('Cafe inside', layerEdge.lat / 2, { amenity: 'cafe' }),
          point('Fountain', 0, { amenity: 'fountain' }),
        ],
      }),
    );
    await r.service.layers.startImport(town).done;
  });
  afterAll(async () => {
    if (r) await stopService(r);
  });

  it('the boundary points are where the test says, independently of the service', () => {
    expect(layerEdge.r).toBeGreaterThan(0);
    expect(pointEdge.r).toBeGreaterThan(0);
    // The meridian arc, in the sphere's own unit.
    expect(TURF_RADIUS_M * ((layerEdge.lat * Math.PI) / 180)).toBeCloseTo(layerEdge.r, 6);
    expect(GEOKDBUSH_RADIUS_KM * ((pointEdge.lat * Math.PI) / 180)).toBeCloseTo(pointEdge.r, 9);
  });

  it('data layers, a request coordinate as the reference', async () => {
    const at = await compute(r, { query: `cafes within ${layerEdge.r} m of Edge`, coordinates: EDGE });
    expect(names(at)).toEqual(['Cafe inside', 'Cafe on the edge']);
    expect(at.results.features[1]!.properties.distance_meters).toBe(layerEdge.r);
    const short = await compute(r, { query: `cafes within ${layerEdge.r - 1} m of Edge`, coordinates: EDGE });
    expect(names(short)).toEqual(['Cafe inside']);
  });

  it('data layers, a layer feature as the reference', async () => {
    const at = await compute(r, { query: `cafes within ${layerEdge.r} m of a fountain` });
    expect(names(at)).toEqual(['Cafe inside', 'Cafe on the edge']);
    const short = await compute(r, { query: `cafes within ${layerEdge.r - 1} m of a fountain` });
    expect(names(short)).toEqual(['Cafe inside']);
  });

  it('the built-in catalog', async () => {
    const at = await compute(r, { query: `lighthouses within ${pointEdge.r} km of Edge`, coordinates: EDGE });
    expect(names(at)).toEqual(['Inside', 'On the edge']);
    expect(at.results.features[1]!.properties.distance_meters).toBe(pointEdge.r * 1000);
    const short = await compute(r, { query: `lighthouses within ${pointEdge.r - 0.001} km of Edge`, coordinates: EDGE });
    expect(names(short)).toEqual(['Inside']);
  });

  it('uploaded sites', async () => {
    const csv = `name,latitude,longitude\nSite on the edge,${pointEdge.lat},${LON}\nSite inside,${pointEdge.lat / 2},${LON}\n`;
    const ask = (km: number) =>
      computeForm(r, fileForm({ query: `which of my sites are within ${km} km of Edge`, coordinates: JSON.stringify(EDGE) }, [{ name: 'sites.csv', text: csv }]));
    expect(names(await ask(pointEdge.r)).sort()).toEqual(['Site inside', 'Site on the edge']);
    expect(names(await ask(pointEdge.r - 0.001))).toEqual(['Site inside']);
  });
});
