import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLayerImport } from '../../../electron/local-service/layers/import-job';
import type { LayerStore, StoredFeature } from '../../../electron/local-service/layers/store/layer-store';
import { bothLayerBackends } from '../../support/layer-backends';

/**
 * Latitude ±90 and longitude ±180 in every layer format: points exactly there are imported where
 * they are, and a file with one point a step past them is refused, on both stores.
 */
const EDGES: [lon: number, lat: number][] = [
  [0, 90],
  [0, -90],
  [180, 0],
  [-180, 0],
  [-180, -90],
];
const PAST: [lon: number, lat: number][] = [
  [0, 90.000001],
  [0, -90.000001],
  [180.000001, 0],
  [-180.000001, 0],
];

const { place, backends } = bothLayerBackends('fieldlens-layer-range-');

const geojson = (pts: [number, number][]) =>
  JSON.stringify({ type: 'FeatureCollection', features: pts.map((c, i) => ({ type: 'Feature', properties: { name: `P${i}` }, geometry: { type: 'Point', coordinates: c } })) });
const kml = (pts: [number, number][]) =>
  `<?xml version="1.0"?><kml xmlns="http://www.opengis.net/kml/2.2"><Document>${pts.map(([x, y], i) => `<Placemark><name>P${i}</name><Point><coordinates>${x},${y}</coordinates></Point></Placemark>`).join('')}</Document></kml>`;
const gpx = (pts: [number, number][]) =>
  `<?xml version="1.0"?><gpx version="1.1" creator="t" xmlns="http://www.topografix.com/GPX/1/1">${pts.map(([x, y], i) => `<wpt lat="${y}" lon="${x}"><name>P${i}</name></wpt>`).join('')}</gpx>`;
const osm = (pts: [number, number][]) =>
  `<?xml version="1.0"?><osm version="0.6">${pts.map(([x, y], i) => `<node id="${i + 1}" lat="${y}" lon="${x}"><tag k="name" v="P${i}"/></node>`).join('')}</osm>`;

/** Files of each format holding `pts`: text formats written here, the others by GDAL from the GeoJSON. */
function files(name: string, pts: [number, number][]): Record<string, string> {
  const d = join(place.dir, name);
  mkdirSync(d, { recursive: true });
  const f = (n: string) => join(d, n);
  writeFileSync(f('p.geojson'), geojson(pts));
  writeFileSync(f('p.kml'), kml(pts));
  writeFileSync(f('p.gpx'), gpx(pts));
  writeFileSync(f('p.osm'), osm(pts));
  execFileSync('ogr2ogr', ['-f', 'GPKG', f('p.gpkg'), f('p.geojson'), '-nln', 'points']);
  execFileSync('ogr2ogr', ['-f', 'ESRI Shapefile', f('p.shp'), f('p.geojson'), '-nln', 'p']);
  execFileSync('ogr2ogr', ['-f', 'FlatGeobuf', f('p.fgb'), f('p.geojson')]);
  return { geojson: f('p.geojson'), kml: f('p.kml'), gpx: f('p.gpx'), osm: f('p.osm'), gpkg: f('p.gpkg'), shp: f('p.shp'), fgb: f('p.fgb') };
}

const FORMATS = ['geojson', 'kml', 'gpx', 'osm', 'gpkg', 'shp', 'fgb'] as const;

describe.each(backends)('layer coordinates at the ends of their range on $name', ({ name, open }) => {
  let store: LayerStore;
  let edges: Record<string, string>;
  let past: Record<string, string>[];
  beforeAll(async () => {
    store = await open();
    const tag = name.replace(/\W/g, '');
    edges = files(`${tag}-edges`, EDGES);
    past = PAST.map((p, i) => files(`${tag}-past-${i}`, [[1, 1], p]));
  });
  afterAll(() => store?.close());

  it.each(FORMATS)('%s: exactly ±90 / ±180 imported as they are', async (format) => {
    const layer = await startLayerImport({ store, file: edges[format]!, tempDir: join(place.dir, 'tmp') }).done;
    const got: StoredFeature[] = [];
    for await (const page of store.scan(layer.id, {})) got.push(...page);
    const byName = new Map(got.map((f) => [f.tags['name'], f.geometry]));
    expect(EDGES.map((_, i) => byName.get(`P${i}`))).toEqual(EDGES.map((c) => ({ type: 'Point', coordinates: c })));
  });

  it.each(FORMATS)('%s: a point a step past them refuses the file', async (format) => {
    for (const [k, p] of PAST.entries()) {
      const job = startLayerImport({ store, file: past[k]![format]!, tempDir: join(place.dir, 'tmp') });
      await expect(job.done, `${format} ${p.join(', ')}`).rejects.toThrow(/outside longitude\/latitude|no valid lat\/lon|projected CRS|reproject/i);
    }
  });
});
