import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as turf from '@turf/turf';
import Database from 'better-sqlite3';
import type { Position } from 'geojson';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLayerImport } from '../../../electron/local-service/layers/import-job';
import type { EmbeddedLayerStore, LayerInfo } from '../../../electron/local-service/layers/store/layer-store';
import { openSqliteLayerStore } from '../../../electron/local-service/layers/store/sqlite-layer-store';
import { writeTownFiles, type TownFiles } from '../../support/town/files';
import { distanceTo } from '../../support/town/distance';
import { at, type TownFeature } from '../../support/town/town';

let dir: string;
let town: TownFiles;
let store: EmbeddedLayerStore;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'fieldlens-town-'));
  town = writeTownFiles(join(dir, 'files'));
  store = openSqliteLayerStore({ dataDir: join(dir, 'data') });
});
afterAll(() => {
  store?.close();
  rmSync(dir, { recursive: true, force: true });
});

const importFile = (file: string) => startLayerImport({ store, file, tempDir: join(dir, 'tmp') }).done;
const byName = (fs: TownFeature[], name: string) => fs.find((f) => f.properties['name'] === name)!;
const names = (xs: { tags: Record<string, unknown> }[]) => xs.map((x) => x.tags['name']);
const typeCounts = (fs: TownFeature[]) => fs.reduce<Record<string, number>>((m, f) => ((m[f.geometry.type] = (m[f.geometry.type] ?? 0) + 1), m), {});

/**
 * The answer lists the expected features nearest first, each at its expected distance. Features
 * at the same distance (a point and the polygon around it, both 0 m) may come in either order.
 */
function expectNearestFirst(got: { tags: Record<string, unknown>; distanceMeters: number }[], want: { name: unknown; d: number }[]) {
  expect(got).toHaveLength(want.length);
  const d = new Map(want.map((w) => [w.name, w.d]));
  got.forEach((g, i) => {
    expect(d.has(g.tags['name']), String(g.tags['name'])).toBe(true);
    expect(g.distanceMeters).toBeCloseTo(d.get(g.tags['name'])!, 3);
    expect(g.distanceMeters).toBeCloseTo(want[i]!.d, 3);
  });
}

interface FormatCase {
  key: keyof Omit<TownFiles, 'dir' | 'features'>;
  format: LayerInfo['format'];
  /** Which of the generator's features the file holds. */
  holds: (f: TownFeature) => boolean;
  /** Whether every tag survives under its own name (Shapefile truncates names, GPX keeps few). */
  fullTags: boolean;
}

const all = () => true;
const pointsOnly = (f: TownFeature) => f.geometry.type === 'Point';
const CASES: FormatCase[] = [
  { key: 'osm', format: 'osm-xml', holds: all, fullTags: true },
  { key: 'pbf', format: 'osm-pbf', holds: all, fullTags: true },
  { key: 'geojson', format: 'geojson', holds: all, fullTags: true },
  { key: 'gpkg', format: 'gpkg', holds: all, fullTags: true },
  { key: 'fgb', format: 'flatgeobuf', holds: all, fullTags: true },
  { key: 'kml', format: 'kml', holds: all, fullTags: false },
  { key: 'shp', format: 'shapefile', holds: pointsOnly, fullTags: false },
  { key: 'gpx', format: 'gpx', holds: pointsOnly, fullTags: false },
];

