import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../../../electron/ground/logger';
import { ImageryCatalog } from '../../../electron/local-service/imagery/catalog';
import { RegionTable } from '../../../electron/local-service/imagery/geocoder';
import { writeGeotaggedJpeg } from '../../../electron/local-service/imagery/photo-writer';
import { embeddedImageryStorage, type ImageryStorage } from '../../../electron/local-service/imagery/storage';

let base: string;
let dir: string;
let db: Database.Database;
let store: ImageryStorage;
let catalog: ImageryCatalog | null = null;

beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), 'fl-catalog-files-'));
  dir = join(base, 'photos');
  mkdirSync(dir);
  db = new Database(':memory:');
  store = embeddedImageryStorage(db);
});
afterEach(async () => {
  await catalog?.close();
  catalog = null;
  db.close();
  rmSync(base, { recursive: true, force: true });
});

const open = (watch = false) =>
  (catalog = new ImageryCatalog({ dirs: [dir], store, geocode: () => null, regions: new RegionTable(), logger: createMemoryLogger(), watch, debounceMs: 50, pollMs: 100 }));
const photo = (path: string, lat = 10) => writeGeotaggedJpeg(path, { width: 8, height: 8, latitude: lat, longitude: 10 });

/** Resolves once `check` holds, polling; fails after `ms`. */
async function until(check: () => Promise<boolean>, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('ImageryCatalog over files that are bad or move', () => {
  it('leaves no file handle to the garbage collector when scanning bad files', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    writeFileSync(join(dir, 'empty.jpg'), '');
    writeFileSync(join(dir, 'one-byte.jpg'), 'x');
    writeFileSync(join(dir, 'text.jpg'), 'not a photo at all');
    writeFileSync(join(dir, 'empty.png'), '');
    writeFileSync(join(dir, 'empty.tif'), '');
    writeFileSync(join(dir, 'empty.heic'), '');
    writeFileSync(join(dir, 'empty.mp4'), '');
    writeFileSync(join(dir, 'empty.mp4.json'), JSON.stringify({ latitude: 1, longitude: 1 }));
    photo(join(dir, 'good.jpg'));
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.message);
    process.on('warning', onWarning);
    try {
      const report = await open().scan();
      expect(report).toMatchObject({ found: 8, photos: 2 });
      // Handles left open are closed (and warned about) when collected.
      for (let i = 0; i < 3; i++) {
        gc();
        await new Promise((r) => setTimeout(r, 20));
      }
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings.filter((w) => /file descriptor|FileHandle/i.test(w))).toEqual([]);
    const reasons = new Map((await store.skipped()).map((s) => [s.path.slice(dir.length + 1), s.reason]));
    expect(reasons.get('empty.jpg')).toBe('empty file (0 bytes)');
    expect(reasons.get('text.jpg')).toBe('not a JPEG image: the file does not begin as one');
  });

  it('indexes a photo again when it is moved out of the folder and back', async () => {
    photo(join(dir, 'a.jpg'));
    await open().scan();
    renameSync(join(dir, 'a.jpg'), join(base, 'a.jpg'));
    expect(await catalog!.scan()).toMatchObject({ removed: 1, photos: 0 });
    renameSync(join(base, 'a.jpg'), join(dir, 'a.jpg'));
    expect(await catalog!.scan()).toMatchObject({ read: 1, photos: 1 });
  });

  it('indexes a folder again, as the watcher sees it, when it is moved out and back', async () => {
    photo(join(dir, 'a.jpg'));
    photo(join(dir, 'b.jpg'), 11);
    await open(true).start();
    expect(await store.count()).toBe(2);
    renameSync(join(dir, 'a.jpg'), join(base, 'a.jpg'));
    await until(async () => (await store.count()) === 1);
    renameSync(join(base, 'a.jpg'), join(dir, 'a.jpg'));
    await until(async () => (await store.count()) === 2);
    renameSync(dir, join(base, 'away'));
    await until(async () => (await store.count()) === 0);
    renameSync(join(base, 'away'), dir);
    await until(async () => (await store.count()) === 2);
    // And it is watched again where it is now.
    photo(join(dir, 'c.jpg'), 12);
    await until(async () => (await store.count()) === 3);
  });
});
