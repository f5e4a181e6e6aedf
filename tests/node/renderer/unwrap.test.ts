import { describe, expect, it } from 'vitest';
import { unwrapLine } from '../../../renderer/src/map/unwrapAntimeridian';

describe('antimeridian unwrapping for the flat basemap', () => {
  it('keeps a line that never crosses untouched', () => {
    const line = [[10, 1], [20, 2], [-30, 3]];
    expect(unwrapLine(line)).toEqual(line);
  });

  it('continues eastward past +180 instead of jumping to -180', () => {
    expect(unwrapLine([[170, 65], [180, 66], [-180, 66], [-170, 67]])).toEqual([[170, 65], [180, 66], [180, 66], [190, 67]]);
  });

  it('handles westward crossings and returns across the line', () => {
    expect(unwrapLine([[-175, 0], [175, 1], [-175, 2]])).toEqual([[-175, 0], [-185, 1], [-175, 2]]);
  });
});