describe.each(CASES)('the generated town as $format', ({ key, format, holds, fullTags }) => {
  let layer: LayerInfo;
  let expected: TownFeature[];
  beforeAll(async () => {
    layer = await importFile(town[key]);
    expected = town.features.filter(holds);
  });

  it('imports every feature with its geometry type, named after the file', () => {
    expect(layer.format).toBe(format);
    expect(layer.featureCount).toBe(expected.length);
    expect(layer.geometryTypes).toEqual(typeCounts(expected));
    expect(store.list().map((l) => l.id)).toContain(layer.id);
    expect(layer.name).toBe('town');
    expect(layer.sizeBytes).toBeGreaterThan(0);
    expect(layer.licence).toBe(format.startsWith('osm') ? 'OpenStreetMap contributors, ODbL 1.0' : null);
    const lons = expected.flatMap((f) => turf.coordAll(f).map((c) => c[0]!));
    const lats = expected.flatMap((f) => turf.coordAll(f).map((c) => c[1]!));
    const b = layer.bbox!;
    expect(b[0]).toBeCloseTo(Math.min(...lons), 6);
    expect(b[1]).toBeCloseTo(Math.min(...lats), 6);
    expect(b[2]).toBeCloseTo(Math.max(...lons), 6);
    expect(b[3]).toBeCloseTo(Math.max(...lats), 6);
  });

  it('keeps each feature where the generator put it, with its tags', async () => {
    const got = await store.inBBox(layer.id, [-180, -90, 180, 90]);
    expect(got).toHaveLength(expected.length);
    for (const f of expected) {
      const name = f.properties['name'];
      const mine = got.find((g) => g.tags['name'] === name);
      expect(mine, String(name)).toBeDefined();
      expect(mine!.geometry.type).toBe(f.geometry.type);
      if (f.geometry.type === 'Polygon') {
        expect((mine!.geometry as typeof f.geometry).coordinates).toHaveLength(f.geometry.coordinates.length);
        expect(turf.area(mine!.geometry)).toBeCloseTo(turf.area(f.geometry), -1);
      } else {
        const a = turf.coordAll(mine!.geometry as never);
        const e = turf.coordAll(f.geometry as never);
        expect(a).toHaveLength(e.length);
        a.forEach((c, i) => {
          expect(c[0]).toBeCloseTo(e[i]![0]!, 7);
          expect(c[1]).toBeCloseTo(e[i]![1]!, 7);
        });
      }
      if (fullTags) expect(mine!.tags).toMatchObject(f.properties);
    }
  });

  it('answers "within 500 m of the station" as turf does on the generator data', async () => {
    const station = byName(town.features, 'Lennbrück Hauptbahnhof').geometry as { coordinates: Position };
    const want = expected
      .map((f) => ({ name: f.properties['name'], d: distanceTo(station.coordinates, f.geometry) }))
      .filter((x) => x.d <= 500)
      .sort((a, b) => a.d - b.d);
    const got = await store.within(layer.id, station.coordinates, 500);
    expectNearestFirst(got, want);
    expect(names(got).sort()).toEqual(want.map((w) => w.name).sort());
    expect(want.length).toBeGreaterThan(2);
  });

  it('answers "nearest 5 to a point" with distances to the nearest point of lines and polygons', async () => {
    const p = at(650, 120);
    const want = expected
      .map((f) => ({ name: f.properties['name'], d: distanceTo(p, f.geometry) }))
      .sort((a, b) => a.d - b.d)
      .slice(0, 5);
    const got = await store.nearest(layer.id, p, 5);
    expectNearestFirst(got, want);
  });

  it('answers a map-window (bbox) question with what meets the box, lines and polygons by their shape', async () => {
    const sw = at(-200, 100);
    const ne = at(300, 450);
    const box: [number, number, number, number] = [sw[0]!, sw[1]!, ne[0]!, ne[1]!];
    const want = expected.filter((f) => turf.booleanIntersects(turf.bboxPolygon(box), f.geometry)).map((f) => f.properties['name']);
    expect(names(await store.inBBox(layer.id, box)).sort()).toEqual(want.sort());
    expect(want.length).toBeGreaterThan(3);
  });

  it('finds the polygons that hold a point, holes excluded, and what crosses the river', async () => {
    const holders = (p: Position) =>
      expected.filter((f) => f.geometry.type === 'Polygon' && turf.booleanPointInPolygon(p, f.geometry as never)).map((f) => f.properties['name']);
    const cafe = (byName(town.features, 'Starbucks').geometry as { coordinates: Position }).coordinates;
    const inPark = (byName(town.features, 'Apotheke im Park').geometry as { coordinates: Position }).coordinates;
    expect(names(await store.containing(layer.id, cafe)).sort()).toEqual(holders(cafe).sort());
    expect(names(await store.containing(layer.id, inPark)).sort()).toEqual(holders(inPark).sort());
    const river = byName(town.features, 'Lenne').geometry;
    const crossing = expected.filter((f) => turf.booleanIntersects(river, f.geometry)).map((f) => f.properties['name']);
    expect(names(await store.intersecting(layer.id, river)).sort()).toEqual(crossing.sort());
    if (holds === all) {
      expect(holders(cafe)).toEqual(['Ostviertel']);
      expect(holders(inPark)).toEqual(['Stadtpark']);
      expect(crossing).toEqual(expect.arrayContaining(['Lenne', 'Lennebrücke 1', 'Lennebrücke 2', 'Lennebrücke 3']));
    }
  });
});

