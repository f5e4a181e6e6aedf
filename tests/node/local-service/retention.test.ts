import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { applyRetention, expiredSearches, type RetentionRow } from '../../../electron/local-service/retention';
import { sqliteResultStore } from '../../../electron/local-service/result-store';
import { createSearchStore, DATABASE_FILE, openDatabase } from '../../../electron/local-service/store';
import { UploadSet } from '../../../electron/local-service/upload/set';

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

describe('retention on the embedded store, by the size on disk', () => {
  const search = (i: number) => ({
    id: `6a3c1d2e-0000-4000-8000-${String(i).padStart(12, '0')}`,
    createdAt: new Date(now.getTime() - (10_000 - i) * 1000).toISOString(),
    userId: null,
    query: `airports near site ${i}`,
    catalogVersion: 'v1',
    set: { subject: 'airport' as const, items: Array.from({ length: 300 }, (_, j) => ({ k: 'airport' as const, i: (i + j) % 4000, d: j })), uploads: new UploadSet() },
  });

  it('a new file vacuums incrementally from the start; each prune leaves the file and WAL within the bound', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fieldlens-retention-'));
    const file = join(dir, DATABASE_FILE);
    const onDisk = () => statSync(file).size + (existsSync(file + '-wal') ? statSync(file + '-wal').size : 0);
    const db = openDatabase(dir);
    try {
      expect(db.pragma('auto_vacuum', { simple: true })).toBe(2);
      const store = sqliteResultStore(createSearchStore(db));
      const limit = 1024 * 1024;
      let next = 0;
      for (const round of [1, 2]) {
        for (const end = next + 1200; next < end; ) store.save(search(next++));
        await new Promise((ok) => setImmediate(ok));
        db.pragma('wal_checkpoint(TRUNCATE)');
        const filled = onDisk();
        expect(filled, `round ${round}`).toBeGreaterThan(4 * limit);
        const r = await applyRetention(store, { maxAgeDays: 0, maxBytes: limit }, now);
        expect(r.diskBytes, `round ${round}`).toBe(onDisk());
        expect(onDisk(), `round ${round}`).toBeLessThanOrEqual(limit);
        // Most of the bound is used: the oldest went, not everything.
        expect(onDisk(), `round ${round}`).toBeGreaterThan(limit / 2);
        const ids = db.prepare('SELECT id FROM searches ORDER BY created_at').pluck().all() as string[];
        expect(ids.at(-1)).toBe(search(next - 1).id);
        expect(ids[0]).toBe(search(next - ids.length).id);
      }
      expect(db.pragma('freelist_count', { simple: true })).toBe(0);
      await store.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
