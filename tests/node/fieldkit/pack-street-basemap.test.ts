import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Polygon, Position } from 'geojson';
import Feature from 'ol/Feature';
import MVT from 'ol/format/MVT';
import type SimpleGeometry from 'ol/geom/SimpleGeometry';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStreetTiles } from '../../../electron/local-service/layers/basemap/street-tiles';
import { asAsyncLayerStore } from '../../../electron/local-service/layers/store/async-layer-store';
import { finished, openSide, packService, type AppSide } from '../../support/pack-fixture';
import { writeTownFiles, type TownFiles } from '../../support/town/files';

let root: string;
let town: TownFiles;
const sides: AppSide[] = [];
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'fl-pack-street-'));
  town = writeTownFiles(join(root, 'files'));
});
afterAll(() => {
  for (const s of sides.splice(0)) s.close();
  rmSync(root, { recursive: true, force: true });
});

const tileOf = ([lon, lat]: Position, z: number): [number, number] => {
  const n = 2 ** z;
  const r = (lat! * Math.PI) / 180;
  return [Math.floor(((lon! + 180) / 360) * n), Math.floor(((1 - Math.log(Math.tan(r) + 1 / Math.cos(r)) / Math.PI) / 2) * n)];
};

/** A tile's features as comparable text: layer, class, name and geometry in tile units, sorted. */
const contents = (data: Uint8Array | null) =>
  new MVT<Feature>({ featureClass: Feature })
    .readFeatures(data!.slice().buffer)
    .map((f) => JSON.stringify([f.get('layer'), f.get('class'), f.get('name') ?? null, (f.getGeometry() as SimpleGeometry).getFlatCoordinates()]))
    .sort();

describe('the street basemap travels in an area pack', () => {
  it('a pack of the town opened on an empty data folder draws the same street tiles there', async () => {
    const src = openSide(join(root, 'source'));
    sides.push(src);
    const layer = await src.layers.startImport(town.pbf).done;
    const [w, s, e, n] = layer.bbox!;
    const path = join(root, 'town.gpkg');
    const h = packService(src);
    const { jobId } = await h.service.create({ area: { bbox: [w - 0.01, s - 0.01, e + 0.01, n + 0.01] }, maxTileZoom: 2 }, path);
    expect((await finished(h, jobId)).state).toBe('done');

    const dst = openSide(join(root, 'laptop-2'));
    sides.push(dst);
    await packService(dst).service.open(path);
    const here = asAsyncLayerStore(src.store);
    const there = asAsyncLayerStore(dst.store);
    const before = createStreetTiles({ store: here, layers: () => here.list() });
    const after = createStreetTiles({ store: there, layers: () => there.list() });
    expect((await there.list()).map((l) => l.format)).toEqual(['osm-pbf']);

    const hall = (town.features.find((f) => f.properties['name'] === 'Rathaus')!.geometry as Polygon).coordinates[0]![0]!;
    for (const z of [13, 16]) {
      const [x, y] = tileOf(hall, z);
      const want = contents(await before.tile(z, x, y));
      expect(want.length).toBeGreaterThan(0);
      expect(contents(await after.tile(z, x, y))).toEqual(want);
    }
  });
});