describe('format details', () => {
  it('OSM: a closed footway stays a line, a closed building is an area, a route relation is reported', async () => {
    const layer = await importFile(town.osm);
    const found = await store.inBBox(layer.id, [-180, -90, 180, 90]);
    expect(found.find((f) => f.tags['name'] === 'Ringweg')!.geometry.type).toBe('LineString');
    expect(found.find((f) => f.tags['name'] === 'Rathaus')!.geometry.type).toBe('Polygon');
    expect(found.find((f) => f.tags['name'] === 'Nordviertel')!.sourceId).toMatch(/^relation\/\d+$/);
    expect(layer.warnings).toEqual(['1 relation(s) of other types (routes, restrictions, ...) not imported']);
  });

  it('OSM PBF with plain (not dense) nodes reads the same town', async () => {
    const plain = join(dir, 'files', 'plain-nodes.osm.pbf');
    execFileSync('osmium', ['cat', '--overwrite', '-o', plain, '-f', 'pbf,pbf_dense_nodes=false', town.osm]);
    const dense = await store.inBBox((await importFile(town.pbf)).id, [-180, -90, 180, 90]);
    const got = await store.inBBox((await importFile(plain)).id, [-180, -90, 180, 90]);
    const strip = (fs: typeof got) => fs.map((f) => [f.sourceId, f.geometry, f.tags]);
    expect(strip(got)).toEqual(strip(dense));
    expect(got.filter((f) => f.geometry.type === 'Point')).toHaveLength(town.features.filter(pointsOnly).length);
  });

  it('OSM XML saved by an editor: deleted objects are left out', async () => {
    const file = join(dir, 'files', 'edited.osm');
    writeFileSync(
      file,
      `<?xml version='1.0' encoding='UTF-8'?>
<osm version='0.6' generator='JOSM'>
  <node id='-1' action='modify' visible='true' lat='47.3' lon='8.5'><tag k='amenity' v='pharmacy'/></node>
  <node id='5' action='delete' visible='true' lat='47.31' lon='8.51'><tag k='amenity' v='cafe'/></node>
  <node id='6' visible='false' version='3'/>
</osm>`,
    );
    const layer = await importFile(file);
    expect((await store.inBBox(layer.id, [-180, -90, 180, 90])).map((f) => [f.sourceId, f.tags])).toEqual([['node/-1', { amenity: 'pharmacy' }]]);
  });

  it('OSM: pharmacies keep opening_hours, wheelchair and operator; the cafe its brand', async () => {
    const layer = await importFile(town.pbf);
    const found = await store.inBBox(layer.id, [-180, -90, 180, 90]);
    const pharmacies = town.features.filter((f) => f.properties['amenity'] === 'pharmacy');
    for (const p of pharmacies) {
      const mine = found.find((f) => f.tags['name'] === p.properties['name'])!;
      expect(mine.tags['opening_hours']).toBe(p.properties['opening_hours']);
      expect(mine.tags['wheelchair']).toBe(p.properties['wheelchair']);
      expect(mine.tags['operator']).toBe(p.properties['operator']);
    }
    expect(found.find((f) => f.tags['brand'] === 'Starbucks')!.tags['brand:wikidata']).toBe('Q37158');
  });

  it('GeoPackage: every vector table is read, each feature naming its table', async () => {
    const layer = await importFile(town.gpkg);
    const found = await store.inBBox(layer.id, [-180, -90, 180, 90]);
    const points = town.features.filter(pointsOnly).length;
    expect(found.filter((f) => f.sublayer === 'points')).toHaveLength(points);
    expect(found.filter((f) => f.sublayer === 'shapes')).toHaveLength(town.features.length - points);
  });

  it('GeoPackage: a view registered as a feature table is read too', async () => {
    const file = join(dir, 'files', 'with-view.gpkg');
    copyFileSync(town.gpkg, file);
    const db = new Database(file);
    db.exec(`CREATE VIEW pharmacies AS SELECT geom, name, opening_hours FROM points WHERE amenity = 'pharmacy';
      INSERT INTO gpkg_contents (table_name, data_type, identifier, srs_id) VALUES ('pharmacies', 'features', 'pharmacies', 4326);
      INSERT INTO gpkg_geometry_columns (table_name, column_name, geometry_type_name, srs_id, z, m) VALUES ('pharmacies', 'geom', 'POINT', 4326, 0, 0);`);
    db.close();
    const layer = await importFile(file);
    const views = (await store.inBBox(layer.id, [-180, -90, 180, 90])).filter((f) => f.sublayer === 'pharmacies');
    const want = town.features.filter((f) => f.properties['amenity'] === 'pharmacy');
    expect(views.map((f) => f.tags).sort((a, b) => String(a['name']).localeCompare(String(b['name'])))).toEqual(
      want.map((f) => ({ name: f.properties['name'], opening_hours: f.properties['opening_hours'] })).sort((a, b) => a.name!.localeCompare(b.name!)),
    );
    expect(layer.featureCount).toBe(town.features.length + want.length);
  });

  it('newline-delimited GeoJSON streams feature by feature, with a record separator or without', async () => {
    const file = join(dir, 'files', 'town.geojsonl');
    const lines = town.features.map(({ osm: _o, outerParts: _p, ...f }, i) => (i % 2 ? '\u001e' : '') + JSON.stringify(f));
    writeFileSync(file, lines.join('\n') + '\n');
    const layer = await importFile(file);
    expect(layer.format).toBe('geojson');
    expect(layer.geometryTypes).toEqual(typeCounts(town.features));
    const got = await store.inBBox(layer.id, [-180, -90, 180, 90]);
    expect(got.map((f) => f.tags).sort((a, b) => String(a['name']).localeCompare(String(b['name'])))).toEqual(
      town.features.map((f) => f.properties).sort((a, b) => String(a['name']).localeCompare(String(b['name']))),
    );
  });

  it('Shapefile and GPX: attribute names as the formats write them', async () => {
    const shp = await store.inBBox((await importFile(town.shp)).id, [-180, -90, 180, 90]);
    const cafe = shp.find((f) => f.tags['name'] === 'Starbucks')!;
    expect(cafe.tags).toMatchObject({ amenity: 'cafe', brand: 'Starbucks', brand_wiki: 'Q37158' });
    const gpx = await store.inBBox((await importFile(town.gpx)).id, [-180, -90, 180, 90]);
    // GDAL writes GPX extension fields as ogr_<name>: read back as the tag itself.
    const west = gpx.find((f) => f.tags['name'] === 'Apotheke West')!.tags;
    const generated = byName(town.features, 'Apotheke West').properties;
    expect(west).toMatchObject({ amenity: generated['amenity'], opening_hours: generated['opening_hours'] });
    expect(Object.keys(west).filter((k) => k.startsWith('ogr_'))).toEqual([]);
  });
});
