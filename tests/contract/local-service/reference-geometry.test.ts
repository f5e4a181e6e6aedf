import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ComputeResponse } from '../../../shared/service/compute';
import { computeForm, fileForm, startService, stopService, type Running } from './harness';
import { airports, apLat, apLon, km, type RawAirport } from './raw';

/**
 * An uploaded line or polygon as the reference of a distance: measured to the geometry (0 inside
 * a polygon), not to the mean of its vertices. Expected sets come from a brute force here: each
 * edge cut into ~50 m steps along its great circle, the least haversine to any step.
 */
let r: Running;
beforeAll(async () => {
  r = await startService();
});
afterAll(() => stopService(r));

type P = [number, number];
const RAD = Math.PI / 180;
const toVec = ([lon, lat]: P) => [Math.cos(lat * RAD) * Math.cos(lon * RAD), Math.cos(lat * RAD) * Math.sin(lon * RAD), Math.sin(lat * RAD)];
const toLonLat = ([x, y, z]: number[]): P => [Math.atan2(y!, x!) / RAD, Math.atan2(z!, Math.hypot(x!, y!)) / RAD];

/** Points every ~50 m along the great circle from a to b (spherical interpolation). */
function densify(a: P, b: P): P[] {
  const va = toVec(a);
  const vb = toVec(b);
  const omega = Math.acos(Math.min(1, va[0]! * vb[0]! + va[1]! * vb[1]! + va[2]! * vb[2]!));
  const n = Math.max(1, Math.ceil(km(a[0], a[1], b[0], b[1]) / 0.05));
  const out: P[] = [];
  for (let i = 0; i <= n; i++) {
    const t = i / n;
    const s0 = Math.sin((1 - t) * omega) / Math.sin(omega);
    const s1 = Math.sin(t * omega) / Math.sin(omega);
    out.push(toLonLat([0, 1, 2].map((k) => s0 * va[k]! + s1 * vb[k]!)));
  }
  return out;
}
const densePath = (line: P[]) => line.slice(1).flatMap((b, i) => densify(line[i]!, b));
/** Least km from a point to the dense path, its neighbours found in a coarse box first. */
function leastKm(path: P[], lon: number, lat: number): number {
  let best = Infinity;
  for (const [x, y] of path) if (Math.abs(y - lat) < 3 && Math.abs(x - lon) < 4) best = Math.min(best, km(lon, lat, x, y));
  return best;
}
/** Ray crossing test on longitude/latitude (the ring is small: its edges are near straight there). */
function inRing(ring: P[], lon: number, lat: number): boolean {
  let inside = false;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    const [xi, yi] = ring[i]!;
    const [xj, yj] = ring[j]!;
    if (yi > lat !== yj > lat && lon < ((xj - xi) * (lat - yi)) / (yj - yi) + xi) inside = !inside;
  }
  return inside;
}
const meanOf = (ps: P[]): P => [ps.reduce((s, p) => s + p[0], 0) / ps.length, ps.reduce((s, p) => s + p[1], 0) / ps.length];

const MAX = 2000;
const byId = (res: ComputeResponse) => new Map(res.results.features.map((f) => [String(f.properties.source_id), f.properties.distance_meters as number | undefined]));
/** Items within a hair of the radius are not judged: the brute force's steps are 50 m apart. */
const BAND_KM = 0.1;

function judge(res: ComputeResponse, truth: (a: RawAirport) => number, radiusKm: number) {
  const got = byId(res);
  const near = airports.filter((a) => truth(a) <= radiusKm - BAND_KM);
  const far = new Set(airports.filter((a) => truth(a) > radiusKm + BAND_KM).map((a) => a.id));
  for (const a of near) expect(got.has(a.id), `${a.id} ${a.name} at ${truth(a).toFixed(2)} km`).toBe(true);
  for (const id of got.keys()) expect(far.has(id), `${id} is farther than ${radiusKm} km`).toBe(false);
  for (const a of near) expect(Math.abs(got.get(a.id)! / 1000 - truth(a))).toBeLessThan(BAND_KM);
  return near;
}

