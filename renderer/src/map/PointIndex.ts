import KDBush from 'kdbush';
import type { Coordinate } from 'ol/coordinate';
import type { PointBuffer } from './pointBuffer';

/** Half the width of the Web Mercator world, in metres. */
const HALF_WORLD = Math.PI * 6378137;

/**
 * Picking for large point sets. The GPU layer does no hit detection (OpenLayers' would be a
 * second full render of every point, then a pixel read-back, on each frame); a k-d tree over the
 * same projected positions answers "which point is under the pointer" instead. Built on first use.
 */
export default class PointIndex {
  private index: KDBush | null = null;

  constructor(private readonly points: PointBuffer) {}

  private build(): void {
    const { positions, origin, count } = this.points;
    const index = new KDBush(Math.max(1, count));
    for (let k = 0; k < count; k++) index.add(positions[2 * k]! + origin[0], positions[2 * k + 1]! + origin[1]);
    // KDBush needs at least one item to finish; an empty set gets a point nobody can reach.
    if (count === 0) index.add(Infinity, Infinity);
    index.finish();
    this.index = index;
  }

  /** The collection index of the point nearest to `coordinate` within `radius` (map units), or null. */
  nearest(coordinate: Coordinate, radius: number): number | null {
    if (!this.index) this.build();
    const { positions, origin, slots, count } = this.points;
    // A click on a copy of the world east or west of the first one is brought back to it.
    const x = ((((coordinate[0]! + HALF_WORLD) % (2 * HALF_WORLD)) + 2 * HALF_WORLD) % (2 * HALF_WORLD)) - HALF_WORLD;
    const y = coordinate[1]!;
    let best: number | null = null;
    let bestD = Infinity;
    for (const k of this.index!.within(x, y, radius)) {
      if (k >= count) continue;
      const d = (positions[2 * k]! + origin[0] - x) ** 2 + (positions[2 * k + 1]! + origin[1] - y) ** 2;
      if (d < bestD) {
        bestD = d;
        best = slots[k]!;
      }
    }
    return best;
  }
}
