import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import jpeg from 'jpeg-js';
import { afterAll, describe, expect, it } from 'vitest';
import { DECODE_PIXEL_LIMIT, MediaSigner, thumbnail, THUMB_LIMIT, THUMB_MAX } from '../../../electron/local-service/imagery/media';
import { writeGeotaggedJpeg } from '../../../electron/local-service/imagery/photo-writer';
import type { PhotoRow } from '../../../electron/local-service/imagery/store';

const dir = mkdtempSync(join(tmpdir(), 'fl-media-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A valid PNG of black 1-bit grey pixels: a few bytes however large it says it is. */
function writeBlackPng(path: string, width: number, height: number): void {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (b: Buffer) => {
    let c = 0xffffffff;
    for (const x of b) c = crcTable[(c ^ x) & 0xff]! ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const sum = Buffer.alloc(4);
    sum.writeUInt32BE(crc(body));
    return Buffer.concat([len, body, sum]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 1; // bit depth
  ihdr[9] = 0; // greyscale
  const raw = Buffer.alloc((1 + Math.ceil(width / 8)) * height);
  writeFileSync(
    path,
    Buffer.concat([
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
      chunk('IHDR', ihdr),
      chunk('IDAT', deflateSync(raw, { level: 9 })),
      chunk('IEND', Buffer.alloc(0)),
    ]),
  );
}

const rowOf = (path: string, mime: string, id: string) => ({ id, path, mime, mtime_ms: statSync(path).mtimeMs, ino: statSync(path).ino }) as PhotoRow;

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
    const row = rowOf(path, 'image/jpeg', 'big');
    const cache = join(dir, 'thumbs');
    let reads = 0;
    const read = () => {
      reads++;
      return readFile(path);
    };
    const t = await thumbnail(row, read, cache);
    if (t.kind !== 'jpeg') throw new Error(`no thumbnail: ${JSON.stringify(t)}`);
    const img = jpeg.decode(t.bytes, { useTArray: true });
    expect([img.width, img.height]).toEqual([THUMB_MAX, 240]);
    expect(readdirSync(cache)).toHaveLength(1);
    const again = await thumbnail(row, read, cache);
    expect(again.kind === 'jpeg' && again.bytes.equals(t.bytes)).toBe(true);
    expect(reads).toBe(1);
    expect(existsSync(join(cache, `big-${Math.round(row.mtime_ms)}-${row.ino}.jpg`))).toBe(true);
  });

  it('serves a PNG within a thumbnail\'s size as its own thumbnail', async () => {
    const path = join(dir, 'small.png');
    writeBlackPng(path, 64, 48);
    expect(await thumbnail(rowOf(path, 'image/png', 'small'), () => readFile(path), join(dir, 'thumbs'))).toEqual({ kind: 'original' });
  });

  it('has none for a PNG larger than a thumbnail, and says why', async () => {
    const path = join(dir, 'wide.png');
    writeBlackPng(path, THUMB_LIMIT + 1, 10);
    const t = await thumbnail(rowOf(path, 'image/png', 'wide'), () => readFile(path), join(dir, 'thumbs'));
    expect(t.kind).toBe('none');
    expect(t.kind === 'none' && t.reason).toContain(`${(THUMB_LIMIT + 1).toLocaleString('en-US')} × 10 px`);
  });

  it('does not decode a small file of huge dimensions past the pixel limit', async () => {
    const side = 30_000;
    expect(side * side).toBeGreaterThan(DECODE_PIXEL_LIMIT);
    const png = join(dir, 'huge.png');
    writeBlackPng(png, side, side);
    const bytes = statSync(png).size;
    expect(bytes).toBeLessThan(200_000);
    const t = await thumbnail(rowOf(png, 'image/png', 'huge'), () => readFile(png), join(dir, 'thumbs'));
    expect(t).toEqual({ kind: 'none', reason: expect.stringMatching(/not decoded: the photo is 30,000 × 30,000 px \(900 megapixels\), past the \d+-megapixel limit/) });
    // A JPEG header claiming as much: patched frame size, never decoded.
    const path = join(dir, 'huge.jpg');
    writeGeotaggedJpeg(path, { width: 16, height: 16, latitude: 1, longitude: 1 });
    const b = await readFile(path);
    for (let i = 2; i < b.length - 9; i++)
      if (b[i] === 0xff && b[i + 1] === 0xc0) {
        b.writeUInt16BE(side, i + 5);
        b.writeUInt16BE(side, i + 7);
        break;
      }
    writeFileSync(path, b);
    const j = await thumbnail(rowOf(path, 'image/jpeg', 'hugejpg'), () => readFile(path), join(dir, 'thumbs'));
    expect(j.kind === 'none' && j.reason).toMatch(/^not decoded: the photo is 30,000 × 30,000 px/);
  });
});
