import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as turf from '@turf/turf';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EmbeddedLayerStore, LayerInfo } from '../../../electron/local-service/layers/store/layer-store';
import { openSqliteLayerStore } from '../../../electron/local-service/layers/store/sqlite-layer-store';
import { hilbertKey } from '../../../electron/local-service/layers/store/geo';
import { SUMMARY_VALUES } from '../../../electron/local-service/layers/store/summary';
import type { LayerFeature } from '../../../electron/local-service/layers/types';

let dir: string;
let store: EmbeddedLayerStore;
let layer: LayerInfo;
// 400 points on a 20 x 20 grid; every seventh a pharmacy, the others cafes; a unique name each.
const features: LayerFeature[] = Array.from({ length: 400 }, (_, i) => ({
  sourceId: String(i),
  geometry: { type: 'Point', coordinates: [8 + (i % 20) * 0.001, 47 + Math.floor(i / 20) * 0.001] },
  properties: { amenity: i % 7 === 0 ? 'pharmacy' : 'cafe', name: `F${i}`, capacity: i, ...(i % 2 ? { wheelchair: 'yes' } : {}) },
}));
const pharmacyMatch = [[{ key: 'amenity', values: ['pharmacy'] }]];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'fieldlens-store-q-'));
  store = openSqliteLayerStore({ dataDir: dir });
  const w = store.create({ name: 'grid', sourceFile: '/grid.geojson', format: 'geojson', licence: null, sourceText: 'grid' });
  w.add(features);
  layer = w.commit([]);
});
afterAll(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('layer store queries with tag tests', () => {
  it('scan returns the features that pass, in storage order', async () => {
    const got = await store.scan(layer.id, { match: pharmacyMatch });
    expect(got.map((f) => f.tags['name'])).toEqual(features.filter((f) => f.properties['amenity'] === 'pharmacy').map((f) => f.properties['name']));
    expect(await store.scan(layer.id, { match: [[{ key: 'amenity', values: ['pharmacy'] }, { key: 'wheelchair' }]], limit: 3 })).toHaveLength(3);
  });

  it('nearest with a tag test widens until it has the k nearest that pass, though others are closer', async () => {
    const at = [8.0101, 47.0101];
    const want = features
      .filter((f) => f.properties['amenity'] === 'pharmacy')
      .map((f) => ({ name: f.properties['name'], d: turf.distance(at, (f.geometry as { coordinates: number[] }).coordinates, { units: 'meters' }) }))
      .sort((a, b) => a.d - b.d)
      .slice(0, 5);
    const got = await store.nearest(layer.id, at, 5, { match: pharmacyMatch });
    expect(got.map((f) => f.distanceMeters)).toEqual(want.map((w) => expect.closeTo(w.d, 3)));
    // Asking for more than the layer holds ends at the layer's extent with what there is.
    expect(await store.nearest(layer.id, at, 1000, { match: pharmacyMatch })).toHaveLength(features.filter((f) => f.properties['amenity'] === 'pharmacy').length);
  });

  it('within and inBBox apply the tag test too', async () => {
    const at = [8.01, 47.01];
    const want = features.filter((f) => f.properties['amenity'] === 'pharmacy' && turf.distance(at, (f.geometry as { coordinates: number[] }).coordinates, { units: 'meters' }) <= 300);
    expect((await store.within(layer.id, at, 300, { match: pharmacyMatch })).map((f) => f.tags['name']).sort()).toEqual(want.map((f) => f.properties['name']).sort());
    expect((await store.inBBox(layer.id, [7, 46, 9, 48], { match: pharmacyMatch })).length).toBe(features.filter((f) => f.properties['amenity'] === 'pharmacy').length);
  });
});

describe('layer summaries', () => {
  it('records each column: its count, whether it is numeric, its values most frequent first; none past the bound', async () => {
    const s = await store.summary(layer.id);
    const amenity = s.columns.find((c) => c.key === 'amenity')!;
    expect(amenity).toEqual({ key: 'amenity', count: 400, numeric: false, values: ['cafe', 'pharmacy'] });
    expect(s.columns.find((c) => c.key === 'capacity')).toMatchObject({ numeric: true, count: 400 });
    expect(s.columns.find((c) => c.key === 'wheelchair')).toMatchObject({ count: 200, values: ['yes'] });
    expect(s.columns.find((c) => c.key === 'name')!.values).toHaveLength(400);

    const many = store.create({ name: 'many', sourceFile: '/m', format: 'geojson', licence: null, sourceText: 'm' });
    many.add(Array.from({ length: SUMMARY_VALUES + 1 }, (_, i) => ({ sourceId: String(i), geometry: { type: 'Point', coordinates: [0, 0] }, properties: { id: `x${i}` } })));
    const info = many.commit([]);
    expect((await store.summary(info.id)).columns[0]).toMatchObject({ key: 'id', values: null, count: SUMMARY_VALUES + 1 });
  });

  it('a layer stored before summaries were recorded gets one from its features, kept', async () => {
    const dataDir = join(dir, 'old');
    const s1 = openSqliteLayerStore({ dataDir });
    const w = s1.create({ name: 'old', sourceFile: '/o', format: 'geojson', licence: null, sourceText: 'o' });
    w.add(features.slice(0, 10));
    const info = w.commit([]);
    s1.close();
    const db = new Database(join(dataDir, 'layers.sqlite'));
    db.prepare('UPDATE layers SET summary = NULL').run();
    db.close();
    const s2 = openSqliteLayerStore({ dataDir });
    expect((await s2.summary(info.id)).columns.find((c) => c.key === 'amenity')).toEqual({ key: 'amenity', count: 10, numeric: false, values: ['cafe', 'pharmacy'] });
    s2.close();
    const db2 = new Database(join(dataDir, 'layers.sqlite'));
    expect((db2.prepare('SELECT summary FROM layers').get() as { summary: string | null }).summary).not.toBeNull();
    db2.close();
  });
});

describe('spatial index of cells', () => {
  // The expected answers come from turf over the generated features, not from the store.
  const inBox = (b: [number, number, number, number]) =>
    features.filter((f) => turf.booleanIntersects(turf.bboxPolygon(b), f.geometry)).map((f) => f.properties['name']).sort();
  const boxes: [number, number, number, number][] = [[8.0021, 47.0031, 8.0077, 47.0052], [8, 47, 8.0005, 47.0005], [7, 46, 7.5, 46.5], [8.0185, 47.0185, 9, 48]];

  it('groups features into cells of 32 and answers boxes exactly, cells or no cells', async () => {
    const db = new Database(join(dir, 'layers.sqlite'), { readonly: true });
    const n = (db.prepare('SELECT id FROM layers WHERE uid = ?').get(layer.id) as { id: number }).id;
    expect(db.prepare(`SELECT count(*) FROM lr_${n}`).pluck().get()).toBe(Math.ceil(features.length / 32));
    expect(db.prepare(`SELECT max(c) FROM (SELECT count(*) AS c FROM lm_${n} GROUP BY cell)`).pluck().get()).toBe(32);
    db.close();
    for (const b of boxes) expect((await store.inBBox(layer.id, b)).map((f) => f.tags['name']).sort()).toEqual(inBox(b));
  });

  it('cuts cells along the Hilbert curve whether the boxes were sorted in memory or, past its budget, in sorted runs merged from a scratch file', async () => {
    // Expected cells: features sorted by the Hilbert key of their point, then by fid, 32 to a cell.
    const want = features
      .map((f, i) => {
        const [x, y] = (f.geometry as { coordinates: number[] }).coordinates as [number, number];
        return { fid: i + 1, k: hilbertKey(x, y) };
      })
      .sort((a, b) => a.k - b.k || a.fid - b.fid)
      .map((m, r) => [Math.floor(r / 32), m.fid]);
    const members = (dataDir: string, uid: string) => {
      const db = new Database(join(dataDir, 'layers.sqlite'), { readonly: true });
      const n = (db.prepare('SELECT id FROM layers WHERE uid = ?').get(uid) as { id: number }).id;
      const rows = db.prepare(`SELECT cell, fid FROM lm_${n} ORDER BY cell, fid`).raw(true).all() as number[][];
      db.close();
      return rows.sort((a, b) => a[0]! - b[0]! || a[1]! - b[1]!);
    };
    expect(members(dir, layer.id)).toEqual([...want].sort((a, b) => a[0]! - b[0]! || a[1]! - b[1]!));
    const dataDir = join(dir, 'spilled-boxes');
    const small = openSqliteLayerStore({ dataDir, memoryBoxes: 50 });
    const runFiles = () => readdirSync(dataDir).filter((f) => f.startsWith('layer-cells-'));
    try {
      const w = small.create({ name: 'spilled', sourceFile: '/s', format: 'geojson', licence: null, sourceText: 's' });
      for (let i = 0; i < features.length; i += 37) w.add(features.slice(i, i + 37));
      // Past 50 boxes, sorted runs of them went to a scratch file, merged and removed at the commit.
      expect(runFiles()).toHaveLength(1);
      const info = w.commit([]);
      expect(runFiles()).toEqual([]);
      expect(members(dataDir, info.id)).toEqual(members(dir, layer.id));
      for (const b of boxes) expect((await small.inBBox(info.id, b)).map((f) => f.tags['name']).sort()).toEqual(inBox(b));
      // An import stopped part way leaves no runs either.
      const stopped = small.create({ name: 'stopped', sourceFile: '/s', format: 'geojson', licence: null, sourceText: 's' });
      stopped.add(features);
      expect(runFiles()).toHaveLength(1);
      stopped.abort();
      expect(runFiles()).toEqual([]);
    } finally {
      small.close();
    }
  });

  it('reads a layer stored before cells (an R*Tree entry per feature) as it is', async () => {
    const dataDir = join(dir, 'before-cells');
    const s1 = openSqliteLayerStore({ dataDir });
    const w = s1.create({ name: 'old', sourceFile: '/o', format: 'geojson', licence: null, sourceText: 'o' });
    w.add(features);
    const info = w.commit([]);
    s1.close();
    // The layout of layers imported before cells: feature boxes in the R*Tree, no member table.
    const db = new Database(join(dataDir, 'layers.sqlite'));
    const n = (db.prepare('SELECT id FROM layers WHERE uid = ?').get(info.id) as { id: number }).id;
    db.exec(`DROP TABLE lr_${n}; CREATE VIRTUAL TABLE lr_${n} USING rtree(fid, x0, x1, y0, y1);
      INSERT INTO lr_${n} SELECT fid, x0, x1, y0, y1 FROM lm_${n}; DROP TABLE lm_${n};`);
    db.close();
    const s2 = openSqliteLayerStore({ dataDir });
    try {
      for (const b of boxes) expect((await s2.inBBox(info.id, b)).map((f) => f.tags['name']).sort()).toEqual(inBox(b));
      const at = [8.0101, 47.0101];
      const nearest3 = features
        .map((f) => ({ name: f.properties['name'], d: turf.distance(at, (f.geometry as { coordinates: number[] }).coordinates, { units: 'meters' }) }))
        .sort((a, b) => a.d - b.d)
        .slice(0, 3)
        .map((x) => x.name);
      expect((await s2.nearest(info.id, at, 3)).map((f) => f.tags['name'])).toEqual(nearest3);
    } finally {
      s2.close();
    }
  });
});

describe('features read through the cells', () => {
  it('come back whole: source id, sublayer (or none), geometry of every type and size, and tags, cell after cell', async () => {
    // Mixed geometries of varying length, so the geometries a cell joins end to end differ in size.
    const mixed: LayerFeature[] = Array.from({ length: 150 }, (_, i) => {
      const x = 5 + (i % 15) * 0.01;
      const y = 45 + Math.floor(i / 15) * 0.01;
      const geometry: LayerFeature['geometry'] =
        i % 3 === 0
          ? { type: 'Point', coordinates: [x, y] }
          : i % 3 === 1
            ? { type: 'LineString', coordinates: Array.from({ length: 2 + (i % 7) }, (_, k) => [x + k * 0.001, y + (k % 2) * 0.001]) }
            : { type: 'Polygon', coordinates: [[[x, y], [x + 0.004, y], [x + 0.004, y + 0.004], [x, y + 0.004], [x, y]], [[x + 0.001, y + 0.001], [x + 0.002, y + 0.001], [x + 0.002, y + 0.002], [x + 0.001, y + 0.001]]] };
      return { sourceId: `way/${i}`, ...(i % 4 ? { sublayer: `part ${i % 4}` } : {}), geometry, properties: { name: `N, "${i}" [é]`, level: i } };
    });
    const dataDir = join(dir, 'whole');
    const s = openSqliteLayerStore({ dataDir });
    try {
      const w = s.create({ name: 'mixed', sourceFile: '/m', format: 'geojson', licence: null, sourceText: 'm' });
      w.add(mixed);
      const info = w.commit([]);
      const got = await s.inBBox(info.id, [4, 44, 6, 46]);
      expect(got.map((f) => [f.fid, f.sourceId, f.sublayer, f.geometry, f.tags])).toEqual(
        mixed.map((f, i) => [i + 1, f.sourceId, f.sublayer ?? null, f.geometry, f.properties]),
      );
    } finally {
      s.close();
    }
  });
});
