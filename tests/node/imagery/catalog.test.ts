import { mkdirSync, mkdtempSync, rmSync, statSync, unlinkSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../../../electron/ground/logger';
import { ImageryCatalog } from '../../../electron/local-service/imagery/catalog';
import { RegionTable, type Geocoder } from '../../../electron/local-service/imagery/geocoder';
import { writeGeotaggedJpeg } from '../../../electron/local-service/imagery/photo-writer';
import { embeddedImageryStorage, embeddedStorageOf, type ImageryStorage } from '../../../electron/local-service/imagery/storage';
import { ImageryStore } from '../../../electron/local-service/imagery/store';
import { migrateImagery } from '../../../electron/local-service/imagery/store-migrations';

// An injected geocoder (the service passes its own catalog's lookup the same way).
const geocode: Geocoder = (lon) => (lon < 0 ? { city: 'Westville', countryCode: 'PT' } : { city: 'Eastville', regionId: '40' });

let dir: string;
let db: Database.Database;
let catalog: ImageryCatalog | null = null;

function open(watch = false) {
  const store = new ImageryStore(db);
  catalog = new ImageryCatalog({ dirs: [dir], store: embeddedStorageOf(store), geocode, regions: new RegionTable(), logger: createMemoryLogger(), watch, debounceMs: 50 });
  return { store, catalog };
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'fl-catalog-'));
  db = new Database(':memory:');
  migrateImagery(db);
});
afterEach(async () => {
  await catalog?.close();
  catalog = null;
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const photo = (name: string, lon: number, direction = 0) =>
  writeGeotaggedJpeg(join(dir, name), { width: 8, height: 8, latitude: 10, longitude: lon, direction, keywords: ['kw'] });

describe('ImageryCatalog', () => {
  it('migrates once, in its own migration table', () => {
    migrateImagery(db);
    expect(db.prepare('SELECT version FROM imagery_migrations').pluck().all()).toEqual([1, 2, 3, 4]);
  });

  it('brings a catalog of an earlier version up to date, keeping its photos and the times steps ran', () => {
    const old = new Database(':memory:');
    // A catalog as version 1 left it: its own table with one row per applied step.
    old.exec(`CREATE TABLE imagery_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL);
      INSERT INTO imagery_migrations VALUES (1, '2025-01-01T00:00:00.000Z');
      CREATE TABLE imagery_photo (rowid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, path TEXT NOT NULL UNIQUE);
      INSERT INTO imagery_photo (id, path) VALUES ('p1', '/photos/a.jpg');`);
    migrateImagery(old, () => new Date('2026-02-03T04:05:06.000Z'));
    expect(old.prepare('SELECT version, applied_at FROM imagery_migrations ORDER BY version').all()).toEqual([
      { version: 1, applied_at: '2025-01-01T00:00:00.000Z' },
      { version: 2, applied_at: '2026-02-03T04:05:06.000Z' },
      { version: 3, applied_at: '2026-02-03T04:05:06.000Z' },
      { version: 4, applied_at: '2026-02-03T04:05:06.000Z' },
    ]);
    expect(old.prepare('SELECT id, is_video, duration, dev, ino FROM imagery_photo').all()).toEqual([
      { id: 'p1', is_video: 0, duration: null, dev: null, ino: null },
    ]);
    old.close();
  });

  it('records the device and inode of photos indexed before they were kept, without reading them again', async () => {
    photo('a.jpg', -5);
    const { store, catalog } = open();
    await catalog.start();
    const row = store.rows([...catalog.snapshot().rowids])[0]!;
    const st = statSync(join(dir, 'a.jpg'));
    expect([row.dev, row.ino]).toEqual([st.dev, st.ino]);
    store.putSightings(row.rowid, row.path, 'run', [{ model: 'm', label: 'car', score: 0.9, box: [0, 0, 1, 1] }]);
    db.prepare('UPDATE imagery_photo SET dev = NULL, ino = NULL').run();
    expect(await catalog.scan()).toMatchObject({ read: 0, photos: 1 });
    expect(store.byId(row.id)).toMatchObject({ dev: st.dev, ino: st.ino });
    // Not a change of the photo: what the detectors saw stays.
    expect(store.unseen('run', 10)).toEqual([]);
  });

  it('indexes sub-folders, addresses from the injected geocoder, reads only changed files again', async () => {
    mkdirSync(join(dir, 'sub'));
    photo('a.jpg', -5);
    photo('sub/b.jpg', 5);
    const { store, catalog } = open();
    const first = await catalog.start();
    expect(first).toMatchObject({ found: 2, read: 2, photos: 2, skipped: 0 });
    const rows = store.rows([...catalog.snapshot().rowids]).sort((x, y) => x.lon - y.lon);
    expect(rows.map((r) => [r.address, r.region_id])).toEqual([
      ['Westville, Portugal', '620'],
      ['Eastville, Austria', '040'],
    ]);
    const again = await catalog.scan();
    expect(again).toMatchObject({ found: 2, read: 0, removed: 0, photos: 2 });
  });

  it('keeps a photo id when the file changes and forgets deleted files', async () => {
    photo('a.jpg', -5, 10);
    photo('b.jpg', 5);
    const { store, catalog } = open();
    await catalog.start();
    const before = store.rows([...catalog.snapshot().rowids]).find((r) => r.path.endsWith('a.jpg'))!;
    photo('a.jpg', -6, 200);
    utimesSync(join(dir, 'a.jpg'), new Date(), new Date(Date.now() + 5000));
    unlinkSync(join(dir, 'b.jpg'));
    const report = await catalog.scan();
    expect(report).toMatchObject({ read: 1, removed: 1, photos: 1 });
    const after = store.byId(before.id)!;
    expect(after.direction).toBe(200);
    expect(after.lon).toBeCloseTo(-6, 5);
    expect(store.match('kw')).toHaveLength(1);
  });

  it('re-scans by itself when a watched folder changes', async () => {
    photo('a.jpg', 5);
    const { catalog } = open(true);
    await catalog.start();
    expect(catalog.snapshot().rowids.length).toBe(1);
    photo('late.jpg', 6);
    const deadline = Date.now() + 10_000;
    while (catalog.snapshot().rowids.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(catalog.snapshot().rowids.length).toBe(2);
  });

  it('lists skipped photos with their reason until they are fixed', async () => {
    writeGeotaggedJpeg(join(dir, 'nogps.jpg'), { width: 8, height: 8 });
    const { store, catalog } = open();
    await catalog.start();
    expect(store.skipped()).toEqual([{ path: join(dir, 'nogps.jpg'), reason: 'no GPS position in EXIF' }]);
    photo('nogps.jpg', 7);
    utimesSync(join(dir, 'nogps.jpg'), new Date(), new Date(Date.now() + 5000));
    await catalog.scan();
    expect(store.skipped()).toEqual([]);
    expect(catalog.snapshot().rowids.length).toBe(1);
  });

  it('reads its snapshot again when another catalog on the same database has scanned', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'fl-catalog-db-')), 'service.sqlite');
    const [dbA, dbB] = [new Database(file), new Database(file)];
    const make = (d: Database.Database) =>
      new ImageryCatalog({ dirs: [dir], store: embeddedImageryStorage(d), geocode, regions: new RegionTable(), logger: createMemoryLogger(), watch: false });
    const [a, b] = [make(dbA), make(dbB)];
    try {
      photo('a.jpg', 1);
      await a.start();
      await b.start();
      photo('b.jpg', 2);
      expect(await a.scan()).toMatchObject({ read: 1, photos: 2 });
      // B has not scanned since: the snapshot it holds is older, the current one has both photos.
      expect(b.snapshot().rowids.length).toBe(1);
      expect((await b.current()).rowids.length).toBe(2);
      expect([...(await b.current()).lon].sort()).toEqual([1, 2]);
    } finally {
      await a.close();
      await b.close();
      dbA.close();
      dbB.close();
      rmSync(dirname(file), { recursive: true, force: true });
    }
  });

  it('does not answer from a read that began before the scan it was asked after', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'fl-catalog-db-')), 'service.sqlite');
    const [dbA, dbB] = [new Database(file), new Database(file)];
    const make = (store: ImageryStorage) =>
      new ImageryCatalog({ dirs: [dir], store, geocode, regions: new RegionTable(), logger: createMemoryLogger(), watch: false });
    // B's next snapshot read is held after it has read the rows, until `release`.
    let hold: Promise<void> | null = null;
    let release = () => {};
    const inner = embeddedImageryStorage(dbB);
    const held: ImageryStorage = {
      ...inner,
      async summaries() {
        const read = await inner.summaries();
        if (hold) await hold;
        return read;
      },
    };
    const [a, b] = [make(embeddedImageryStorage(dbA)), make(held)];
    try {
      photo('a.jpg', 1);
      await a.start();
      await b.start();
      photo('b.jpg', 2);
      await a.scan();
      hold = new Promise((ok) => (release = ok));
      const first = b.current(); // reads the catalog with two photos, then waits
      await new Promise((ok) => setTimeout(ok, 50));
      photo('c.jpg', 3);
      await a.scan();
      const second = b.current(); // asked after the third photo was written
      hold = null;
      release();
      expect((await first).rowids.length).toBeGreaterThanOrEqual(2);
      expect((await second).rowids.length).toBe(3);
    } finally {
      release();
      await a.close();
      await b.close();
      dbA.close();
      dbB.close();
      rmSync(dirname(file), { recursive: true, force: true });
    }
  });

  it('runs overlapping scan requests one after another', async () => {
    photo('a.jpg', 1);
    const { catalog } = open();
    const [a, b, c] = await Promise.all([catalog.scan(), catalog.scan(), catalog.scan()]);
    expect(a.read).toBe(1);
    expect(b.read).toBe(0);
    expect(c).toBe(b);
  });
});
