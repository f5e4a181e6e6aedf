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

/**
 * The geometries of a reference (every substation, a river) with a box index, so the distance
 * from a candidate to the nearest of thousands is measured only against those whose boxes come
 * near it, never against all.
 */
export function referenceIndex(geoms: readonly Geometry[]) {
  const boxes = geoms.map((g) => bboxOf(g));
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
  const exact = (g: Geometry, ids: Iterable<number>) => {
    let best = Infinity;
    for (const i of ids) if (boxes[i]) best = Math.min(best, geometryDistance(g, geoms[i]!));
    return best;
  };
  const all = () => geoms.keys();
  return {
    size: geoms.length,
    /** Metres to the nearest reference geometry if it is within `metres`, else Infinity. */
    within(g: Geometry, metres: number): number {
      const b = bboxOf(g);
      if (!b) return Infinity;
      const [x0, y0, x1, y1] = growBox(b, metres);
      if (!index) {
        // Only those whose box comes near: a long route is measured against few candidates.
        const d = exact(g, [...all()].filter((i) => { const o = boxes[i]; return !!o && o[0] <= x1 && o[2] >= x0 && o[1] <= y1 && o[3] >= y0; }));
        return d <= metres ? d : Infinity;
      }
      const d = exact(g, index.search(x0, y0, x1, y1));
      return d <= metres ? d : Infinity;
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
