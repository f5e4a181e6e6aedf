import { describe, expect, it } from 'vitest';
import { CATEGORY_COLOURS, classify, colourableColumns, NO_VALUE, OTHER_COLOUR, RANK_COLOURS } from '../../../shared/map/symbology';

const f = (properties: Record<string, unknown>) => ({ properties });

describe('one style language: classes of results for the map and its legend', () => {
  it('colours by rank in four quarters, best first, each named by its ranks', () => {
    const { classes, classOf } = classify(Array.from({ length: 10 }, () => f({})), { by: 'rank' }, '#000');
    // 10 results in quarters: floor(i * 4 / 10) = 0,0,0,1,1,2,2,2,3,3.
    expect(classOf).toEqual([0, 0, 0, 1, 1, 2, 2, 2, 3, 3]);
    expect(classes.map((c) => [c.label, c.count, c.colour])).toEqual([
      ['#1–3', 3, RANK_COLOURS[0]],
      ['#4–5', 2, RANK_COLOURS[1]],
      ['#6–8', 3, RANK_COLOURS[2]],
      ['#9–10', 2, RANK_COLOURS[3]],
    ]);
    // Two results: only the classes that hold one are listed, and each points at its own.
    const two = classify([f({}), f({})], { by: 'rank' }, '#000');
    expect(two.classes.map((c) => c.label)).toEqual(['#1', '#2']);
    expect(two.classOf.map((c) => two.classes[c]!.label)).toEqual(['#1', '#2']);
  });

  it('colours by a column: the commonest values first, missing values as one class, uploaded attributes too', () => {
    const fs = [f({ kind: 'airport' }), f({ kind: 'heliport' }), f({ kind: 'airport' }), f({}), f({ kind: '' }), f({ kind: 'airport' })];
    const { classes, classOf } = classify(fs, { by: 'column', column: 'kind' }, '#000');
    expect(classes.map((c) => [c.label, c.count])).toEqual([['airport', 3], [NO_VALUE, 2], ['heliport', 1]]);
    expect(classes[0]!.colour).toBe(CATEGORY_COLOURS[0]);
    expect(classes[1]!.colour).toBe(OTHER_COLOUR);
    expect(classOf.map((c) => classes[c]!.label)).toEqual(['airport', 'heliport', 'airport', NO_VALUE, NO_VALUE, 'airport']);
    const up = classify([f({ attributes: { region: 'N' } }), f({ attributes: { region: 'S' } })], { by: 'column', column: 'attributes.region' }, '#000');
    expect(up.classes.map((c) => c.label)).toEqual(['N', 'S']);
  });

  it('puts values past the palette into one "Other" class, every feature counted once', () => {
    // 12 values, value k held by k + 1 features: the 7 commonest get colours, 5 go to Other.
    const fs = Array.from({ length: 12 }, (_, k) => Array.from({ length: k + 1 }, () => f({ v: `v${k}` }))).flat();
    const { classes, classOf } = classify(fs, { by: 'column', column: 'v' }, '#000');
    expect(classes).toHaveLength(CATEGORY_COLOURS.length);
    expect(classes.slice(0, 7).map((c) => c.label)).toEqual(['v11', 'v10', 'v9', 'v8', 'v7', 'v6', 'v5']);
    expect(classes[7]!.label).toBe('Other (5 values)');
    expect(classes[7]!.count).toBe(1 + 2 + 3 + 4 + 5);
    expect(classes.reduce((s, c) => s + c.count, 0)).toBe(fs.length);
    expect(classOf.filter((c) => c === 7)).toHaveLength(15);
  });

  it('offers the plain columns and uploaded attributes to colour by, and one class for one colour', () => {
    expect(colourableColumns([f({ name: 'A', score: 1, source: { name: 'x' }, attributes: { region: 'N', tags: [1] } }), f({ open: true })])).toEqual([
      'name',
      'score',
      'attributes.region',
      'open',
    ]);
    const one = classify([f({}), f({})], { by: 'layer' }, '#e8710a');
    expect(one.classes).toEqual([{ key: 'all', label: 'All', colour: '#e8710a', count: 2 }]);
  });
});
