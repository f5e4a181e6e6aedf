import { describe, expect, it } from 'vitest';
import { expiredSearches, type RetentionRow } from '../../../electron/local-service/retention';

const now = new Date('2026-03-01T00:00:00Z');
const daysAgo = (d: number) => new Date(now.getTime() - d * 86_400_000).toISOString();
const row = (id: string, age: number, bytes: number, parentId: string | null = null): RetentionRow => ({ id, parentId, createdAt: daysAgo(age), bytes });

describe('expiredSearches', () => {
  const rows = [row('a', 1, 100), row('b', 2, 100), row('c', 3, 100), row('d', 40, 10), row('e', 50, 10, 'f'), row('f', 60, 10)];

  it('keeps the newest within the size bound and drops the rest, oldest first', () => {
    // 250 bytes: a and b fit (200); c would make 300; d, e, f (10 each) fit after b.
    expect(expiredSearches(rows, { now, maxAgeDays: 0, maxBytes: 250, pinned: new Set() }).sort()).toEqual(['c']);
    expect(expiredSearches(rows, { now, maxAgeDays: 0, maxBytes: 150, pinned: new Set() }).sort()).toEqual(['b', 'c']);
    expect(expiredSearches(rows, { now, maxAgeDays: 0, maxBytes: 0, pinned: new Set() })).toEqual([]);
  });

  it('drops searches past the age bound unless pinned or continued by a kept one', () => {
    expect(expiredSearches(rows, { now, maxAgeDays: 30, maxBytes: 0, pinned: new Set() }).sort()).toEqual(['d', 'e', 'f']);
    // e is pinned, so f, the search it continues, stays with it.
    expect(expiredSearches(rows, { now, maxAgeDays: 30, maxBytes: 0, pinned: new Set(['e']) }).sort()).toEqual(['d']);
  });

  it('counts pinned searches against the size bound', () => {
    // c (pinned, 100) is kept first among its elders; a and b use 200 of 250, so nothing older fits.
    expect(expiredSearches(rows, { now, maxAgeDays: 0, maxBytes: 250, pinned: new Set(['c']) }).sort()).toEqual(['d', 'e', 'f']);
  });
});
