import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, renameSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ImageryResponseSuccess } from '../../../shared/service/imagery';
import { writeGeotaggedJpeg } from '../../../electron/local-service/imagery/photo-writer';
import { KNOWN, writeKnownFolder } from './fixtures';
import { startHarness, type Harness } from './harness';

/**
 * A photo's signed media URLs serve only the very file that was indexed: not a symlink put in
 * its place, not another file renamed there, not a file reached through a folder swapped for a
 * symlink. A marker file of unique content outside the photo folder stands for what must not leak.
 */
describe('media URLs after the photo file is swapped', () => {
  let h: Harness;
  let dir: string;
  let outside: string;
  const marker = `MARKER-${randomUUID()}`;
  const WHEN = 1_700_000_000;

  beforeAll(async () => {
    dir = writeKnownFolder();
    mkdirSync(join(dir, 'sub'));
    writeGeotaggedJpeg(join(dir, 'sub', 'nested.jpg'), { width: 40, height: 30, latitude: 48.2, longitude: 16.37, keywords: ['nestedphoto'], seed: 9 });
    mkdirSync(join(dir, 'sub2'));
    writeGeotaggedJpeg(join(dir, 'sub2', 'moved.jpg'), { width: 40, height: 30, latitude: 50.1, longitude: 14.4, keywords: ['movedphoto'], seed: 10 });
    outside = mkdtempSync(join(tmpdir(), 'fl-imagery-outside-'));
    // Whole seconds, which another file can be given exactly.
    utimesSync(join(dir, KNOWN[1].file), WHEN, WHEN);
    h = await startHarness({ photoDirs: [dir] });
  });
  afterAll(async () => {
    await h.close();
    rmSync(dir, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  });

  const urlsOf = async (query: string) => {
    const res = await h.searchReq({ query });
    expect(res.status).toBe(200);
    const rec = ImageryResponseSuccess.parse(res.json).data[0]!;
    return { image: rec.image, thumb: String(rec['thumbnail']) };
  };

  const get = async (url: string, range?: string) => {
    const u = new URL(url);
    const app = u.pathname.startsWith('/v1/') ? h.base : h.search;
    const res = await app.inject({ method: 'GET', url: u.pathname + u.search, headers: range ? { range } : {} });
    return { status: res.statusCode, body: res.rawPayload };
  };

  /** The original, a byte range of it and its thumbnail: each refused, none carrying the marker. */
  const expectRefused = async (urls: { image: string; thumb: string }) => {
    for (const [url, range] of [[urls.image, undefined], [urls.image, 'bytes=0-99'], [urls.image, 'bytes=10-'], [urls.thumb, undefined]] as const) {
      const res = await get(url, range);
      expect(res.status, `${url} ${range ?? ''}`).toBe(404);
      expect(res.body.includes(marker)).toBe(false);
    }
  };

  /** A marker file of exactly `size` bytes. */
  const writeMarker = (path: string, size: number) => {
    const body = Buffer.alloc(size, ' ');
    Buffer.from(marker).copy(body, 0);
    Buffer.from(marker).copy(body, Math.max(0, size - marker.length));
    writeFileSync(path, body);
  };

  it('serves the photos while they are the files indexed', async () => {
    for (const q of [KNOWN[0].city, KNOWN[1].city, 'nestedphoto', 'movedphoto']) {
      const urls = await urlsOf(q);
      expect((await get(urls.image)).status).toBe(200);
      expect((await get(urls.image, 'bytes=0-99')).status).toBe(206);
      // Cached from here on: the cache must not answer for a swapped file either.
      expect((await get(urls.thumb)).status).toBe(200);
    }
  });

  it('refuses a symlink put in the photo\'s place and drops the photo', async () => {
    const urls = await urlsOf(KNOWN[0].city);
    const path = join(dir, KNOWN[0].file);
    const target = join(outside, 'secret.txt');
    writeMarker(target, statSync(path).size);
    renameSync(path, join(outside, 'original.jpg'));
    symlinkSync(target, path);
    await expectRefused(urls);
    // The refusal queued a scan of the file: the link is no photo.
    await h.plugin.catalog()!.scan();
    expect(ImageryResponseSuccess.parse((await h.searchReq({ query: KNOWN[0].city })).json).data).toEqual([]);
  });

  it('refuses another regular file renamed into its place, alike in size and mtime', async () => {
    const urls = await urlsOf(KNOWN[1].city);
    const path = join(dir, KNOWN[1].file);
    const before = statSync(path);
    const other = join(outside, 'other.jpg');
    writeMarker(other, before.size);
    utimesSync(other, WHEN, WHEN);
    // Same folder's file system, so the rename keeps the marker's inode.
    const staged = join(dir, '.staged.jpg');
    renameSync(other, staged);
    renameSync(staged, path);
    expect(statSync(path).ino).not.toBe(before.ino);
    expect([statSync(path).size, statSync(path).mtimeMs]).toEqual([before.size, WHEN * 1000]);
    await expectRefused(urls);
    await h.plugin.catalog()!.scan();
    const status = await h.plugin.catalog()!.status();
    expect(status.skipped.map((s) => s.path)).toContain(path);
  });

  it('refuses a file reached through a folder swapped for a symlink', async () => {
    const urls = await urlsOf('nestedphoto');
    mkdirSync(join(outside, 'evil'));
    writeMarker(join(outside, 'evil', 'nested.jpg'), statSync(join(dir, 'sub', 'nested.jpg')).size);
    renameSync(join(dir, 'sub'), join(outside, 'sub-away'));
    symlinkSync(join(outside, 'evil'), join(dir, 'sub'));
    await expectRefused(urls);
  });

  it('refuses the indexed file itself once its folder lies outside the photo folders', async () => {
    const urls = await urlsOf('movedphoto');
    renameSync(join(dir, 'sub2'), join(outside, 'sub2'));
    symlinkSync(join(outside, 'sub2'), join(dir, 'sub2'));
    await expectRefused(urls);
  });
});
