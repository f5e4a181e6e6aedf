import { around, distance } from 'geokdbush';
import KDBush from 'kdbush';
import type { Geometry, Position } from 'geojson';
import type { Slicer } from '../uploads';
import type { Item } from './item';
import type { referenceIndex } from './layers/ref-index';

/** Candidates measured between two looks at the slicer's clock. */
const SLICE_STEP = 1024;

/**
 * Distances of the items that can be among the `top` nearest to a reference geometry; the others
 * are left without one (they sort last and are cut). A bound first: each sampled vertex of the
 * reference lies on it, so an item's distance to the nearest sampled vertex is at least its
 * distance to the reference, and the top-th least of those bounds every answer. Then each item is
 * measured only up to that bound, where the reference index reads just the pieces near it.
 */
export async function measureNearest(
  items: Item[],
  top: number,
  index: ReturnType<typeof referenceIndex>,
  at: (x: Item) => Position,
  geometryOf: (x: Item) => Geometry | null,
  slice?: Slicer,
): Promise<void> {
  if (!items.length || top <= 0) return;
  // An item's position lies on it, so its distance to a vertex still bounds the item's distance to the reference.
  const pos = items.map(at);
  const points = new KDBush(items.length);
  for (const p of pos) points.add(p[0]!, p[1]!);
  points.finish();
  const vertices = index.vertices(SAMPLED_VERTICES);
  const upper = new Map<number, number>();
  for (const v of vertices) {
    const vlon = v[0]!;
    const vlat = v[1]!;
    for (const j of around(points, vlon, vlat, top)) {
      const km = distance(pos[j]![0]!, pos[j]![1]!, vlon, vlat);
      upper.set(j, Math.min(upper.get(j) ?? Infinity, km));
    }
  }
  const bounds = [...upper.values()].sort((a, b) => a - b);
  // Fewer bounded items than asked for: every item is measured.
  // geokdbush measures on a 6,371 km sphere, turf on 6,371.0088 km: the bound is widened past both.
  const boundM = bounds.length >= top ? bounds[top - 1]! * 1000 * (1 + 1e-5) + 1 : Infinity;
  let seen = 0;
  for (const [j, x] of items.entries()) {
    if (slice && ++seen % SLICE_STEP === 0 && slice.due()) await slice.pause();
    const p = geometryOf(x) ?? { type: 'Point' as const, coordinates: pos[j]! };
    const m = Number.isFinite(boundM) ? index.within(p, boundM) : index.nearest(p);
    if (Number.isFinite(m)) x.d = m;
  }
}

/** Reference vertices that bound a nearest-N search: enough to land near every part of a long route. */
const SAMPLED_VERTICES = 256;

