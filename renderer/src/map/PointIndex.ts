import KDBush from 'kdbush';
import type { Coordinate } from 'ol/coordinate';
import { pointOf, type MapFeature } from './readResults';

/** Half the width of the Web Mercator world, in metres. */
const HALF_WORLD = Math.PI * 6378137;

/**
 * Picking for large point sets. The GPU layer skips OpenLayers' hit-detection pass (a second
 * full render of every point, then a pixel read-back, on each frame); a k-d tree over the same
 * projected positions answers "which point is under the pointer" instead. Built on first use.
 */
export default class PointIndex {
  private index: KDBush | null = null;
  /** For each indexed point, its feature's position in `features`. */
  private slots: Uint32Array | null = null;

  constructor(private readonly features: readonly MapFeature[]) {}

  private build(): void {
    const at: Array<[number, number, number]> = [];
    for (let i = 0; i < this.features.length; i++) {
      const p = pointOf(this.features[i]!);
      if (p) at.push([p[0], p[1], i]);
    }
    const index = new KDBush(Math.max(1, at.length));
    const slots = new Uint32Array(at.length);
    at.forEach(([x, y, i], k) => {
      index.add(x, y);
      slots[k] = i;
    });
    // KDBush needs at least one item to finish; an empty set gets a point nobody can reach.
    if (at.length === 0) index.add(Infinity, Infinity);
    index.finish();
    this.index = index;
    this.slots = slots;
  }

  /** The feature nearest to `coordinate` within `radius` (map units), or null. */
  nearest(coordinate: Coordinate, radius: number): MapFeature | null {
    if (!this.index) this.build();
    // A click on a copy of the world east or west of the first one is brought back to it.
    const x = ((((coordinate[0]! + HALF_WORLD) % (2 * HALF_WORLD)) + 2 * HALF_WORLD) % (2 * HALF_WORLD)) - HALF_WORLD;
    const y = coordinate[1]!;
    let best: MapFeature | null = null;
    let bestD = Infinity;
    for (const k of this.index!.within(x, y, radius)) {
      if (k >= this.slots!.length) continue;
      const f = this.features[this.slots![k]!]!;
      const p = pointOf(f)!;
      const d = (p[0] - x) ** 2 + (p[1] - y) ** 2;
      if (d < bestD) {
        bestD = d;
        best = f;
      }
    }
    return best;
  }
}
