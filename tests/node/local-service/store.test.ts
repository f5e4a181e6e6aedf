import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { gunzipSync, gzipSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { applyMigrations, createSearchStore, DATABASE_FILE, openDatabase, packItems, startCheckpointer, unpackItems } from '../../../electron/local-service/store';
import { UploadSet } from '../../../electron/local-service/upload/set';

const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'fieldlens-store-'));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const saved = (id: string) => ({
  id,
  createdAt: '2026-01-01T00:00:00.000Z',
  userId: 'u',
  query: 'airports in Peru',
  catalogVersion: 'v1',
  set: { subject: 'airport' as const, items: [{ k: 'airport' as const, i: 3, d: 12.5 }], uploads: new UploadSet() },
});

describe('search store', () => {
  it('applies its migrations once, in WAL mode, each scope numbered on its own', () => {
    const dir = tempDir();
    const db = openDatabase(dir);
    const version = db.prepare('SELECT version FROM migrations WHERE scope = ?').pluck();
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(version.get('compute')).toBe(4);
    const plugin = ['CREATE TABLE imagery (id TEXT PRIMARY KEY)', 'ALTER TABLE imagery ADD COLUMN date TEXT'];
    expect(applyMigrations(db, 'imagery', plugin.slice(0, 1))).toBe(1);
    expect(applyMigrations(db, 'imagery', plugin)).toBe(2);
    db.close();
    const again = openDatabase(dir);
    expect(again.prepare('SELECT version FROM migrations WHERE scope = ?').pluck().get('compute')).toBe(4);
    expect(applyMigrations(again, 'imagery', plugin)).toBe(2);
    expect(() => applyMigrations(again, 'imagery', plugin.slice(0, 1))).toThrow(/newer/);
    // A failing migration leaves nothing half done.
    expect(() => applyMigrations(again, 'broken', ['CREATE TABLE t1 (a)', 'NOT SQL'])).toThrow();
    expect(again.prepare("SELECT count(*) FROM sqlite_master WHERE name = 't1'").pluck().get()).toBe(0);
    again.close();
  });

  it('reads a saved set at once, writes it on the next turn, and keeps it after reopening', async () => {
    const dir = tempDir();
    const store = createSearchStore(openDatabase(dir));
    const id = '6a3c1d2e-0000-4000-8000-000000000001';
    store.save(saved(id));
    expect(store.get(id)?.set.items).toEqual([{ k: 'airport', i: 3, d: 12.5 }]);
    const count = store.db.prepare('SELECT count(*) AS n FROM searches');
    expect((count.get() as { n: number }).n).toBe(0);
    await new Promise((ok) => setImmediate(ok));
    expect((count.get() as { n: number }).n).toBe(1);
    store.save(saved('6a3c1d2e-0000-4000-8000-000000000002'));
    store.close(); // flushes the pending save
    const reopened = createSearchStore(openDatabase(dir));
    expect(reopened.get(id.toUpperCase())?.query).toBe('airports in Peru');
    expect(reopened.get('6a3c1d2e-0000-4000-8000-000000000002')).not.toBeNull();
    reopened.close();
  });

  it('packs result sets losslessly, figures and missing distances included', () => {
    const items = [
      { k: 'city' as const, i: 135_000, d: 1234.5 },
      { k: 'upload' as const, i: 0 },
      { k: 'country' as const, i: 77, a: { count: 3, per_capita: null } },
      { k: 'airport' as const, i: 4, d: 0 },
    ];
    const { bin, figures } = packItems(items);
    expect(bin.length).toBe(8 + items.length * 13);
    expect(unpackItems(bin, figures)).toEqual(items);
    expect(unpackItems(packItems([]).bin, '{}')).toEqual([]);
  });

  it('checkpoints from a worker thread: the database file grows while the request thread never checkpoints', async () => {
    const dir = tempDir();
    const db = openDatabase(dir);
    const errors: unknown[] = [];
    const cp = startCheckpointer(db, (e) => errors.push(e), 50);
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
    const before = statSync(join(dir, DATABASE_FILE)).size;
    const store = createSearchStore(db);
    for (let i = 0; i < 300; i++) store.save({ ...saved(`6a3c1d2e-0000-4000-8000-${String(i).padStart(12, '0')}`), query: 'x'.repeat(2000) });
    await new Promise((ok) => setImmediate(ok));
    const deadline = Date.now() + 5000;
    // A checkpoint may land in several passes on a busy machine: wait for the whole of it.
    while (statSync(join(dir, DATABASE_FILE)).size <= before + 300 * 2000 && Date.now() < deadline) await new Promise((ok) => setTimeout(ok, 50));
    expect(statSync(join(dir, DATABASE_FILE)).size).toBeGreaterThan(before + 300 * 2000);
    store.close();
    await cp.close();
    expect(errors).toEqual([]);
  });

  it('stores an upload once per content hash and expires it with the last saved result using it', async () => {
    const dir = tempDir();
    const store = createSearchStore(openDatabase(dir));
    const bytes = Buffer.from('name,lat,lon\n' + 'site,1.5,2.5\n'.repeat(10_000));
    const hash = createHash('sha256').update(bytes).digest('hex');
    const ids = [1, 2, 3].map((n) => `6a3c1d2e-0000-4000-8000-00000000010${n}`);
    for (const [n, id] of ids.entries()) {
      await store.keepUpload(hash, bytes);
      store.save({ ...saved(id), files: [{ hash, name: `sites-${n}.csv` }] });
    }
    store.close();
    const db = openDatabase(dir);
    const rows = db.prepare('SELECT hash, size, chunks FROM uploads').all() as { hash: string; size: number; chunks: number }[];
    expect(rows).toEqual([{ hash, size: bytes.length, chunks: 1 }]);
    const data = Buffer.concat(db.prepare('SELECT data FROM upload_chunks WHERE hash = ? ORDER BY seq').pluck().all(hash) as Buffer[]);
    expect(gunzipSync(data).equals(bytes)).toBe(true);
    expect(data.length).toBeLessThan(bytes.length / 10);
    const reopened = createSearchStore(db);
    expect(reopened.get(ids[1]!)?.files).toEqual([{ hash, name: 'sites-1.csv' }]);
    expect(reopened.get(ids[1]!)?.set.uploads.length).toBe(0);
    expect((await reopened.readUpload(hash))?.equals(bytes)).toBe(true);
    // Deleting saved results removes their links; the file goes with the last one.
    db.prepare('DELETE FROM searches WHERE id IN (?, ?)').run(ids[0], ids[1]);
    expect(db.prepare('SELECT count(*) FROM uploads').pluck().get()).toBe(1);
    db.prepare('DELETE FROM searches WHERE id = ?').run(ids[2]);
    expect(db.prepare('SELECT count(*) FROM search_uploads').pluck().get()).toBe(0);
    expect(db.prepare('SELECT count(*) FROM uploads').pluck().get()).toBe(0);
    expect(db.prepare('SELECT count(*) FROM upload_chunks').pluck().get()).toBe(0);
    expect(await reopened.readUpload(hash)).toBeNull();
    reopened.close();
  });

  it('writes a large upload in chunks and sweeps files no saved result refers to', async () => {
    const dir = tempDir();
    const db = openDatabase(dir);
    const store = createSearchStore(db);
    // Random bytes do not compress: about 1.5 MB of gzip, written as three 512 KiB chunks.
    const bytes = Buffer.from(Array.from({ length: 1_500_000 }, (_, i) => (i * 2654435761) >>> 24));
    const hash = createHash('sha256').update(bytes).digest('hex');
    await store.keepUpload(hash, bytes);
    const chunks = db.prepare('SELECT chunks FROM uploads WHERE hash = ?').pluck().get(hash) as number;
    expect(chunks).toBe(Math.ceil(gzipSync(bytes, { level: 1 }).length / (512 * 1024)));
    expect((await store.readUpload(hash))?.equals(bytes)).toBe(true);
    // Never linked (as when a run stops between writing the file and the result): swept.
    expect(store.sweepUploads()).toBe(1);
    expect(db.prepare('SELECT count(*) FROM upload_chunks').pluck().get()).toBe(0);
    // Chunks without their completing row (a run stopped mid-write) go when the store opens.
    db.prepare("INSERT INTO upload_chunks (hash, seq, data) VALUES ('partial', 0, x'00')").run();
    store.close();
    const again = openDatabase(dir);
    createSearchStore(again);
    expect(again.prepare('SELECT count(*) FROM upload_chunks').pluck().get()).toBe(0);
    again.close();
  });
});
