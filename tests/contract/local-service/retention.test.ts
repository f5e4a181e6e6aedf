import { existsSync, mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import type { RetentionOptions } from '../../../electron/local-service/retention';
import { createSearchStore, DATABASE_FILE, openDatabase } from '../../../electron/local-service/store';
import { BACKEND, compute, computeForm, fileForm, postJson, savedCount, scalar, startService, stopService } from './harness';
import { UploadSet } from '../../../electron/local-service/upload/set';

const T0 = Date.parse('2026-01-02T03:04:05Z');
const DAY = 86_400_000;
const dataDir = mkdtempSync(join(tmpdir(), 'fieldlens-retention-'));
const at = (days: number) => () => new Date(T0 + days * DAY);
const run = (days: number, retention: Partial<RetentionOptions>) => startService({ dataDir, clock: at(days), options: { retention } });

/** Whether a saved search can still be continued (404 once it is gone). */
const continues = async (r: Awaited<ReturnType<typeof run>>, id: string) =>
  (await postJson(r, { query: 'sort by distance to Paris', search_id: id, answer: false })).status;

describe(`retention of saved searches`, () => {
  const ids: Record<string, string> = {};

  it('deletes searches past their age, keeping pinned ones and the thread a kept search continues', async () => {
    let r = await run(0, { maxAgeDays: 0, maxBytes: 0 });
    ids.root = (await compute(r, { query: 'airports in France', answer: false })).id;
    ids.old = (await compute(r, { query: 'cities in Spain', answer: false })).id;
    ids.pinned = (await compute(r, { query: 'cities in Italy', answer: false })).id;
    ids.upload = (await computeForm(r, fileForm({ query: 'my sites', answer: 'false' }, [{ name: 'sites.csv', text: 'name,lat,lon\nA,45.1,4.2\nB,45.3,4.9' }]))).id;
    expect(await savedCount(r, 4)).toBe(4);
    expect(await scalar(r, 'SELECT count(*) FROM uploads')).toBe(1);
    await stopService(r, false);

    // 20 days on: nothing is 30 days old yet; a follow-up continues the first search.
    r = await run(20, { maxAgeDays: 30, maxBytes: 0 });
    expect(await scalar(r, 'SELECT count(*) FROM searches')).toBe(4);
    ids.child = (await compute(r, { query: 'sort by distance to Paris', search_id: ids.root, answer: false })).id;
    expect(await savedCount(r, 5)).toBe(5);
    // On PostgreSQL a file without links stays an hour after it was last kept (another replica
    // may be about to link it): the file is made that old here.
    if (BACKEND === 'postgis')
      expect(await scalar(r, `WITH u AS (UPDATE uploads SET kept_at = now() - interval '2 hours' RETURNING 1) SELECT count(*) FROM u`)).toBe(1);
    await stopService(r, false);

    // 40 days on: the three first searches are past 30 days; the pinned one stays, and so does
    // the root, continued by a search 20 days old.
    r = await run(40, { maxAgeDays: 30, maxBytes: 0, pinned: () => [ids.pinned!.toUpperCase()] });
    expect(await scalar(r, 'SELECT count(*) FROM searches')).toBe(3);
    expect(await continues(r, ids.old!)).toBe(404);
    expect(await continues(r, ids.upload!)).toBe(404);
    for (const k of ['root', 'child', 'pinned']) expect(await continues(r, ids[k]!), k).toBe(200);
    // The file went with the last search that linked it.
    expect(await scalar(r, 'SELECT count(*) FROM uploads')).toBe(0);
    expect(await scalar(r, 'SELECT count(*) FROM upload_chunks')).toBe(0);
    await stopService(r, false);
  });

  it('deletes the oldest searches past the size bound, keeping pinned ones and their thread', async () => {
    // The continuations asked above were saved too; with room for nothing, only the pinned
    // follow-up and the search it continues stay.
    const r = await run(41, { maxAgeDays: 0, maxBytes: 1, pinned: () => [ids.child!] });
    expect(await scalar(r, 'SELECT count(*) FROM searches')).toBe(2);
    expect(await continues(r, ids.child!)).toBe(200);
    expect(await continues(r, ids.root!)).toBe(200);
    expect(await continues(r, ids.pinned!)).toBe(404);
    await stopService(r);
  });
});

/** A saved search of `n` airports made `i` minutes after T0 (about 13 bytes an item once packed). */
const filler = (i: number, n: number) => ({
  id: `6a3c1d2e-0000-4000-8000-${String(i).padStart(12, '0')}`,
  createdAt: new Date(T0 + i * 60_000).toISOString(),
  userId: null,
  query: `airports near site ${i}`,
  catalogVersion: 'v1',
  set: { subject: 'airport' as const, items: Array.from({ length: n }, (_, j) => ({ k: 'airport' as const, i: (i * 7 + j) % 5000, d: j * 1.5 })), uploads: new UploadSet() },
});

describe.runIf(BACKEND === 'sqlite')('retention bounds the database file on disk', () => {
  it('a file of 1,500 searches (12 MB, made before incremental vacuum) started with --retention-mb 2 is 2 MiB or less on disk, WAL included', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fieldlens-retention-disk-'));
    const file = join(dir, DATABASE_FILE);
    // As an older build left it: its first page written before auto_vacuum was set (the table is
    // the one every build makes first).
    const old = new Database(file);
    old.exec('CREATE TABLE migrations (scope TEXT PRIMARY KEY, version INTEGER NOT NULL)');
    old.close();
    const store = createSearchStore(openDatabase(dir));
    for (let i = 0; i < 1500; i++) store.save(filler(i, 600));
    store.close();
    const onDisk = () => statSync(file).size + (existsSync(file + '-wal') ? statSync(file + '-wal').size : 0);
    const filled = onDisk();
    expect(filled).toBeGreaterThan(10 * 1024 * 1024);

    const limit = 2 * 1024 * 1024;
    const r = await startService({ dataDir: dir, clock: () => new Date(T0 + DAY), options: { retention: { maxAgeDays: 0, maxBytes: limit } } });
    try {
      // No slack: the size checked after the prune is the file's own, with its WAL.
      const after = onDisk();
      console.log(`retention to ${limit} bytes: ${filled} bytes on disk before, ${after} after`);
      expect(after).toBeLessThanOrEqual(limit);
      expect(await scalar(r, 'PRAGMA auto_vacuum')).toBe(2);
      // The newest searches stay, and the bound is filled rather than emptied.
      const kept = await scalar(r, 'SELECT count(*) FROM searches');
      expect(kept).toBeGreaterThan(0);
      expect(after).toBeGreaterThan(limit / 2);
      expect(await scalar(r, `SELECT count(*) FROM searches WHERE created_at >= '${filler(1500 - kept, 0).createdAt}'`)).toBe(kept);
      console.log(`kept ${kept} of 1,500 searches`);
    } finally {
      await stopService(r);
    }
  });
});
