import type { Geometry, Position } from 'geojson';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LayerInfo, LayerStore } from '../../../electron/local-service/layers/store/layer-store';
import { openPostgisLayerStore } from '../../../electron/local-service/layers/store/postgis-layer-store';
import type { LayerFeature } from '../../../electron/local-service/layers/types';
import { startPgCluster, type PgCluster } from '../../support/pg-cluster';

/** Great-circle metres by the haversine formula on the mean-radius sphere (6,371,008.8 m). */
function haversine([lon1, lat1]: Position, [lon2, lat2]: Position): number {
  const r = Math.PI / 180;
  const a = Math.sin(((lat2! - lat1!) * r) / 2) ** 2 + Math.cos(lat1! * r) * Math.cos(lat2! * r) * Math.sin(((lon2! - lon1!) * r) / 2) ** 2;
  return 2 * 6371008.8 * Math.asin(Math.min(1, Math.sqrt(a)));
}

/** A small deterministic generator (mulberry32), so a failure replays. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

let cluster: PgCluster;
let pool: pg.Pool;
let store: LayerStore;
beforeAll(async () => {
  cluster = startPgCluster();
  pool = new pg.Pool({ connectionString: await cluster.createDatabase(), max: 6 });
  store = await openPostgisLayerStore({ pool });
});
afterAll(async () => {
  await pool?.end();
  cluster?.stop();
});

const newLayer = (name: string) => store.create({ name, sourceFile: `${name}.geojson`, format: 'geojson', licence: null, sourceText: name });
const tableOf = async (uid: string) => `layer_features_${(await pool.query('SELECT id FROM layers WHERE uid = $1', [uid])).rows[0].id}`;
/** Connections the pool handed out and did not get back. */
const checkedOut = () => pool.totalCount - pool.idleCount;

describe('the PostGIS import (binary COPY on several connections)', () => {
  /** Points over the whole globe, clusters at the antimeridian and the poles, and exact duplicates (ties). */
  const points: Position[] = [];
  let layer: LayerInfo;
  beforeAll(async () => {
    const rnd = random(13);
    for (let i = 0; i < 24_000; i++) points.push([-180 + rnd() * 360, -90 + rnd() * 180]);
    for (let i = 0; i < 1_500; i++) points.push([rnd() < 0.5 ? 179.9 + rnd() * 0.1 : -180 + rnd() * 0.1, -10 + rnd() * 20]);
    for (let i = 0; i < 1_500; i++) points.push([-180 + rnd() * 360, rnd() < 0.5 ? 89.5 + rnd() * 0.5 : -90 + rnd() * 0.5]);
    for (let i = 0; i < 10; i++) points.push([12.5, 41.9]);
    const w = await newLayer('globe');
    // Uneven batches: rows are handed to the streams in chunks regardless of how they arrive.
    for (let at = 0; at < points.length; at += 7_001)
      await w.add(points.slice(at, at + 7_001).map((p, i) => ({ sourceId: `n/${at + i}`, geometry: { type: 'Point', coordinates: p }, properties: { i: at + i } })));
    layer = await w.commit([]);
  });

  it('writes every feature once, fids 1..n in the order given, and hands its connections back', async () => {
    expect(layer.featureCount).toBe(points.length);
    const t = await tableOf(layer.id);
    const r = (await pool.query(`SELECT count(*)::int AS n, count(DISTINCT fid)::int AS d, min(fid)::int AS lo, max(fid)::int AS hi, bool_and((tags->>'i')::int = fid - 1) AS ordered FROM ${t}`)).rows[0];
    expect(r).toEqual({ n: points.length, d: points.length, lo: 1, hi: points.length, ordered: true });
    // Autovacuum, off while loading, is back on for the finished layer.
    expect((await pool.query('SELECT reloptions FROM pg_class WHERE relname = $1', [t])).rows[0].reloptions).toBeNull();
    // Each fid's geometry is the point given for it.
    const some = (await pool.query(`SELECT fid::int, ST_X(geom) AS x, ST_Y(geom) AS y, ST_SRID(geom) AS srid FROM ${t} WHERE fid % 997 = 0`)).rows;
    for (const s of some) expect([s.x, s.y, s.srid]).toEqual([...points[s.fid - 1]!, 4326]);
    expect(checkedOut()).toBe(0);
  });

  it('answers within and nearest exactly as the haversine formula, across the antimeridian, at the poles and on ties', async () => {
    const probes: [Position, number][] = [
      [[179.99, 0.5], 40_000],
      [[-179.99, -3], 25_000],
      [[0, 89.9], 60_000],
      [[45, -89.95], 60_000],
      [[12.5, 41.9], 1],
      [[-70, 20], 300_000],
    ];
    for (const [p, metres] of probes) {
      const byDistance = points.map((q, i) => ({ fid: i + 1, d: haversine(p, q) })).sort((a, b) => a.d - b.d || a.fid - b.fid);
      const inside = byDistance.filter((x) => x.d <= metres);
      const got = await store.within(layer.id, p, metres);
      // Points within a micrometre of the edge could fall either side of a rounding: none here.
      expect(byDistance.some((x) => Math.abs(x.d - metres) < 1e-6)).toBe(false);
      expect(got.map((f) => f.fid)).toEqual(inside.map((x) => x.fid));
      // PostGIS's sphere is 3 cm smaller in radius (6,371,008.77 m): a few parts in a billion.
      got.forEach((f, i) => expect(Math.abs(f.distanceMeters - inside[i]!.d)).toBeLessThanOrEqual(1e-8 * inside[i]!.d + 1e-6));
      for (const k of [1, 7, 25]) {
        const near = await store.nearest(layer.id, p, k);
        expect(near.map((f) => f.fid)).toEqual(byDistance.slice(0, k).map((x) => x.fid));
      }
    }
    expect(checkedOut()).toBe(0);
  });
});

