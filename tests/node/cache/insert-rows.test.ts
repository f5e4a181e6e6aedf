import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import type { CacheDb } from '../../../electron/cache/db';
import { insertRows } from '../../../electron/cache/insert-rows';

function memoryDb(): CacheDb & { prepared: string[] } {
  const db = new Database(':memory:');
  db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, x REAL)');
  const prepared: string[] = [];
  return {
    db,
    file: ':memory:',
    prepared,
    stmt: (sql) => {
      prepared.push(sql);
      return db.prepare(sql);
    },
    afterWrite: () => {},
  };
}

describe('rows written many to a statement', () => {
  it.each([0, 1, 7, 8, 9, 63, 64, 65, 75, 200])('writes %i rows in order, each with its own values', (n) => {
    const c = memoryDb();
    const want = Array.from({ length: n }, (_, i) => ({ id: 10 + i * 3, name: i % 5 === 0 ? null : `row ${i}`, x: i / 7 }));
    insertRows(c, 'INSERT INTO t (id, name, x)', 3, want.flatMap((r) => [r.id, r.name, r.x]));
    expect(c.db.prepare('SELECT id, name, x FROM t ORDER BY id').all()).toEqual(want);
  });

  it('prepares no more than three statement sizes whatever the count', () => {
    const c = memoryDb();
    const values = Array.from({ length: 75 * 3 }, (_, i) => (i % 3 === 1 ? 'n' : i));
    insertRows(c, 'INSERT INTO t (id, name, x)', 3, values);
    // 75 rows = one run of 64, one of 8, three of 1.
    expect(c.prepared.map((sql) => (sql.match(/\(\?/g) ?? []).length)).toEqual([64, 8, 1]);
  });

  it('refuses values that are not whole rows', () => {
    expect(() => insertRows(memoryDb(), 'INSERT INTO t (id, name, x)', 3, [1, 'a'])).toThrow(/not rows of 3/);
  });
});
