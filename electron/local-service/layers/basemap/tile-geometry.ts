import type { Geometry, Position } from 'geojson';

/** A feature as vt-pbf encodes it (geojson-vt's tile format): 1 points, 2 lines, 3 rings; integer tile units. */
export interface TileFeature {
  type: 1 | 2 | 3;
  geometry: number[][] | number[][][];
  tags: Record<string, unknown>;
}

type XY = [number, number];

/** Longitude and latitude to tile units of tile z/x/y (Web Mercator, y down), one projection per position. */
export function tileProjector(z: number, x: number, y: number, extent: number): (p: Position) => XY {
  const n = 2 ** z;
  return ([lon, lat]) => {
    const s = Math.sin((Math.max(-85.0511, Math.min(85.0511, lat!)) * Math.PI) / 180);
    const wx = ((lon! + 180) / 360) * n;
    const wy = (0.5 - Math.log((1 + s) / (1 - s)) / (4 * Math.PI)) * n;
    return [(wx - x) * extent, (wy - y) * extent];
  };
}

/** Positions rounded to whole units, with repeats dropped (what rounding merges is not drawn twice). */
function rounded(points: XY[]): number[][] {
  const out: number[][] = [];
  for (const [px, py] of points) {
    const rx = Math.round(px);
    const ry = Math.round(py);
    const last = out[out.length - 1];
    if (!last || last[0] !== rx || last[1] !== ry) out.push([rx, ry]);
  }
  return out;
}

/**
 * How far (tile units) a line's vertex may lie from the straight line between the vertices kept
 * around it and still be dropped: a sixteenth of a pixel of a 256 px tile, a quarter of one where
 * the deepest tiles are enlarged four times. A street mapped as one way per block is one segment
 * per tile rather than a dozen, which is less to read and draw, and its name is drawn along a
 * straight piece as one label rather than letter by letter.
 */
const LINE_TOLERANCE = 1;

/** A line with the vertices within LINE_TOLERANCE of the line through their kept neighbours dropped (Douglas–Peucker, no recursion). */
export function simplifiedLine(line: number[][], tolerance = LINE_TOLERANCE): number[][] {
  if (line.length < 3) return line;
  const keep = new Uint8Array(line.length);
  keep[0] = keep[line.length - 1] = 1;
  const spans: number[] = [0, line.length - 1];
  const t2 = tolerance * tolerance;
  while (spans.length) {
    const b = spans.pop()!;
    const a = spans.pop()!;
    const [ax, ay] = line[a] as [number, number];
    const [bx, by] = line[b] as [number, number];
    const dx = bx - ax;
    const dy = by - ay;
    const len2 = dx * dx + dy * dy;
    let worst = -1;
    let worstD = t2;
    for (let i = a + 1; i < b; i++) {
      const [px, py] = line[i] as [number, number];
      // Distance to the segment a–b (to a itself where it has no length), squared.
      const t = len2 === 0 ? 0 : Math.max(0, Math.min(1, ((px - ax) * dx + (py - ay) * dy) / len2));
      const ex = px - (ax + t * dx);
      const ey = py - (ay + t * dy);
      const d = ex * ex + ey * ey;
      if (d > worstD) {
        worstD = d;
        worst = i;
      }
    }
    if (worst < 0) continue;
    keep[worst] = 1;
    spans.push(a, worst, worst, b);
  }
  return line.filter((_, i) => keep[i]);
}

/** A line cut to the box [lo, hi]² (Liang–Barsky per segment), as the pieces inside it. */
function clipLine(line: XY[], lo: number, hi: number): XY[][] {
  if (inside(line, lo, hi)) return [line];
  const pieces: XY[][] = [];
  let cur: XY[] = [];
  for (let i = 1; i < line.length; i++) {
    const [x0, y0] = line[i - 1]!;
    const [x1, y1] = line[i]!;
    const dx = x1 - x0;
    const dy = y1 - y0;
    let t0 = 0;
    let t1 = 1;
    let inside = true;
    for (const [p, q] of [[-dx, x0 - lo], [dx, hi - x0], [-dy, y0 - lo], [dy, hi - y0]] as const) {
      if (p === 0) {
        if (q < 0) inside = false;
        continue;
      }
      const t = q / p;
      if (p < 0) t0 = Math.max(t0, t);
      else t1 = Math.min(t1, t);
    }
    if (!inside || t0 > t1) {
      if (cur.length > 1) pieces.push(cur);
      cur = [];
      continue;
    }
    const a: XY = [x0 + t0 * dx, y0 + t0 * dy];
    const b: XY = [x0 + t1 * dx, y0 + t1 * dy];
    if (!cur.length) cur.push(a);
    cur.push(b);
    // Left the box within this segment: the piece ends here.
    if (t1 < 1) {
      pieces.push(cur);
      cur = [];
    }
  }
  if (cur.length > 1) pieces.push(cur);
  return pieces;
}

