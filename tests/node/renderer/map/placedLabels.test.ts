import Feature from 'ol/Feature';
import type { FrameState } from 'ol/Map';
import Point from 'ol/geom/Point';
import RBush from 'rbush';
import { describe, expect, it } from 'vitest';
import { placedLabels } from '../../../../renderer/src/map/placedLabels';

describe('placedLabels: the named labels a frame placed', () => {
  it('lists each named feature of the declutter trees the view shows once, whatever number of boxes its label took', () => {
    const road = new Feature({ geometry: new Point([10, 20]), name: 'Nordstraße' });
    const quarter = new Feature({ geometry: new Point([30, 40]), name: 'Ostviertel' });
    const unnamed = new Feature({ geometry: new Point([50, 60]) });
    const tree = new RBush<{ minX: number; minY: number; maxX: number; maxY: number; value: Feature }>();
    // A label along a line takes one box per run of characters.
    tree.load([
      { minX: 0, minY: 0, maxX: 5, maxY: 5, value: road },
      { minX: 6, minY: 0, maxX: 11, maxY: 5, value: road },
      { minX: 20, minY: 0, maxX: 25, maxY: 5, value: unnamed },
      // Past the view's right edge (a tile reaching beyond it): not shown, not listed.
      { minX: 130, minY: 0, maxX: 140, maxY: 5, value: new Feature({ geometry: new Point([0, 0]), name: 'Südstraße' }) },
    ]);
    const other = new RBush<{ minX: number; minY: number; maxX: number; maxY: number; value: Feature }>();
    other.insert({ minX: 40, minY: 0, maxX: 45, maxY: 5, value: quarter });
    // A 60 x 40 view at pixel ratio 2: a canvas of 120 x 80.
    const frame = { declutter: { true: tree, group: other }, size: [60, 40], pixelRatio: 2 } as unknown as FrameState;
    expect(placedLabels(frame).sort((a, b) => a.name.localeCompare(b.name))).toEqual([
      { name: 'Nordstraße', extent: [10, 20, 10, 20] },
      { name: 'Ostviertel', extent: [30, 40, 30, 40] },
    ]);
    expect(placedLabels({ declutter: null, size: [60, 40], pixelRatio: 1 } as unknown as FrameState)).toEqual([]);
    expect(placedLabels(null)).toEqual([]);
  });
});
