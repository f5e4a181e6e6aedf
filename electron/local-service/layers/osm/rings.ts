import type { Position } from 'geojson';
import { booleanPointInPolygon } from '@turf/turf';

const same = (a: Position, b: Position) => a[0] === b[0] && a[1] === b[1];

/**
 * Joins way segments end to end into closed rings (a multipolygon's outer boundary is often
 * several ways). Returns null when some segment cannot be closed: the relation is then broken
 * or incomplete in the extract.
 */
export function joinRings(lines: Position[][]): Position[][] | null {
  const left = lines.filter((l) => l.length >= 2).map((l) => l.slice());
  const rings: Position[][] = [];
  while (left.length) {
    const ring = left.shift()!;
    while (!same(ring[0]!, ring[ring.length - 1]!)) {
      const end = ring[ring.length - 1]!;
      const i = left.findIndex((l) => same(l[0]!, end) || same(l[l.length - 1]!, end));
      if (i < 0) return null;
      const next = left.splice(i, 1)[0]!;
      if (!same(next[0]!, end)) next.reverse();
      for (let k = 1; k < next.length; k++) ring.push(next[k]!);
    }
    if (ring.length < 4) return null;
    rings.push(ring);
  }
  return rings;
}

/** Twice the signed area (shoelace); positive when counter-clockwise. */
function signedArea(ring: Position[]): number {
  let s = 0;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) s += (ring[j]![0]! - ring[i]![0]!) * (ring[j]![1]! + ring[i]![1]!);
  return s;
}

/** RFC 7946 winding: outer rings counter-clockwise, holes clockwise. */
export function orient(ring: Position[], outer: boolean): Position[] {
  const ccw = signedArea(ring) > 0;
  return ccw === outer ? ring : ring.slice().reverse();
}

/** Puts each inner ring into the outer ring that holds it; inners that fit none are dropped and counted. */
export function nestRings(outers: Position[][], inners: Position[][]): { polygons: Position[][][]; orphans: number } {
  const polygons = outers.map((o) => [orient(o, true)]);
  let orphans = 0;
  for (const inner of inners) {
    const probe = inner[0]!;
    const home = polygons.find((p) => booleanPointInPolygon(probe, { type: 'Polygon', coordinates: [p[0]!] }));
    if (home) home.push(orient(inner, false));
    else orphans++;
  }
  return { polygons, orphans };
}
