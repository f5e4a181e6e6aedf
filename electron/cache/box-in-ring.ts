import pointInPolygon from 'point-in-polygon-hao';
import type { BBox } from './spatial';

/**
 * Where a box lies against a closed ring: wholly inside, wholly outside, or across an edge
 * (touching an edge counts as across). History filters ask this of every run of features, so
 * it is a plain loop over the ring's edges with no allocation, not a GeoJSON overlay.
 */
export function boxAgainstRing(box: BBox, ring: [number, number][]): 'inside' | 'outside' | 'across' {
  const minx = box[0];
  const miny = box[1];
  const maxx = box[2];
  const maxy = box[3];
  let prev = ring[0]!;
  for (let i = 1; i < ring.length; i++) {
    const next = ring[i]!;
    if (segmentMeetsBox(prev[0], prev[1], next[0], next[1], minx, miny, maxx, maxy)) return 'across';
    prev = next;
  }
  // No edge meets the box: the whole box is on one side, the side of its centre.
  return pointInPolygon([(minx + maxx) / 2, (miny + maxy) / 2], [ring]) === true ? 'inside' : 'outside';
}

/** Liang-Barsky: whether any point of the segment (x0, y0)-(x1, y1) lies in the closed box. */
export function segmentMeetsBox(x0: number, y0: number, x1: number, y1: number, minx: number, miny: number, maxx: number, maxy: number): boolean {
  // Cheap rejection first: the segment's own box does not meet the box.
  if ((x0 < minx && x1 < minx) || (x0 > maxx && x1 > maxx) || (y0 < miny && y1 < miny) || (y0 > maxy && y1 > maxy)) return false;
  const dx = x1 - x0;
  const dy = y1 - y0;
  // Each side of the box: p is the segment's direction across it, q how far inside the start is.
  const ps = [-dx, dx, -dy, dy];
  const qs = [x0 - minx, maxx - x0, y0 - miny, maxy - y0];
  let t0 = 0;
  let t1 = 1;
  for (let k = 0; k < 4; k++) {
    const p = ps[k]!;
    const q = qs[k]!;
    if (p === 0) {
      if (q < 0) return false;
      continue;
    }
    const r = q / p;
    if (p < 0) {
      if (r > t1) return false;
      if (r > t0) t0 = r;
    } else {
      if (r < t0) return false;
      if (r < t1) t1 = r;
    }
  }
  return true;
}
