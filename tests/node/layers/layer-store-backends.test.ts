import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as turf from '@turf/turf';
import type { Position } from 'geojson';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importLayerFiles } from '../../../electron/local-service/layers/cli-import';
import { startLayerImport } from '../../../electron/local-service/layers/import-job';
import { asAsyncLayerStore } from '../../../electron/local-service/layers/store/async-layer-store';
import type { LayerInfo, LayerStore, ScanOptions, StoredFeature } from '../../../electron/local-service/layers/store/layer-store';
import { openPostgisLayerStore } from '../../../electron/local-service/layers/store/postgis-layer-store';
import { openSqliteLayerStore } from '../../../electron/local-service/layers/store/sqlite-layer-store';
import { ImportCancelledError } from '../../../electron/local-service/layers/types';
import { startPgCluster, type PgCluster } from '../../support/pg-cluster';
import { writeTownFiles, type TownFiles } from '../../support/town/files';
import { distanceTo } from '../../support/town/distance';
import { at, type TownFeature } from '../../support/town/town';

let dir: string;
let town: TownFiles;
let cluster: PgCluster;
let pool: pg.Pool;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fieldlens-backends-'));
  town = writeTownFiles(join(dir, 'files'));
  cluster = startPgCluster();
  pool = new pg.Pool({ connectionString: await cluster.createDatabase(), max: 4 });
});
afterAll(async () => {
  await pool?.end();
  cluster?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const BACKENDS: { name: string; open: () => Promise<LayerStore> }[] = [
  { name: 'embedded SQLite', open: async () => asAsyncLayerStore(openSqliteLayerStore({ dataDir: join(dir, 'sqlite') })) },
  { name: 'PostGIS', open: () => openPostgisLayerStore({ pool }) },
];

/** Every page of a scan, joined. */
async function scanAll(store: LayerStore, id: string, opts: ScanOptions = {}): Promise<StoredFeature[]> {
  const out: StoredFeature[] = [];
  for await (const page of store.scan(id, opts)) out.push(...page);
  return out;
}

const byName = (fs: TownFeature[], name: string) => fs.find((f) => f.properties['name'] === name)!;
const names = (xs: { tags: Record<string, unknown> }[]) => xs.map((x) => x.tags['name']);

/**
 * Nearest first, each at the distance turf gives. Lines and polygons: turf measures to a segment
 * on a local plane, PostGIS along the great circle; over the town's few hundred metres the two
 * agree to well under a centimetre.
 */
function expectNearestFirst(got: { tags: Record<string, unknown>; distanceMeters: number }[], want: { name: unknown; d: number }[]) {
  expect(got).toHaveLength(want.length);
  const d = new Map(want.map((w) => [w.name, w.d]));
  got.forEach((g, i) => {
    expect(d.has(g.tags['name']), String(g.tags['name'])).toBe(true);
    expect(Math.abs(g.distanceMeters - d.get(g.tags['name'])!)).toBeLessThan(0.01);
    expect(Math.abs(g.distanceMeters - want[i]!.d)).toBeLessThan(0.01);
  });
}

describe.each(BACKENDS)('the layer store on $name', ({ name, open }) => {
  let store: LayerStore;
  let layer: LayerInfo;
  const expected = () => town.features;
  beforeAll(async () => {
    store = await open();
    layer = await startLayerImport({ store, file: town.pbf, tempDir: join(dir, 'tmp') }).done;
  });
  afterAll(() => store?.close());

  it('imports every feature with its figures and lists the layer', async () => {
    expect(layer.featureCount).toBe(expected().length);
    expect(layer.sizeBytes).toBeGreaterThan(0);
    expect((await store.list()).map((l) => l.id)).toContain(layer.id);
    expect(await store.get(layer.id)).toEqual(layer);
    const lons = expected().flatMap((f) => turf.coordAll(f).map((c) => c[0]!));
    expect(layer.bbox![0]).toBeCloseTo(Math.min(...lons), 6);
  });

  it('keeps geometry and tags: a feature read back by its id is the one stored', async () => {
    const all = await store.inBBox(layer.id, [-180, -90, 180, 90]);
    expect(all).toHaveLength(expected().length);
    const one = all.find((f) => f.tags['name'] === 'Starbucks')!;
    expect(typeof one.fid).toBe('number');
    expect(await store.feature(layer.id, one.fid)).toEqual(one);
    expect(one.tags).toMatchObject(byName(expected(), 'Starbucks').properties);
    expect(await store.feature(layer.id, 10_000_000)).toBeNull();
  });

  it('streams a box in fid order, the same features as the box query; a break ends the read', async () => {
    const sw = at(-200, 100);
    const ne = at(300, 450);
    const box: [number, number, number, number] = [sw[0]!, sw[1]!, ne[0]!, ne[1]!];
    const streamed = await scanAll(store, layer.id, { bbox: box });
    expect(streamed).toEqual(await store.inBBox(layer.id, box));
    expect(streamed.length).toBeGreaterThan(3);
    expect((await scanAll(store, layer.id)).map((f) => f.fid)).toEqual((await store.inBBox(layer.id, [-180, -90, 180, 90])).map((f) => f.fid));
    let taken = 0;
    for await (const page of store.scan(layer.id)) if ((taken += page.length) > 0) break;
    expect(taken).toBeGreaterThan(0);
    // The store still answers (a PostGIS scan's connection went back to the pool).
    expect(await store.inBBox(layer.id, box)).toHaveLength(streamed.length);
  });

  it('answers "within 500 m of the station" as turf does', async () => {
    const station = (byName(expected(), 'Lennbrück Hauptbahnhof').geometry as { coordinates: Position }).coordinates;
    const want = expected()
      .map((f) => ({ name: f.properties['name'], d: distanceTo(station, f.geometry) }))
      .filter((x) => x.d <= 500)
      .sort((a, b) => a.d - b.d);
    expect(want.length).toBeGreaterThan(2);
    expectNearestFirst(await store.within(layer.id, station, 500), want);
    expect(await store.within(layer.id, station, 500, { limit: 2 })).toHaveLength(2);
  });

  it('answers "nearest 5 to a point" with distances to the nearest point of lines and polygons', async () => {
    const p = at(650, 120);
    const want = expected()
      .map((f) => ({ name: f.properties['name'], d: distanceTo(p, f.geometry) }))
      .sort((a, b) => a.d - b.d)
      .slice(0, 5);
    expectNearestFirst(await store.nearest(layer.id, p, 5), want);
    expect(await store.nearest(layer.id, p, 0)).toEqual([]);
    expect(await store.nearest(layer.id, p, 10_000)).toHaveLength(expected().length);
  });

  it('answers a box, containment (holes excluded) and what crosses the river', async () => {
    const sw = at(-200, 100);
    const ne = at(300, 450);
    const box: [number, number, number, number] = [sw[0]!, sw[1]!, ne[0]!, ne[1]!];
    const inBox = expected().filter((f) => turf.booleanIntersects(turf.bboxPolygon(box), f.geometry)).map((f) => f.properties['name']);
    expect(names(await store.inBBox(layer.id, box)).sort()).toEqual(inBox.sort());
    const holders = (p: Position) =>
      expected().filter((f) => f.geometry.type === 'Polygon' && turf.booleanPointInPolygon(p, f.geometry as never)).map((f) => f.properties['name']);
    const cafe = (byName(expected(), 'Starbucks').geometry as { coordinates: Position }).coordinates;
    const inPark = (byName(expected(), 'Apotheke im Park').geometry as { coordinates: Position }).coordinates;
    expect(names(await store.containing(layer.id, cafe))).toEqual(holders(cafe));
    expect(names(await store.containing(layer.id, inPark))).toEqual(holders(inPark));
    expect(holders(inPark)).toEqual(['Stadtpark']);
    const river = byName(expected(), 'Lenne').geometry;
    const crossing = expected().filter((f) => turf.booleanIntersects(river, f.geometry)).map((f) => f.properties['name']);
    expect(names(await store.intersecting(layer.id, river)).sort()).toEqual(crossing.sort());
    expect(crossing).toEqual(expect.arrayContaining(['Lenne', 'Lennebrücke 1', 'Lennebrücke 2']));
  });

  it('applies tag tests to scans, distances and nearest alike (a null or absent key fails)', async () => {
    const pharmacy = [[{ key: 'amenity', values: ['pharmacy'] }]];
    const pharmacies = expected().filter((f) => f.properties['amenity'] === 'pharmacy');
    expect(pharmacies.length).toBeGreaterThan(2);
    expect(names(await scanAll(store, layer.id, { match: pharmacy })).sort()).toEqual(pharmacies.map((f) => f.properties['name']).sort());
    const named = expected().filter((f) => f.properties['name'] !== undefined && f.properties['amenity'] !== undefined);
    expect(await scanAll(store, layer.id, { match: [[{ key: 'name' }, { key: 'amenity' }]] })).toHaveLength(named.length);
    expect(await scanAll(store, layer.id, { match: [] })).toEqual([]);
    const p = at(650, 120);
    const want = pharmacies.map((f) => ({ name: f.properties['name'], d: distanceTo(p, f.geometry) })).sort((a, b) => a.d - b.d);
    expectNearestFirst(await store.nearest(layer.id, p, 2, { match: pharmacy }), want.slice(0, 2));
    const r = (want[1]!.d + want[2]!.d) / 2;
    expectNearestFirst(await store.within(layer.id, p, r, { match: pharmacy }), want.slice(0, 2));
  });

  it('counts the features each polygon intersects, zero included, in the polygon\'s fid order', async () => {
    const quarters = await scanAll(store, layer.id, { match: [[{ key: 'place', values: ['quarter'] }]] });
    expect(quarters.length).toBeGreaterThan(1);
    const counts = await store.countPerPolygon(
      { layerId: layer.id, match: [[{ key: 'place', values: ['quarter'] }]] },
      { layerId: layer.id, match: [[{ key: 'amenity', values: ['pharmacy'] }]] },
    );
    const pharmacies = expected().filter((f) => f.properties['amenity'] === 'pharmacy');
    const want = quarters.map((q) => ({ fid: q.fid, count: pharmacies.filter((f) => turf.booleanIntersects(q.geometry, f.geometry)).length }));
    expect(counts).toEqual(want);
    expect(want.some((w) => w.count > 0)).toBe(true);
    // Points and lines of the "polygon" side are not polygons: no count for them.
    expect(await store.countPerPolygon({ layerId: layer.id, match: [[{ key: 'amenity', values: ['pharmacy'] }]] }, { layerId: layer.id })).toEqual([]);
  });

  it('summarises the columns: keys, how many features hold each, and their values', async () => {
    const { columns } = await store.summary(layer.id);
    const amenity = columns.find((c) => c.key === 'amenity')!;
    const holding = expected().filter((f) => f.properties['amenity'] !== undefined);
    expect(amenity.count).toBe(holding.length);
    expect([...amenity.values!].sort()).toEqual([...new Set(holding.map((f) => String(f.properties['amenity'])))].sort());
    expect(amenity.numeric).toBe(false);
    expect(columns.map((c) => c.key)).toContain('name');
  });

  it('a cancelled import leaves no layer; remove() takes a layer away', async () => {
    const before = (await store.list()).length;
    const job = startLayerImport({ store, file: town.osm, tempDir: join(dir, 'tmp'), batchSize: 5 });
    job.events.once('progress', () => job.cancel());
    job.cancel();
    await expect(job.done).rejects.toBeInstanceOf(ImportCancelledError);
    expect(await store.list()).toHaveLength(before);
    const second = await startLayerImport({ store, file: town.geojson, tempDir: join(dir, 'tmp') }).done;
    expect(await store.remove(second.id)).toBe(true);
    expect(await store.remove(second.id)).toBe(false);
    await expect(store.within(second.id, at(0, 0), 10)).rejects.toThrow(`no layer ${second.id}`);
    expect(await store.list()).toHaveLength(before);
    void name;
  });
});

describe('PostGIS specifics', () => {
  let store: LayerStore;
  let layer: LayerInfo;
  beforeAll(async () => {
    store = await openPostgisLayerStore({ pool });
    layer = await startLayerImport({ store, file: town.geojson, tempDir: join(dir, 'tmp') }).done;
  });

  const tableOf = async (uid: string) => `layer_features_${(await pool.query('SELECT id FROM layers WHERE uid = $1', [uid])).rows[0].id}`;
  const plan = async (sql: string) => {
    const c = await pool.connect();
    try {
      // The town is small enough for a sequential scan: ask the planner what it does with the index.
      await c.query('SET enable_seqscan = off');
      return (await c.query(`EXPLAIN ${sql}`)).rows.map((r) => r['QUERY PLAN']).join('\n');
    } finally {
      await c.query('RESET enable_seqscan');
      c.release();
    }
  };

  it('a question on a known layer is one query; a layer another process removed is not found, whatever is asked', async () => {
    const own = await startLayerImport({ store, file: town.geojson, tempDir: join(dir, 'tmp'), name: 'short-lived' }).done;
    const here = await openPostgisLayerStore({ pool });
    const station = at(0, 0);
    expect((await here.within(own.id, station, 500)).length).toBeGreaterThan(0);
    // Counted from here on: what reaches the database for one more question on the same layer.
    const sent: string[] = [];
    const query = pool.query.bind(pool);
    pool.query = ((text: string, ...rest: unknown[]) => (sent.push(text), (query as (...a: unknown[]) => unknown)(text, ...rest))) as typeof pool.query;
    try {
      await here.within(own.id, station, 800);
    } finally {
      pool.query = query;
    }
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatch(/ST_DWithin/);
    // Another process (store) removes it; this one still has its table number.
    const there = await openPostgisLayerStore({ pool });
    expect(await there.remove(own.id)).toBe(true);
    const notFound = { name: 'LayerNotFoundError' };
    await expect(here.within(own.id, station, 500)).rejects.toMatchObject(notFound);
    await expect(here.nearest(own.id, station, 3)).rejects.toMatchObject(notFound);
    await expect(here.inBBox(own.id, [-180, -90, 180, 90])).rejects.toMatchObject(notFound);
    await expect(here.feature(own.id, 1)).rejects.toMatchObject(notFound);
    await expect(scanAll(here, own.id)).rejects.toMatchObject(notFound);
    await expect(here.summary(own.id)).rejects.toMatchObject(notFound);
    // The layer of the other tests is untouched.
    expect((await here.within(layer.id, station, 500)).length).toBeGreaterThan(0);
  });

  it('builds one geometry GiST index after the load, which serves distance, KNN and boxes', async () => {
    const t = await tableOf(layer.id);
    const idx = (await pool.query('SELECT indexdef FROM pg_indexes WHERE tablename = $1', [t])).rows.map((r) => r.indexdef as string);
    expect(idx.some((d) => /USING gist \(geom\)/.test(d))).toBe(true);
    // No geography index: it has no sorted build and took most of an import.
    expect(idx.filter((d) => /gist/.test(d))).toHaveLength(1);
    // The key on fid, built beside the GiST index.
    const key = (await pool.query(`SELECT pg_get_constraintdef(oid) AS def FROM pg_constraint WHERE conrelid = $1::regclass AND contype = 'p'`, [t])).rows;
    expect(key.map((r) => r.def)).toEqual(['PRIMARY KEY (fid)']);
    // The shapes the store sends: a lon/lat box before the exact test on the sphere, planar KNN.
    expect(
      await plan(`SELECT fid FROM ${t} WHERE geom && ST_MakeEnvelope(6.99, 50.99, 7.01, 51.01, 4326) AND ST_DWithin(geom::geography, ST_MakePoint(7, 51)::geography, 500, false)`),
    ).toContain(`${t}_geom`);
    expect(await plan(`SELECT fid FROM ${t} ORDER BY geom <-> ST_SetSRID(ST_MakePoint(7, 51), 4326) LIMIT 5`)).toMatch(new RegExp(`Index Scan using ${t}_geom`));
    expect(await plan(`SELECT fid FROM ${t} WHERE geom && ST_MakeEnvelope(6, 50, 8, 52, 4326)`)).toContain(`${t}_geom`);
  });

  it('keeps the rows in geometry order, so that features near each other share pages', async () => {
    // Points over a 1° square written in an order unrelated to where they lie.
    const n = 5000;
    const rnd = (i: number) => (Math.imul(i + 1, 2654435761) >>> 0) / 4294967296;
    const w = await store.create({ name: 'scattered', sourceFile: 's.geojson', format: 'geojson', licence: null, sourceText: 's' });
    const fs = Array.from({ length: n }, (_, i) => ({ sourceId: String(i), geometry: { type: 'Point' as const, coordinates: [10 + rnd(2 * i), 45 + rnd(2 * i + 1)] }, properties: {} }));
    await w.add(fs);
    const info = await w.commit([]);
    const t = await tableOf(info.id);
    // Mean step between consecutive rows, in the table's physical order and in import order.
    const step = async (order: string) =>
      Number((await pool.query(`SELECT avg(d) AS m FROM (SELECT ST_Distance(geom, lag(geom) OVER (ORDER BY ${order})) AS d FROM ${t}) x`)).rows[0].m);
    const physical = await step('ctid');
    const imported = await step('fid');
    // Random order steps about half the square; an ordering along a space-filling curve about 1/sqrt(n) of it.
    expect(imported).toBeGreaterThan(0.4);
    expect(physical).toBeLessThan(imported / 10);
    expect((await pool.query(`SELECT count(*)::int AS n FROM ${t}`)).rows[0].n).toBe(n);
    await store.remove(info.id);
  });

  it('vacuums and analyzes the table before the layer is listed: autovacuum has nothing left to do once it serves', async () => {
    const t = await tableOf(layer.id);
    const s = (await pool.query(`SELECT n_ins_since_vacuum::int AS ins, last_vacuum IS NOT NULL AS vacuumed, last_analyze IS NOT NULL AS analyzed FROM pg_stat_user_tables WHERE relname = $1`, [t])).rows[0];
    expect(s).toEqual({ ins: 0, vacuumed: true, analyzed: true });
  });

  it('an import whose process died is removed at the next open; a live one is left alone', async () => {
    const writer = await store.create({ name: 'live', sourceFile: 'live.geojson', format: 'geojson', licence: null, sourceText: 'live' });
    await writer.add([{ sourceId: '1', geometry: { type: 'Point', coordinates: [1, 2] }, properties: {} }]);
    // A row and table as a crashed import leaves them: no session holds its lock.
    const dead = (
      await pool.query(`INSERT INTO layers (uid, name, source_file, format, state, created_at) VALUES ('dead', 'd', 'd', 'geojson', 'importing', 'x') RETURNING id`)
    ).rows[0].id as number;
    await pool.query(`CREATE TABLE layer_features_${dead} (fid BIGINT)`);
    await pool.query(`CREATE UNLOGGED TABLE layer_features_${dead}_load (fid BIGINT)`);
    await openPostgisLayerStore({ pool });
    const states = (await pool.query(`SELECT name FROM layers WHERE state = 'importing'`)).rows.map((r) => r.name);
    expect(states).toEqual(['live']);
    const exists = async (t: string) => (await pool.query(`SELECT to_regclass($1) AS t`, [t])).rows[0].t !== null;
    expect(await exists(`layer_features_${dead}`)).toBe(false);
    expect(await exists(`layer_features_${dead}_load`)).toBe(false);
    const live = (await pool.query(`SELECT id FROM layers WHERE name = 'live'`)).rows[0].id as number;
    expect(await exists(`layer_features_${live}_load`)).toBe(true);
    const info = await writer.commit([]);
    expect(await exists(`layer_features_${live}_load`)).toBe(false);
    expect(info.featureCount).toBe(1);
    expect((await store.nearest(info.id, [1, 2.001], 1))[0]!.distanceMeters).toBeCloseTo(turf.distance([1, 2], [1, 2.001], { units: 'meters' }), 3);
  });

  it('--layer with --database imports into PostGIS, where the service finds it', async () => {
    const url = await cluster.createDatabase();
    const lines: string[] = [];
    const res = await importLayerFiles({ dataDir: join(dir, 'cli'), database: url, files: [town.geojson], log: (l) => lines.push(l) });
    expect(res.failed).toEqual([]);
    expect(res.imported[0]!.featureCount).toBe(town.features.length);
    const other = new pg.Pool({ connectionString: url, max: 2 });
    try {
      const again = await openPostgisLayerStore({ pool: other });
      expect((await again.list()).map((l) => [l.id, l.featureCount])).toEqual([[res.imported[0]!.id, town.features.length]]);
    } finally {
      await other.end();
    }
    expect(lines.at(-1)).toMatch(/imported "town"/);
  });

  it('refuses coordinates outside lon/lat and keeps text with tabs, backslashes and line breaks', async () => {
    const w = await store.create({ name: 'odd', sourceFile: 'odd', format: 'geojson', licence: null, sourceText: 'odd' });
    const tags = { note: 'a\tb\\c\nd\re "q"', n: 3 };
    await w.add([{ sourceId: 'x\ty', sublayer: 'tab\\le', geometry: { type: 'Point', coordinates: [5, 6] }, properties: tags }]);
    const info = await w.commit([]);
    const [f] = await store.inBBox(info.id, [-180, -90, 180, 90]);
    expect(f).toMatchObject({ sourceId: 'x\ty', sublayer: 'tab\\le', tags });
    const bad = await store.create({ name: 'bad', sourceFile: 'bad', format: 'geojson', licence: null, sourceText: 'bad' });
    await expect(bad.add([{ sourceId: '1', geometry: { type: 'Point', coordinates: [500000, 6000000] }, properties: {} }])).rejects.toThrow(/outside longitude\/latitude/);
    await bad.abort();
    expect((await store.list()).map((l) => l.name)).not.toContain('bad');
  });
});