/** Whether every point is within the box [lo, hi]²: most of a street tile's features are, and need no cutting. */
function inside(points: XY[], lo: number, hi: number): boolean {
  for (const [px, py] of points) if (px < lo || px > hi || py < lo || py > hi) return false;
  return true;
}

/** A ring cut to the box (Sutherland–Hodgman, one edge at a time), closed; empty when nothing is inside. */
function clipRing(ring: XY[], lo: number, hi: number): XY[] {
  if (inside(ring, lo, hi)) return ring;
  let pts = ring;
  const edges: [(p: XY) => boolean, (a: XY, b: XY) => XY][] = [
    [(p) => p[0] >= lo, (a, b) => [lo, a[1] + ((b[1] - a[1]) * (lo - a[0])) / (b[0] - a[0])]],
    [(p) => p[0] <= hi, (a, b) => [hi, a[1] + ((b[1] - a[1]) * (hi - a[0])) / (b[0] - a[0])]],
    [(p) => p[1] >= lo, (a, b) => [a[0] + ((b[0] - a[0]) * (lo - a[1])) / (b[1] - a[1]), lo]],
    [(p) => p[1] <= hi, (a, b) => [a[0] + ((b[0] - a[0]) * (hi - a[1])) / (b[1] - a[1]), hi]],
  ];
  for (const [inside, cross] of edges) {
    if (pts.every(inside)) continue;
    const out: XY[] = [];
    for (let i = 0; i < pts.length; i++) {
      const a = pts[(i + pts.length - 1) % pts.length]!;
      const b = pts[i]!;
      if (inside(b)) {
        if (!inside(a)) out.push(cross(a, b));
        out.push(b);
      } else if (inside(a)) out.push(cross(a, b));
    }
    pts = out;
    if (!pts.length) return [];
  }
  return pts;
}

/** Twice the ring's signed area in tile units (y down: positive is clockwise on screen). */
const area = (r: number[][]) => {
  let s = 0;
  for (let i = 0, j = r.length - 1; i < r.length; j = i++) s += (r[i]![0]! - r[j]![0]!) * (r[i]![1]! + r[j]![1]!);
  return s;
};

/**
 * A geometry in tile units, cut to the tile and its buffer: what vt-pbf writes. Outer rings
 * clockwise and holes anticlockwise on screen, as readers tell them apart; null when nothing of it
 * is in the tile.
 */
export function toTileFeature(g: Geometry, project: (p: Position) => XY, extent: number, buffer: number, tags: Record<string, unknown>): TileFeature | null {
  const lo = -buffer;
  const hi = extent + buffer;
  switch (g.type) {
    case 'Point':
    case 'MultiPoint': {
      const pts = (g.type === 'Point' ? [g.coordinates] : g.coordinates).map(project).filter(([px, py]) => px >= lo && px <= hi && py >= lo && py <= hi);
      return pts.length ? { type: 1, geometry: pts.map(([px, py]) => [Math.round(px), Math.round(py)]), tags } : null;
    }
    case 'LineString':
    case 'MultiLineString': {
      const lines = g.type === 'LineString' ? [g.coordinates] : g.coordinates;
      const out = lines.flatMap((l) => clipLine(l.map(project), lo, hi)).map((l) => simplifiedLine(rounded(l))).filter((l) => l.length > 1);
      return out.length ? { type: 2, geometry: out, tags } : null;
    }
    case 'Polygon':
    case 'MultiPolygon': {
      const polys = g.type === 'Polygon' ? [g.coordinates] : g.coordinates;
      const rings: number[][][] = [];
      for (const poly of polys)
        for (let k = 0; k < poly.length; k++) {
          const ring = poly[k]!;
          const first = ring[0]!;
          const last = ring[ring.length - 1]!;
          // Without the closing position: the clipper works on open rings; closed again below.
          const open = ring.length > 1 && first[0] === last[0] && first[1] === last[1] ? ring.slice(0, -1) : ring;
          const r = rounded(clipRing(open.map(project), lo, hi));
          const a = r.length < 3 ? 0 : area(r);
          if (a === 0) {
            // An outer ring with nothing in the tile takes its holes with it.
            if (k === 0) break;
            continue;
          }
          // geojson-vt's winding, which readers (OpenLayers' MVT among them) tell outer rings from holes by.
          if (a > 0 === (k === 0)) r.reverse();
          r.push([r[0]![0]!, r[0]![1]!]);
          rings.push(r);
        }
      return rings.length ? { type: 3, geometry: rings, tags } : null;
    }
    case 'GeometryCollection': {
      const parts = g.geometries.map((p) => toTileFeature(p, project, extent, buffer, tags)).filter((p) => p !== null);
      return parts[0] ?? null;
    }
  }
}