describe('distance to an uploaded line', () => {
  // Paris to Lyon by Dijon: the mean of its vertices lies near Auxerre, far from both ends.
  const route: P[] = [[2.35, 48.86], [3.6, 47.8], [5.04, 47.32], [4.84, 45.76]];
  const text = JSON.stringify({ type: 'Feature', properties: { name: 'route' }, geometry: { type: 'LineString', coordinates: route } });
  const path = densePath(route);
  const truth = (a: RawAirport) => leastKm(path, apLon(a), apLat(a));

  it('"airports within 15 km of my route": to the line, not to its vertices\' mean', async () => {
    const res = await computeForm(r, fileForm({ query: 'airports within 15 km of my route', limit: String(MAX) }, [{ name: 'route.geojson', text }]));
    const near = judge(res, truth, 15);
    expect(near.length).toBeGreaterThan(5);
    // The vertex-mean reading would hold none of the airports at either end of the route.
    const [mx, my] = meanOf(route);
    const byMean = near.filter((a) => km(apLon(a), apLat(a), mx, my) <= 15);
    expect(byMean.length).toBeLessThan(near.length / 4);
    const end = (p: P) => near.some((a) => km(apLon(a), apLat(a), p[0], p[1]) < 20);
    expect(end(route[0]!) && end(route.at(-1)!)).toBe(true);
  });

  it('a route of many vertices (measured piece by piece) gives the same set', async () => {
    const many = path.filter((_, i) => i % 40 === 0).concat([route.at(-1)!]);
    expect(many.length).toBeGreaterThan(100);
    const long = JSON.stringify({ type: 'Feature', properties: { name: 'route' }, geometry: { type: 'LineString', coordinates: many } });
    const res = await computeForm(r, fileForm({ query: 'airports within 15 km of my route', limit: String(MAX) }, [{ name: 'route.geojson', text: long }]));
    expect(judge(res, truth, 15).length).toBeGreaterThan(5);
  });

  it('"the 5 nearest airports to my route" over a route of many vertices: the same five as the brute force', async () => {
    const many = path.filter((_, i) => i % 40 === 0).concat([route.at(-1)!]);
    const long = JSON.stringify({ type: 'Feature', properties: { name: 'route' }, geometry: { type: 'LineString', coordinates: many } });
    const res = await computeForm(r, fileForm({ query: 'the 5 nearest airports to my route' }, [{ name: 'route.geojson', text: long }]));
    const want = airports.map((a) => ({ id: a.id, d: truth(a) })).sort((a, b) => a.d - b.d);
    const got = res.results.features.map((f) => ({ id: String(f.properties.source_id), d: (f.properties.distance_meters as number) / 1000 }));
    expect(got).toHaveLength(5);
    for (const [i, g] of got.entries()) expect(Math.abs(g.d - want[i]!.d)).toBeLessThan(BAND_KM);
    for (const g of got) expect(truth(airports.find((a) => a.id === g.id)!)).toBeLessThanOrEqual(want[4]!.d + BAND_KM);
  });

  it('"nearest airports to my route": ranked by the distance to the line', async () => {
    const res = await computeForm(r, fileForm({ query: 'the 5 nearest airports to my route' }, [{ name: 'route.geojson', text }]));
    const want = airports.map((a) => ({ id: a.id, d: truth(a) })).sort((a, b) => a.d - b.d);
    const got = res.results.features.map((f) => ({ id: String(f.properties.source_id), d: (f.properties.distance_meters as number) / 1000 }));
    expect(got).toHaveLength(5);
    for (const [i, g] of got.entries()) expect(Math.abs(g.d - want[i]!.d)).toBeLessThan(BAND_KM);
    // Each is among the true nearest (ties within the band aside).
    for (const g of got) expect(truth(airports.find((a) => a.id === g.id)!)).toBeLessThanOrEqual(want[4]!.d + BAND_KM);
  });
});

describe('distance to an uploaded polygon', () => {
  // A narrow band along the Rhône valley: long, so its vertex mean is far from its ends.
  const ring: P[] = [[4.7, 45.6], [5.0, 45.6], [4.95, 44.0], [4.65, 44.0], [4.7, 45.6]];
  const text = JSON.stringify({ type: 'Feature', properties: { name: 'valley' }, geometry: { type: 'Polygon', coordinates: [ring] } });
  const path = densePath(ring);
  const truth = (a: RawAirport) => (inRing(ring, apLon(a), apLat(a)) ? 0 : leastKm(path, apLon(a), apLat(a)));

  it('"airports within 20 km of my area": 0 inside, to the edge outside', async () => {
    const res = await computeForm(r, fileForm({ query: 'airports within 20 km of my area', limit: String(MAX) }, [{ name: 'valley.geojson', text }]));
    const near = judge(res, truth, 20);
    const inside = near.filter((a) => truth(a) === 0);
    expect(inside.length).toBeGreaterThan(1);
    for (const a of inside) expect(byId(res).get(a.id)).toBe(0);
    expect(near.some((a) => truth(a) > 0)).toBe(true);
    const [mx, my] = meanOf(ring.slice(0, -1));
    expect(near.filter((a) => km(apLon(a), apLat(a), mx, my) <= 20).length).toBeLessThan(near.length / 4);
  });
});