describe('what the binary rows carry', () => {
  it('keeps text (tabs, backslashes, non-ASCII, long values), drops NUL, and keeps every geometry type', async () => {
    const long = 'ü'.repeat(5_000) + 'x'.repeat(200);
    const geometries: Geometry[] = [
      { type: 'Point', coordinates: [1, 2] },
      { type: 'LineString', coordinates: [[0, 0], [1, 1], [2, 0]] },
      { type: 'Polygon', coordinates: [[[0, 0], [4, 0], [4, 4], [0, 4], [0, 0]], [[1, 1], [1, 2], [2, 2], [1, 1]]] },
      { type: 'MultiPoint', coordinates: [[3, 3], [4, 4]] },
      { type: 'MultiLineString', coordinates: [[[0, 0], [1, 0]], [[2, 2], [3, 3]]] },
      { type: 'MultiPolygon', coordinates: [[[[10, 10], [11, 10], [11, 11], [10, 10]]]] },
      { type: 'GeometryCollection', geometries: [{ type: 'Point', coordinates: [5, 5] }, { type: 'LineString', coordinates: [[5, 5], [6, 6]] }] },
    ];
    const features: LayerFeature[] = geometries.map((geometry, i) => ({
      sourceId: ['way/1', 'Straße\t1', 'a\\b', '東京', '🚲 rack', 'x\u0000y', long][i]!,
      sublayer: i % 2 ? undefined : ['roads', 'Bäche', 'π', 'z\u0000'][i / 2]!,
      geometry,
      properties: { name: `n${i}`, note: i === 6 ? long : 'tab\there "q" \\ \u0000end', n: i, ok: i % 2 === 0, skip: null },
    }));
    const w = await newLayer('odd text');
    await w.add(features);
    const info = await w.commit([]);
    expect(info.geometryTypes).toEqual(Object.fromEntries(geometries.map((g) => [g.type, 1])));
    const back = await store.inBBox(info.id, [-180, -90, 180, 90]);
    expect(back).toHaveLength(features.length);
    back.forEach((f, i) => {
      const src = features[i]!;
      const strip = (s: string) => s.split('\u0000').join('');
      expect(f.fid).toBe(i + 1);
      expect(f.sourceId).toBe(strip(src.sourceId));
      expect(f.sublayer).toBe(src.sublayer === undefined ? null : strip(src.sublayer));
      expect(f.geometry).toEqual(src.geometry);
      const { skip: _skip, ...tags } = src.properties;
      expect(f.tags).toEqual({ ...tags, note: strip(tags['note'] as string) });
    });
  });

  it('an import cancelled after rows went to both streams leaves no table, no row and no connection held', async () => {
    const w = await newLayer('cancelled');
    await w.add(Array.from({ length: 35_000 }, (_, i): LayerFeature => ({ sourceId: String(i), geometry: { type: 'Point', coordinates: [i / 1000, 1] }, properties: {} })));
    const n = (await pool.query("SELECT id FROM layers WHERE name = 'cancelled'")).rows[0].id as number;
    // Autovacuum stays off the table while it loads.
    expect((await pool.query(`SELECT reloptions FROM pg_class WHERE relname = 'layer_features_${n}'`)).rows[0].reloptions).toEqual(['autovacuum_enabled=false']);
    await w.abort();
    expect((await pool.query("SELECT count(*)::int AS n FROM layers WHERE name = 'cancelled'")).rows[0].n).toBe(0);
    expect((await pool.query(`SELECT to_regclass('layer_features_${n}') AS t`)).rows[0].t).toBeNull();
    expect(checkedOut()).toBe(0);
    // The pool's connections still work (no COPY left open on any of them).
    await Promise.all(Array.from({ length: 6 }, () => pool.query('SELECT 1')));
  });

  it('a row the database refuses fails the import with its message, and abort() cleans up', async () => {
    const w = await newLayer('refused');
    const points = Array.from({ length: 25_000 }, (_, i): LayerFeature => ({ sourceId: String(i), geometry: { type: 'Point', coordinates: [i / 1000, 1] }, properties: {} }));
    // An unclosed ring: PostGIS checks rings when it reads WKB.
    const open: LayerFeature = { sourceId: 'open ring', geometry: { type: 'Polygon', coordinates: [[[0, 0], [1, 0], [1, 1], [0, 1]]] }, properties: {} };
    const failed = (async () => {
      await w.add([...points.slice(0, 12_000), open, ...points.slice(12_000)]);
      await w.commit([]);
    })();
    await expect(failed).rejects.toThrow(/closed/i);
    await w.abort();
    expect((await pool.query("SELECT count(*)::int AS n FROM layers WHERE name = 'refused'")).rows[0].n).toBe(0);
    expect(checkedOut()).toBe(0);
    await Promise.all(Array.from({ length: 6 }, () => pool.query('SELECT 1')));
  });
});
