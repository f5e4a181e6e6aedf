import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Polygon, Position } from 'geojson';
import Feature from 'ol/Feature';
import MVT from 'ol/format/MVT';
import type { LineString, MultiLineString, Point, Polygon as OlPolygon } from 'ol/geom';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStreetTiles, type StreetTiles } from '../../../electron/local-service/layers/basemap/street-tiles';
import { startLayerImport } from '../../../electron/local-service/layers/import-job';
import { asAsyncLayerStore } from '../../../electron/local-service/layers/store/async-layer-store';
import type { LayerInfo, LayerStore } from '../../../electron/local-service/layers/store/layer-store';
import { openPostgisLayerStore } from '../../../electron/local-service/layers/store/postgis-layer-store';
import { openSqliteLayerStore } from '../../../electron/local-service/layers/store/sqlite-layer-store';
import { startPgCluster, type PgCluster } from '../../support/pg-cluster';
import { writeTownFiles, type TownFiles } from '../../support/town/files';

let dir: string;
let town: TownFiles;
let cluster: PgCluster | null = null;
let pool: pg.Pool | null = null;
const postgis = process.env['FIELDLENS_TEST_BACKEND'] === 'postgis';

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fieldlens-street-tiles-'));
  town = writeTownFiles(join(dir, 'files'));
  if (postgis) {
    cluster = startPgCluster();
    pool = new pg.Pool({ connectionString: await cluster.createDatabase(), max: 4 });
  }
});
afterAll(async () => {
  await pool?.end();
  cluster?.stop();
  rmSync(dir, { recursive: true, force: true });
});

// Web Mercator written out here, independently of the tiler: a position's tile and its place in it.
const worldXY = ([lon, lat]: Position, z: number) => {
  const n = 2 ** z;
  const r = (lat! * Math.PI) / 180;
  return [((lon! + 180) / 360) * n, ((1 - Math.log(Math.tan(r) + 1 / Math.cos(r)) / Math.PI) / 2) * n] as const;
};
const tileOf = (p: Position, z: number) => worldXY(p, z).map(Math.floor) as [number, number];
const inTile = (p: Position, z: number, x: number, y: number) => {
  const [wx, wy] = worldXY(p, z);
  return [(wx - x) * 4096, (wy - y) * 4096] as const;
};

// Full features (not render features), so geometries read as the tile holds them, in tile units.
const read = (data: Uint8Array) => new MVT<Feature>({ featureClass: Feature }).readFeatures(data.slice().buffer);
const named = (fs: Feature[], name: string) => fs.filter((f) => f.get('name') === name);

const BACKENDS: { name: string; open: () => Promise<LayerStore> }[] = postgis
  ? [{ name: 'PostGIS', open: () => openPostgisLayerStore({ pool: pool! }) }]
  : [{ name: 'embedded SQLite', open: async () => asAsyncLayerStore(openSqliteLayerStore({ dataDir: join(dir, 'sqlite') })) }];

