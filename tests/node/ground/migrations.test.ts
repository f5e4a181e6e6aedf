import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { runMigrations, scopeVersion, userVersion, type MigrationStep } from '../../../electron/ground/migrations';

const tables = (db: Database.Database) =>
  db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 't%' ORDER BY name`).pluck().all();

describe('the one migration runner', () => {
  const steps: MigrationStep[] = ['CREATE TABLE t1 (a)', (db) => db.exec('CREATE TABLE t2 (b)'), 'CREATE TABLE t3 (c)'];

  it('runs SQL and function steps in order once, keeping the version in user_version', () => {
    const db = new Database(':memory:');
    expect(runMigrations(db, steps.slice(0, 2), userVersion, { label: 'x', onNewer: 'throw' })).toEqual({ from: 0, to: 2 });
    expect(runMigrations(db, steps, userVersion, { label: 'x', onNewer: 'throw' })).toEqual({ from: 2, to: 3 });
    expect(runMigrations(db, steps, userVersion, { label: 'x', onNewer: 'throw' })).toEqual({ from: 3, to: 3 });
    expect(db.pragma('user_version', { simple: true })).toBe(3);
    expect(tables(db)).toEqual(['t1', 't2', 't3']);
  });

  it('keeps one version per scope in the migrations table, leaving user_version alone', () => {
    const db = new Database(':memory:');
    runMigrations(db, steps, scopeVersion('a'), { label: 'a', onNewer: 'throw' });
    runMigrations(db, ['CREATE TABLE tb (x)'], scopeVersion('b'), { label: 'b', onNewer: 'throw' });
    expect(db.prepare('SELECT scope, version FROM migrations ORDER BY scope').all()).toEqual([
      { scope: 'a', version: 3 },
      { scope: 'b', version: 1 },
    ]);
    expect(db.pragma('user_version', { simple: true })).toBe(0);
  });

  it('refuses or accepts a database newer than the build, as told', () => {
    const db = new Database(':memory:');
    runMigrations(db, steps, userVersion, { label: 'the cache', onNewer: 'throw' });
    expect(() => runMigrations(db, steps.slice(0, 1), userVersion, { label: 'the cache', onNewer: 'throw' })).toThrow(
      /the cache is newer \(v3\) than this build \(v1\)/,
    );
    expect(runMigrations(db, steps.slice(0, 1), userVersion, { label: 'the cache', onNewer: 'accept' })).toEqual({ from: 3, to: 3 });
    expect(db.pragma('user_version', { simple: true })).toBe(3);
  });

  it('rolls back every pending step and the version when one step fails', () => {
    const db = new Database(':memory:');
    const failing: MigrationStep[] = ['CREATE TABLE t1 (a)', () => { throw new Error('step 2 failed'); }];
    expect(() => runMigrations(db, failing, scopeVersion('s'), { label: 's', onNewer: 'throw' })).toThrow(/step 2 failed/);
    expect(tables(db)).toEqual([]);
    expect(db.prepare('SELECT count(*) FROM migrations').pluck().get()).toBe(0);
  });
});
