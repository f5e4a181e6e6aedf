import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { BoxList, bulkLoadRtree } from '../../../electron/export/rtree-bulk';
import { rng } from '../../interop/export/features';

function build(n: number, seed: number) {
  const db = new Database(':memory:');
  db.exec('CREATE VIRTUAL TABLE rt USING rtree(id, minx, maxx, miny, maxy)');
  const r = rng(seed);
  const list = new BoxList();
  const boxes: [number, number, number, number, number][] = [];
  for (let i = 0; i < n; i++) {
    const x = -180 + r() * 360;
    const y = -90 + r() * 180;
    const w = i % 3 === 0 ? r() * 2 : 0; // points and small boxes
    boxes.push([i * 7 + 1, x, x + w, y, y + w]);
    list.push(i * 7 + 1, x, x + w, y, y + w);
  }
  bulkLoadRtree(db, 'rt', list);
  return { db, boxes };
}

describe('R-tree bulk load', () => {
  for (const n of [0, 1, 51, 52, 2601, 2602, 20_000]) {
    it(`builds a tree SQLite accepts and queries correctly (${n} entries)`, () => {
      const { db, boxes } = build(n, n + 1);
      expect(db.prepare("SELECT rtreecheck('rt')").pluck().get()).toBe('ok');
      expect(db.prepare('SELECT count(*) FROM rt').pluck().get()).toBe(n);
      const r = rng(99);
      for (let k = 0; k < 20; k++) {
        const x0 = -180 + r() * 300;
        const y0 = -90 + r() * 150;
        const [x1, y1] = [x0 + r() * 60, y0 + r() * 30];
        const got = db
          .prepare('SELECT id FROM rt WHERE maxx >= ? AND minx <= ? AND maxy >= ? AND miny <= ? ORDER BY id')
          .pluck()
          .all(x0, x1, y0, y1);
        const want = boxes.filter(([, a, b, c, d]) => b >= x0 && a <= x1 && d >= y0 && c <= y1).map(([id]) => id);
        // Stored boxes are float32 rounded outwards: they may only add near-edge hits.
        expect(want.every((id) => got.includes(id))).toBe(true);
        expect(got.length - want.length).toBeLessThanOrEqual(2);
      }
      // The module keeps working on the loaded tree.
      db.prepare('INSERT INTO rt VALUES (?, 1, 2, 3, 4)').run(10_000_000);
      db.prepare('DELETE FROM rt WHERE id = ?').run(1);
      expect(db.prepare("SELECT rtreecheck('rt')").pluck().get()).toBe('ok');
      expect(db.prepare('SELECT count(*) FROM rt').pluck().get()).toBe(n === 0 ? 1 : n);
      db.close();
    });
  }
});
