import { booleanPointInPolygon, distance, pointToLineDistance } from '@turf/turf';
import type { Geometry, Position } from 'geojson';

/** Mean earth radius turf uses (metres): boxes and distances agree on one sphere. */
export const EARTH_RADIUS_M = 6371008.8;

export type BBox = [minLon: number, minLat: number, maxLon: number, maxLat: number];

/**
 * Metres from a point to the nearest point of a geometry (great-circle, turf): 0 inside a
 * polygon, else to its nearest edge; to a line, its nearest segment; to a multi-part geometry,
 * its nearest part.
 */
export function distanceToGeometry(p: Position, g: Geometry): number {
  switch (g.type) {
    case 'Point':
      return distance(p, g.coordinates, { units: 'meters' });
    case 'MultiPoint':
      return least(g.coordinates, (c) => distance(p, c, { units: 'meters' }));
    case 'LineString':
      return lineDistance(p, g.coordinates);
    case 'MultiLineString':
      return least(g.coordinates, (l) => lineDistance(p, l));
    case 'Polygon':
      return polygonDistance(p, g.coordinates);
    case 'MultiPolygon':
      return least(g.coordinates, (poly) => polygonDistance(p, poly));
    case 'GeometryCollection':
      return least(g.geometries, (c) => distanceToGeometry(p, c));
  }
}

/** The least of f over a list, in a loop: Math.min(...list) overflows the stack on a large one. */
function least<T>(list: readonly T[], f: (x: T) => number): number {
  let m = Infinity;
  for (let i = 0; i < list.length; i++) m = Math.min(m, f(list[i]!));
  return m;
}

function lineDistance(p: Position, line: Position[]): number {
  if (line.length === 1) return distance(p, line[0]!, { units: 'meters' });
  return pointToLineDistance(p, { type: 'LineString', coordinates: line }, { units: 'meters' });
}

function polygonDistance(p: Position, rings: Position[][]): number {
  if (booleanPointInPolygon(p, { type: 'Polygon', coordinates: rings })) return 0;
  return least(rings, (r) => lineDistance(p, r));
}

/** Whether a point lies in (or on the edge of) a polygon or multipolygon; false for other types. */
export function containsPoint(g: Geometry, p: Position): boolean {
  if (g.type === 'Polygon' || g.type === 'MultiPolygon') return booleanPointInPolygon(p, g);
  if (g.type === 'GeometryCollection') return g.geometries.some((c) => containsPoint(c, p));
  return false;
}

/** The bounding box of any geometry; null for an empty one. Loops, not recursion: it runs once per imported feature. */
export function bboxOf(g: Geometry): BBox | null {
  const b: BBox = [Infinity, Infinity, -Infinity, -Infinity];
  addToBox(b, g);
  return b[0] <= b[2] && b[1] <= b[3] && Number.isFinite(b[0]) && Number.isFinite(b[1]) ? b : null;
}

function addPositions(b: BBox, ps: Position[]): void {
  for (let i = 0; i < ps.length; i++) {
    const x = ps[i]![0]!;
    const y = ps[i]![1]!;
    if (x < b[0]) b[0] = x;
    if (y < b[1]) b[1] = y;
    if (x > b[2]) b[2] = x;
    if (y > b[3]) b[3] = y;
  }
}

function addToBox(b: BBox, g: Geometry): void {
  switch (g.type) {
    case 'Point':
      if (g.coordinates.length >= 2) addPositions(b, [g.coordinates]);
      return;
    case 'MultiPoint':
    case 'LineString':
      addPositions(b, g.coordinates);
      return;
    case 'MultiLineString':
    case 'Polygon':
      for (const r of g.coordinates) addPositions(b, r);
      return;
    case 'MultiPolygon':
      for (const p of g.coordinates) for (const r of p) addPositions(b, r);
      return;
    case 'GeometryCollection':
      for (const c of g.geometries) addToBox(b, c);
      return;
  }
}

/**
 * Boxes that hold every point within `metres` of `p` (a spherical cap's bounds, 1 % wider for
 * rounding), split in two where it crosses the antimeridian.
 */
export function boxesAround(p: Position, metres: number): BBox[] {
  const [lon, lat] = p as [number, number];
  const dLat = ((metres / EARTH_RADIUS_M) * 180) / Math.PI * 1.01;
  const s = Math.max(-90, lat - dLat);
  const n = Math.min(90, lat + dLat);
  const far = Math.max(Math.abs(s), Math.abs(n));
  if (far >= 89.999 || dLat >= 90) return [[-180, s, 180, n]];
  const dLon = Math.min(180, dLat / Math.cos((far * Math.PI) / 180));
  if (dLon >= 180) return [[-180, s, 180, n]];
  const w = lon - dLon;
  const e = lon + dLon;
  if (w < -180) return [[w + 360, s, 180, n], [-180, s, e, n]];
  if (e > 180) return [[w, s, 180, n], [-180, s, e - 360, n]];
  return [[w, s, e, n]];
}

/** Cells per side of the Hilbert curve over the whole lon/lat plane: 2^26 (about 0.6 m). */
const HILBERT_ORDER = 26;
const HILBERT_SIDE = 2 ** HILBERT_ORDER;

/**
 * A point's distance along a Hilbert curve over [-180, 180] x [-90, 90] (below 2^52): points
 * close on the curve are close on the ground, so runs of consecutive keys make compact boxes.
 */
export function hilbertKey(lon: number, lat: number): number {
  let x = Math.min(HILBERT_SIDE - 1, Math.max(0, Math.floor(((lon + 180) / 360) * HILBERT_SIDE)));
  let y = Math.min(HILBERT_SIDE - 1, Math.max(0, Math.floor(((lat + 90) / 180) * HILBERT_SIDE)));
  let d = 0;
  for (let s = HILBERT_SIDE / 2; s >= 1; s /= 2) {
    const rx = (x & s) > 0 ? 1 : 0;
    const ry = (y & s) > 0 ? 1 : 0;
    // s * s * 3 stays below 2^52: exact in a double, where shifts would wrap at 32 bits.
    d += s * s * ((3 * rx) ^ ry);
    if (ry === 0) {
      if (rx === 1) {
        x = HILBERT_SIDE - 1 - x;
        y = HILBERT_SIDE - 1 - y;
      }
      const t = x;
      x = y;
      y = t;
    }
  }
  return d;
}
