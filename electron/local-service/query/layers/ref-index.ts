import Flatbush from 'flatbush';
import type { Geometry, Position } from 'geojson';
import { bboxOf, EARTH_RADIUS_M, type BBox } from '../../layers/store/geo';
import { geometryDistance } from './geometry';

/** Grows a box by metres on every side (a spherical cap's latitude span, longitude widened at its far edge). */
export function growBox(b: BBox, metres: number): BBox {
  const dLat = ((metres / EARTH_RADIUS_M) * 180) / Math.PI * 1.01;
  const far = Math.min(89.9, Math.max(Math.abs(b[1] - dLat), Math.abs(b[3] + dLat)));
  const dLon = Math.min(180, dLat / Math.cos((far * Math.PI) / 180));
  return [Math.max(-180, b[0] - dLon), Math.max(-90, b[1] - dLat), Math.min(180, b[2] + dLon), Math.min(90, b[3] + dLat)];
}

/** Segments per piece of a long line: each piece gets its own box in the index. */
const PIECE = 8;

/**
 * A geometry as parts with the same nearest distance: lines cut into short pieces (so a long
 * route is measured only where it comes near), anything else whole (a polygon's inside counts).
 */
export function piecesOf(g: Geometry): Geometry[] {
  const cut = (line: Position[]): Geometry[] => {
    if (line.length <= PIECE + 1) return [{ type: 'LineString', coordinates: line }];
    const out: Geometry[] = [];
    for (let i = 0; i < line.length - 1; i += PIECE) out.push({ type: 'LineString', coordinates: line.slice(i, i + PIECE + 1) });
    return out;
  };
  if (g.type === 'LineString') return cut(g.coordinates);
  if (g.type === 'MultiLineString') return g.coordinates.flatMap(cut);
  if (g.type === 'GeometryCollection') return g.geometries.flatMap(piecesOf);
  return [g];
}

/** Below this many geometries a plain loop is as quick as an index. */
const SMALL = 32;