describe.each(BACKENDS)('street basemap tiles from an OSM extract on $name', ({ open }) => {
  let store: LayerStore;
  let layer: LayerInfo;
  let tiles: StreetTiles;
  const townFeature = (name: string) => town.features.find((f) => f.properties['name'] === name)!;
  beforeAll(async () => {
    store = await open();
    layer = await startLayerImport({ store, file: town.pbf, tempDir: join(dir, 'tmp') }).done;
    tiles = createStreetTiles({ store, layers: () => store.list() });
  });
  afterAll(() => store?.close());

  it('draws the town hall as a building where the extract has it, at zoom 16', async () => {
    const ring = (townFeature('Rathaus').geometry as Polygon).coordinates[0]!;
    const [x, y] = tileOf(ring[0]!, 16);
    const fs = read((await tiles.tile(16, x, y))!);
    const hall = named(fs, 'Rathaus');
    expect(hall).toHaveLength(1);
    expect(hall[0]!.get('layer')).toBe('buildings');
    expect(hall[0]!.get('class')).toBe('building');
    // Each corner of the generator's rectangle is a vertex of the tile's polygon, within a tile unit.
    const got = (hall[0]!.getGeometry() as OlPolygon).getCoordinates()[0]!;
    for (const corner of ring) {
      const [px, py] = inTile(corner, 16, x, y);
      if (px < 0 || py < 0 || px > 4096 || py > 4096) continue;
      expect(got.some(([gx, gy]) => Math.hypot(gx! - px, gy! - py) <= 1.5), `corner ${corner.join(',')}`).toBe(true);
    }
  });

  it('classes roads, water and place labels, each where the generator put it', async () => {
    const street = townFeature('Nordstraße');
    const mid = (street.geometry as { coordinates: Position[] }).coordinates[1]!;
    const [x, y] = tileOf(mid, 15);
    const fs = read((await tiles.tile(15, x, y))!);
    const road = named(fs, 'Nordstraße');
    expect(road.length).toBeGreaterThan(0);
    expect(road[0]!.get('layer')).toBe('roads');
    expect(road[0]!.get('class')).toBe('street');
    const [px, py] = inTile(mid, 15, x, y);
    // A street's ways come joined into one line, or several where they do not meet.
    const pts = road.flatMap((r) => {
      const flat = (r.getGeometry() as LineString | MultiLineString).getFlatCoordinates();
      return Array.from({ length: flat.length / 2 }, (_, i) => [flat[2 * i], flat[2 * i + 1]]);
    });
    expect(pts.some(([gx, gy]) => Math.hypot(gx! - px, gy! - py) <= 1.5)).toBe(true);

    // At zoom 13: the river, the quarters as label points inside their own rectangles, no buildings yet.
    const centre = (townFeature('Rathaus').geometry as Polygon).coordinates[0]![0]!;
    const [x13, y13] = tileOf(centre, 13);
    const wide = read((await tiles.tile(13, x13, y13))!);
    expect(named(wide, 'Lenne')[0]?.get('layer')).toBe('waterway');
    expect(named(wide, 'Lenne')[0]?.get('class')).toBe('river');
    expect(wide.filter((f) => f.get('layer') === 'buildings')).toHaveLength(0);
    for (const q of ['Nordviertel', 'Ostviertel', 'Südviertel']) {
      const rect = (townFeature(q).geometry as Polygon).coordinates[0]!;
      // The tile of the rectangle's middle; the label point lies inside the rectangle, so in it or a neighbour.
      const [tx, ty] = tileOf([(rect[0]![0]! + rect[2]![0]!) / 2, (rect[0]![1]! + rect[2]![1]!) / 2], 13);
      const found: { x: number; y: number; f: Feature }[] = [];
      for (const dx of [-1, 0, 1])
        for (const dy of [-1, 0, 1]) {
          const data = await tiles.tile(13, tx + dx, ty + dy);
          for (const f of named(data ? read(data) : [], q)) {
            const [lx, ly] = (f.getGeometry() as Point).getCoordinates();
            if (lx! >= 0 && ly! >= 0 && lx! < 4096 && ly! < 4096) found.push({ x: tx + dx, y: ty + dy, f });
          }
        }
      expect(found, q).toHaveLength(1);
      const { x, y, f } = found[0]!;
      expect(f.get('layer')).toBe('places');
      expect(f.getGeometry()?.getType()).toBe('Point');
      const [lx, ly] = (f.getGeometry() as Point).getCoordinates();
      const [w, n] = inTile(rect[3]!, 13, x, y);
      const [e, s] = inTile(rect[1]!, 13, x, y);
      expect(lx).toBeGreaterThanOrEqual(w - 1);
      expect(lx).toBeLessThanOrEqual(e + 1);
      expect(ly).toBeGreaterThanOrEqual(n - 1);
      expect(ly).toBeLessThanOrEqual(s + 1);
    }
    // The footway ring comes in at 15, not before.
    const ring = (townFeature('Ringweg').geometry as { coordinates: Position[] }).coordinates[0]!;
    expect(named(read((await tiles.tile(14, ...tileOf(ring, 14)))!), 'Ringweg')).toHaveLength(0);
    expect(named(read((await tiles.tile(15, ...tileOf(ring, 15)))!), 'Ringweg')[0]?.get('class')).toBe('path');
  });

  it("makes a view's tiles asked together one at a time, in the order asked, letting other work run between them", async () => {
    const fresh = createStreetTiles({ store, layers: () => store.list() });
    const [x, y] = tileOf((townFeature('Rathaus').geometry as Polygon).coordinates[0]![0]!, 16);
    const asks = Array.from({ length: 12 }, (_, i) => [16, x - 2 + (i % 4), y - 1 + Math.floor(i / 4)] as const);
    const done: number[] = [];
    // A timer due now stands for any other request: it runs once the tiles before it are made, not after all.
    let doneWhenTimerRan = -1;
    setTimeout(() => (doneWhenTimerRan = done.length), 0);
    const made = await Promise.all(asks.map(([z, tx, ty], i) => fresh.tile(z, tx, ty).then((d) => (done.push(i), d))));
    expect(done).toEqual(asks.map((_, i) => i));
    expect(doneWhenTimerRan).toBeGreaterThanOrEqual(0);
    expect(doneWhenTimerRan).toBeLessThan(asks.length);
    expect(made.some((d) => d !== null)).toBe(true);
    // The same tile asked twice while it is being made is made once.
    const [a, b] = await Promise.all([fresh.tile(16, x + 3, y), fresh.tile(16, x + 3, y)]);
    expect(a).toBe(b);
  });

  it('answers null below the street zooms and away from the extract, and keeps made tiles until the layers change', async () => {
    const c = (townFeature('Rathaus').geometry as Polygon).coordinates[0]![0]!;
    expect(await tiles.tile(11, ...tileOf(c, 11))).toBeNull();
    expect(await tiles.tile(16, ...tileOf([c[0]! + 5, c[1]!], 16))).toBeNull();
    const [x, y] = tileOf(c, 16);
    const first = await tiles.tile(16, x, y);
    expect(await tiles.tile(16, x, y)).toBe(first);
    tiles.invalidate();
    const again = await tiles.tile(16, x, y);
    expect(again).not.toBe(first);
    expect(Buffer.from(again!).equals(Buffer.from(first!))).toBe(true);
    await store.remove(layer.id);
    tiles.invalidate();
    expect(await tiles.tile(16, x, y)).toBeNull();
  });
});
