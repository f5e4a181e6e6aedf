import type { FeatureLike } from 'ol/Feature';
import { Circle, Fill, RegularShape, Stroke, Style, Text } from 'ol/style';

/** What a drawn part of a re-run diff is: a change at its place, or the two ends of a move. */
export type DiffPart = 'added' | 'removed' | 'moved' | 'changed' | 'moved-from' | 'moved-path';

/**
 * One colour per change, apart from each other, the results' orange, the selection's red and the
 * basemap: added green, removed magenta, moved blue, changed in place grey.
 */
export const DIFF_COLOURS = {
  added: '#1a9850',
  removed: '#c51b7d',
  moved: '#2c7bb6',
  changed: '#6f7378',
} as const;

const white = new Stroke({ color: '#ffffff', width: 2 });

/** Added: a filled disc with a plus. Removed: a ring with a cross, nothing left inside. Moved: a disc at the new place, a ring at the old, a dashed line between. */
const STYLES: Record<DiffPart, Style[]> = {
  added: [
    new Style({ image: new Circle({ radius: 8, fill: new Fill({ color: DIFF_COLOURS.added }), stroke: white }), zIndex: 3 }),
    new Style({ text: new Text({ text: '+', font: 'bold 14px system-ui, sans-serif', fill: new Fill({ color: '#ffffff' }), offsetY: 1 }), zIndex: 4 }),
  ],
  removed: [
    new Style({ image: new Circle({ radius: 8, fill: new Fill({ color: 'rgba(255,255,255,0.6)' }), stroke: new Stroke({ color: DIFF_COLOURS.removed, width: 3 }) }), zIndex: 3 }),
    new Style({
      image: new RegularShape({ points: 4, radius: 5, radius2: 0, angle: Math.PI / 4, stroke: new Stroke({ color: DIFF_COLOURS.removed, width: 2.5 }) }),
      zIndex: 4,
    }),
  ],
  moved: [new Style({ image: new Circle({ radius: 8, fill: new Fill({ color: DIFF_COLOURS.moved }), stroke: white }), zIndex: 3 })],
  'moved-from': [new Style({ image: new Circle({ radius: 5, fill: new Fill({ color: '#ffffff' }), stroke: new Stroke({ color: DIFF_COLOURS.moved, width: 2.5 }) }), zIndex: 2 })],
  'moved-path': [
    new Style({ stroke: new Stroke({ color: '#ffffff', width: 5 }), zIndex: 1 }),
    new Style({ stroke: new Stroke({ color: DIFF_COLOURS.moved, width: 2.5, lineDash: [6, 4] }), zIndex: 1 }),
  ],
  changed: [new Style({ image: new Circle({ radius: 6, fill: new Fill({ color: DIFF_COLOURS.changed }), stroke: white }), stroke: new Stroke({ color: DIFF_COLOURS.changed, width: 2 }), zIndex: 2 })],
};

export const diffStyle = (f: FeatureLike): Style[] => STYLES[(f.get('part') as DiffPart | undefined) ?? 'changed'] ?? STYLES.changed;
