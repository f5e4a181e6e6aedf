import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import jpeg from 'jpeg-js';
import { afterAll, describe, expect, it } from 'vitest';
import { MediaSigner, thumbnail, THUMB_MAX } from '../../../electron/local-service/imagery/media';
import { writeGeotaggedJpeg } from '../../../electron/local-service/imagery/photo-writer';
import type { PhotoRow } from '../../../electron/local-service/imagery/store';

const dir = mkdtempSync(join(tmpdir(), 'fl-media-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('MediaSigner', () => {
  it('binds a signature to its id, variant and secret', () => {
    const a = new MediaSigner(Buffer.alloc(32, 1));
    const b = new MediaSigner(Buffer.alloc(32, 2));
    const id = '0b7f5a44-0c0e-4b4e-9a55-0d1f1d2b3c4d';
    const sig = a.sign(id, 'image');
    expect(a.verify(id, 'image', sig)).toBe(true);
    expect(a.verify(id, 'thumb', sig)).toBe(false);
    expect(a.verify(id.replace('0b', '0c'), 'image', sig)).toBe(false);
    expect(b.verify(id, 'image', sig)).toBe(false);
    expect(a.verify(id, 'image', undefined)).toBe(false);
    expect(a.verify(id, 'image', [sig])).toBe(false);
  });
});

describe('thumbnail', () => {
  it('scales a JPEG down to the thumbnail size and caches it', async () => {
    const path = join(dir, 'big.jpg');
    writeGeotaggedJpeg(path, { width: 800, height: 600, latitude: 1, longitude: 1 });
    const row = { id: 'big', path, mime: 'image/jpeg', mtime_ms: statSync(path).mtimeMs } as PhotoRow;
    const cache = join(dir, 'thumbs');
    const t = await thumbnail(row, cache);
    const img = jpeg.decode(t!, { useTArray: true });
    expect([img.width, img.height]).toEqual([THUMB_MAX, 240]);
    expect(readdirSync(cache)).toHaveLength(1);
    const again = await thumbnail(row, cache);
    expect(again!.equals(t!)).toBe(true);
    expect(existsSync(join(cache, `big-${Math.round(row.mtime_ms)}.jpg`))).toBe(true);
  });

  it('has none for other formats without an embedded thumbnail', async () => {
    const row = { id: 'x', path: join(dir, 'big.jpg'), mime: 'image/png', mtime_ms: 0 } as PhotoRow;
    expect(await thumbnail(row, join(dir, 'thumbs'))).toBeNull();
  });
});
