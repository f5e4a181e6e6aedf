import { describe, expect, it } from 'vitest';
import { boxAgainstRing, segmentMeetsBox } from '../../../electron/cache/box-in-ring';

// A concave ring (an L, closed): the unit square's corner cut out at the top right.
const L: [number, number][] = [[0, 0], [4, 0], [4, 2], [2, 2], [2, 4], [0, 4], [0, 0]];

describe('boxAgainstRing', () => {
  it('tells inside, outside and across, including the concave notch', () => {
    expect(boxAgainstRing([0.5, 0.5, 1.5, 1.5], L)).toBe('inside');
    expect(boxAgainstRing([2.5, 2.5, 3.5, 3.5], L)).toBe('outside'); // in the notch, within the ring's box
    expect(boxAgainstRing([5, 5, 6, 6], L)).toBe('outside');
    expect(boxAgainstRing([1.5, 1.5, 2.5, 2.5], L)).toBe('across'); // over the inner corner
    expect(boxAgainstRing([-1, -1, 5, 5], L)).toBe('across'); // holds the whole ring
    expect(boxAgainstRing([2, 2.5, 3, 3], L)).toBe('across'); // touches an edge
  });

  it('meets a segment crossing the box with both ends outside, and misses one passing by a corner', () => {
    expect(segmentMeetsBox(-1, 0.5, 2, 0.5, 0, 0, 1, 1)).toBe(true);
    expect(segmentMeetsBox(-1, 1.5, 1.5, -1, 0, 0, 1, 1)).toBe(true); // cuts the lower left corner
    expect(segmentMeetsBox(0.5, 2.1, 2.1, 0.5, 0, 0, 1, 1)).toBe(false); // x + y = 2.6 passes the corner (1, 1)
    expect(segmentMeetsBox(0.5, 0.5, 0.6, 0.6, 0, 0, 1, 1)).toBe(true); // wholly inside
  });
});
