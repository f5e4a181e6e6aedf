import { describe, expect, it } from 'vitest';
import { zOrder, type BBox } from '../../../electron/cache/spatial';
import { rng } from './fixtures';

// The Morton key of a cell, one bit at a time (x on even bits, y on odd ones).
function morton(qx: number, qy: number): number {
  let key = 0;
  for (let bit = 0; bit < 16; bit++) key += (((qx >> bit) & 1) * 2 ** (2 * bit)) + (((qy >> bit) & 1) * 2 ** (2 * bit + 1));
  return key;
}

describe('storage order along a Z-order curve', () => {
  it('sorts box centres by their Morton cell, ties and boxless items in item order', () => {
    const r = rng(5);
    const extent: BBox = [2, 40, 4, 41];
    for (const n of [0, 1, 2, 300, 2000]) {
      const boxes = new Float64Array(n * 4);
      for (let i = 0; i < n; i++) {
        if (r() < 0.05) {
          boxes.fill(NaN, i * 4, i * 4 + 4);
          continue;
        }
        // Some items share a point, so equal keys occur.
        const x = r() < 0.2 ? 3 : 2 + r() * 2;
        const y = r() < 0.2 ? 40.5 : 40 + r();
        boxes.set([x, y, x, y], i * 4);
      }
      const key = (i: number) => {
        if (Number.isNaN(boxes[i * 4]!)) return Infinity;
        const qx = Math.floor(((boxes[i * 4]! - 2) / 2) * 65535);
        const qy = Math.floor(((boxes[i * 4 + 1]! - 40) / 1) * 65535);
        return morton(qx, qy);
      };
      const want = Array.from({ length: n }, (_, i) => i).sort((a, b) => key(a) - key(b) || a - b);
      expect([...zOrder(boxes, extent)]).toEqual(want);
    }
  });
});
