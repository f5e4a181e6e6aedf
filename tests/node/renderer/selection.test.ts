import { describe, expect, it } from 'vitest';
import { pruneSet, selectRange, toggleInSet, toggleSingle } from '../../../renderer/src/lib/selection';

describe('selection state', () => {
  it('single selection toggles off when the same item is picked again', () => {
    expect(toggleSingle(null, 'a')).toBe('a');
    expect(toggleSingle('a', 'b')).toBe('b');
    expect(toggleSingle('b', 'b')).toBeNull();
  });

  it('multi-selection adds and removes without touching the original set', () => {
    const start = new Set([1, 2]);
    const added = toggleInSet(start, 3);
    const removed = toggleInSet(added, 1);
    expect([...start]).toEqual([1, 2]);
    expect([...added]).toEqual([1, 2, 3]);
    expect([...removed]).toEqual([2, 3]);
  });

  it('drops ids that are no longer listed', () => {
    expect([...pruneSet(new Set([5, 6, 7]), [7, 5, 9])]).toEqual([5, 7]);
  });

  it('shift-click selects the span between anchor and click, either direction', () => {
    const order = [10, 11, 12, 13, 14];
    expect([...selectRange(new Set<number>(), order, 11, 13)].sort()).toEqual([11, 12, 13]);
    expect([...selectRange(new Set([10]), order, 14, 12)].sort()).toEqual([10, 12, 13, 14]);
    // Without a usable anchor only the clicked id is added.
    expect([...selectRange(new Set<number>(), order, null, 12)]).toEqual([12]);
    expect([...selectRange(new Set<number>(), order, 99, 12)]).toEqual([12]);
  });
});