const RAD = Math.PI / 180;
/** Great-circle metres on the sphere turf measures on (haversine). */
function arcMetres(lon1: number, lat1: number, lon2: number, lat2: number): number {
  const s1 = Math.sin(((lat2 - lat1) * RAD) / 2);
  const s2 = Math.sin(((lon2 - lon1) * RAD) / 2);
  const h = s1 * s1 + Math.cos(lat1 * RAD) * Math.cos(lat2 * RAD) * s2 * s2;
  return 2 * EARTH_RADIUS_M * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** Every vertex of a geometry, without copying. */
function eachVertex(g: Geometry, f: (p: Position) => void): void {
  switch (g.type) {
    case 'Point':
      return f(g.coordinates);
    case 'MultiPoint':
    case 'LineString':
      return g.coordinates.forEach(f);
    case 'MultiLineString':
    case 'Polygon':
      return g.coordinates.forEach((r) => r.forEach(f));
    case 'MultiPolygon':
      return g.coordinates.forEach((p) => p.forEach((r) => r.forEach(f)));
    case 'GeometryCollection':
      return g.geometries.forEach((c) => eachVertex(c, f));
  }
}

/** A spherical cap holding a geometry: a centre vertex and the farthest vertex's distance from it. */
export interface Cap {
  lon: number;
  lat: number;
  r: number;
}

/** Caps this wide or wider are not convex: the geometry may leave them, so they bound nothing. */
const MAX_CAP_M = (Math.PI / 2) * EARTH_RADIUS_M * 0.99;

/**
 * The cap around a geometry, or null when it bounds nothing. A cap under a quarter of the globe is
 * convex, so the great-circle edges (and a polygon's inside) between vertices stay in it.
 */
export function capOf(g: Geometry): Cap | null {
  let first: Position | undefined;
  eachVertex(g, (p) => void (first ??= p));
  if (!first) return null;
  // The middle of the vertices' box as the centre keeps the cap small for a line piece.
  const b = bboxOf(g)!;
  const lon = (b[0] + b[2]) / 2;
  const lat = (b[1] + b[3]) / 2;
  let r = 0;
  eachVertex(g, (p) => void (r = Math.max(r, arcMetres(lon, lat, p[0]!, p[1]!))));
  return r < MAX_CAP_M ? { lon, lat, r } : null;
}

/** Slack for the rounding of two distance formulas: a lower bound never passes the exact distance. */
const SLACK_M = 1;

/** Metres that no point of two capped geometries can be closer than (0 when a cap is missing). */
export function capLowerBound(a: Cap | null, b: Cap | null): number {
  if (!a || !b) return 0;
  return Math.max(0, arcMetres(a.lon, a.lat, b.lon, b.lat) * (1 - 1e-9) - a.r - b.r - SLACK_M);
}

/**
 * The geometries of a reference (every substation, a river) with a box index, so the distance
 * from a candidate to the nearest of thousands is measured only against those whose boxes come
 * near it, never against all.
 */
export function referenceIndex(geoms: readonly Geometry[]) {
  const boxes = geoms.map((g) => bboxOf(g));
  const caps = geoms.map(capOf);
  let index: Flatbush | null = null;
  if (geoms.length > SMALL) {
    index = new Flatbush(geoms.length);
    // An empty geometry gets an empty box so the ids still line up.
    for (const b of boxes) {
      if (b) index.add(b[0], b[1], b[2], b[3]);
      else index.add(0, 0, -1, -1);
    }
    index.finish();
  }
  /**
   * The least exact distance from g to the geometries `ids`, up to `bound` (past it: Infinity).
   * Each geometry's cap gives a lower bound: the nearest cap is measured first, and one whose bound
   * is past the best distance so far is not measured, so a long route costs its near pieces only.
   */
  const exact = (g: Geometry, ids: Iterable<number>, bound = Infinity) => {
    const cap = capOf(g);
    const near: number[] = [];
    const lbs: number[] = [];
    let first = -1;
    for (const i of ids) {
      if (!boxes[i]) continue;
      const lb = capLowerBound(cap, caps[i]!);
      if (lb > bound) continue;
      if (first < 0 || lb < lbs[first]!) first = near.length;
      near.push(i);
      lbs.push(lb);
    }
    if (first < 0) return Infinity;
    // The nearest cap first sets a best distance that most others' bounds are already past.
    let best = geometryDistance(g, geoms[near[first]!]!);
    for (let k = 0; k < near.length; k++) if (k !== first && lbs[k]! < best) best = Math.min(best, geometryDistance(g, geoms[near[k]!]!));
    return best <= bound ? best : Infinity;
  };
  const all = () => geoms.keys();
  return {
    size: geoms.length,
    /** Up to `n` vertices of the geometries, spread evenly over them: points on the reference. */
    vertices(n: number): Position[] {
      const all: Position[] = [];
      for (const g of geoms) eachVertex(g, (p) => void all.push(p));
      if (all.length <= n) return all;
      return Array.from({ length: n }, (_, k) => all[Math.floor((k * (all.length - 1)) / (n - 1))]!);
    },
    /** Metres to the nearest reference geometry if it is within `metres`, else Infinity. */
    within(g: Geometry, metres: number): number {
      const b = bboxOf(g);
      if (!b) return Infinity;
      const [x0, y0, x1, y1] = growBox(b, metres);
      if (!index) {
        // Only those whose box comes near: a long route is measured against few candidates.
        return exact(g, [...all()].filter((i) => { const o = boxes[i]; return !!o && o[0] <= x1 && o[2] >= x0 && o[1] <= y1 && o[3] >= y0; }), metres);
      }
      return exact(g, index.search(x0, y0, x1, y1), metres);
    },
    /** Metres to the nearest reference geometry. */
    nearest(g: Geometry): number {
      if (!index) return exact(g, all());
      const b = bboxOf(g);
      if (!b) return Infinity;
      // Widen a box search until something is found, then once more by that distance: whatever is
      // nearer lies inside it.
      for (let r = 1000; r < Math.PI * EARTH_RADIUS_M; r *= 4) {
        const [x0, y0, x1, y1] = growBox(b, r);
        const hits = index.search(x0, y0, x1, y1);
        if (!hits.length) continue;
        const d = exact(g, hits);
        if (d <= r) return d;
        const [a0, b0, a1, b1] = growBox(b, d);
        return exact(g, index.search(a0, b0, a1, b1));
      }
      return exact(g, all());
    },
  };
}
