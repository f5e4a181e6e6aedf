import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../../../electron/ground/logger';
import { ImageryCatalog } from '../../../electron/local-service/imagery/catalog';
import { RegionTable } from '../../../electron/local-service/imagery/geocoder';
import { PerceptionIndexer } from '../../../electron/local-service/imagery/perception/indexer';
import type { PerceptionModels } from '../../../electron/local-service/imagery/perception/models';
import type { DetectorPool, PhotoBytes } from '../../../electron/local-service/imagery/perception/pool';
import { writeGeotaggedJpeg } from '../../../electron/local-service/imagery/photo-writer';
import { embeddedImageryStorage } from '../../../electron/local-service/imagery/storage';

const base = mkdtempSync(join(tmpdir(), 'fl-indexer-files-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));

describe('the detectors read photos', () => {
  it('only from the file indexed, and report each photo they could not read with its reason', async () => {
    const dir = join(base, 'photos');
    const outside = join(base, 'outside');
    for (const d of [dir, outside]) mkdirSync(d);
    for (const [name, lat] of [['a.jpg', 10], ['b.jpg', 11], ['c.jpg', 12]] as const)
      writeGeotaggedJpeg(join(dir, name), { width: 16, height: 16, latitude: lat, longitude: 10 });
    const store = embeddedImageryStorage(new Database(':memory:'));
    const catalog = new ImageryCatalog({ dirs: [dir], store, geocode: () => null, regions: new RegionTable(), logger: createMemoryLogger(), watch: false });
    await catalog.scan();
    // a.jpg becomes a link to a file outside; b.jpg the detector cannot decode.
    const marker = Buffer.from(`MARKER-${Date.now()}`);
    writeFileSync(join(outside, 'secret.jpg'), marker);
    renameSync(join(dir, 'a.jpg'), join(outside, 'a.jpg'));
    symlinkSync(join(outside, 'secret.jpg'), join(dir, 'a.jpg'));
    const received: Buffer[] = [];
    const pool = {
      size: 1,
      reads: false,
      async detect(photo: string | PhotoBytes) {
        if (typeof photo === 'string') throw new Error('read by path');
        received.push(Buffer.from(photo.bytes));
        if (photo.name.endsWith('b.jpg')) throw new Error('SOI not found');
        return { width: 16, height: 16, objects: [], faces: [], text: [] };
      },
    } as unknown as DetectorPool;
    const models = { detectorKey: 'det@1', faces: { id: 'faces', version: '1' } } as unknown as PerceptionModels;
    const indexer = new PerceptionIndexer({ store, pool, models, logger: createMemoryLogger(), open: (p) => catalog.openPhoto(p) });
    await indexer.kick();
    const p = indexer.progress();
    expect(p).toMatchObject({ done: 3, failed: 2 });
    expect(p.failures.sort((x, y) => x.path.localeCompare(y.path))).toEqual([
      { path: join(dir, 'a.jpg'), reason: 'not read: the photo was replaced by a symbolic link' },
      { path: join(dir, 'b.jpg'), reason: 'SOI not found' },
    ]);
    expect(received).toHaveLength(2);
    expect(received.some((b) => b.includes(marker))).toBe(false);
    expect(received.some((b) => b.equals(readFileSync(join(dir, 'c.jpg'))))).toBe(true);
    await catalog.close();
  });
});
