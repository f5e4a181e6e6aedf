import { createHmac, timingSafeEqual } from 'node:crypto';
import { existsSync, mkdirSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import exifr from 'exifr';
import jpeg from 'jpeg-js';
import { jpegSize, pngSize, readBuffer, type PixelSize } from './image-size';
import type { PhotoRow } from './store';

export type MediaVariant = 'image' | 'thumb';

/**
 * Media URLs are capability URLs: each carries an HMAC of the photo id and variant under a
 * secret kept in the service's database. Only a caller that got the URL from an authenticated
 * /search or /v1/stream response can fetch the file, and image elements can load it without
 * sending an API key.
 */
export class MediaSigner {
  constructor(private readonly secret: Buffer) {}

  sign(id: string, variant: MediaVariant): string {
    return createHmac('sha256', this.secret).update(`${id}:${variant}`).digest('base64url').slice(0, 32);
  }

  verify(id: string, variant: MediaVariant, sig: unknown): boolean {
    if (typeof sig !== 'string') return false;
    const want = Buffer.from(this.sign(id, variant));
    const got = Buffer.from(sig);
    return want.length === got.length && timingSafeEqual(want, got);
  }
}

/** The long side of a thumbnail scaled down here. */
export const THUMB_MAX = 320;
/** The most a thumbnail may have on its long side, whatever made it (embedded, or the original). */
export const THUMB_LIMIT = 1024;
/** Photos with more pixels than this are not decoded for a thumbnail (a few bytes of PNG can claim billions). */
export const DECODE_PIXEL_LIMIT = 100_000_000;

/** Box-filter downscale of RGBA pixels so the longer side is at most `max`. */
function downscale(src: Uint8Array, w: number, h: number, max: number): { data: Buffer; width: number; height: number } {
  const k = Math.max(w, h) / max;
  if (k <= 1) return { data: Buffer.from(src), width: w, height: h };
  const tw = Math.max(1, Math.round(w / k));
  const th = Math.max(1, Math.round(h / k));
  const out = Buffer.alloc(tw * th * 4);
  for (let ty = 0; ty < th; ty++) {
    const y0 = Math.floor((ty * h) / th);
    const y1 = Math.max(y0 + 1, Math.floor(((ty + 1) * h) / th));
    for (let tx = 0; tx < tw; tx++) {
      const x0 = Math.floor((tx * w) / tw);
      const x1 = Math.max(x0 + 1, Math.floor(((tx + 1) * w) / tw));
      let r = 0;
      let g = 0;
      let b = 0;
      for (let y = y0; y < y1; y++) {
        for (let x = x0; x < x1; x++) {
          const i = (y * w + x) * 4;
          r += src[i]!;
          g += src[i + 1]!;
          b += src[i + 2]!;
        }
      }
      const cnt = (y1 - y0) * (x1 - x0);
      const o = (ty * tw + tx) * 4;
      out[o] = r / cnt;
      out[o + 1] = g / cnt;
      out[o + 2] = b / cnt;
      out[o + 3] = 255;
    }
  }
  return { data: out, width: tw, height: th };
}

export type Thumbnail =
  | { kind: 'jpeg'; bytes: Buffer }
  /** The original is itself within a thumbnail's size and is served as one. */
  | { kind: 'original' }
  | { kind: 'none'; reason: string };

const px = (n: number) => n.toLocaleString('en-US');
const sizeText = (s: PixelSize) => `${px(s.width)} × ${px(s.height)} px`;
const withinThumb = (s: PixelSize) => Math.max(s.width, s.height) <= THUMB_LIMIT;
const pastPixelLimit = (s: PixelSize) => s.width * s.height > DECODE_PIXEL_LIMIT;
const pixelLimitReason = (s: PixelSize) =>
  `not decoded: the photo is ${sizeText(s)} (${px(Math.round((s.width * s.height) / 1e6))} megapixels), past the ${px(DECODE_PIXEL_LIMIT / 1e6)}-megapixel limit for thumbnails`;

/** The pixel size a photo's bytes declare (JPEG frame header, PNG IHDR), else the size indexed. */
async function declaredSize(row: PhotoRow, bytes: Buffer): Promise<PixelSize | null> {
  if (row.mime === 'image/jpeg') return jpegSize(readBuffer(bytes)).catch(() => null);
  if (row.mime === 'image/png') return pngSize(bytes);
  return row.width && row.height ? { width: row.width, height: row.height } : null;
}

/**
 * A photo's thumbnail, at most THUMB_LIMIT px on its long side: the camera's embedded EXIF
 * thumbnail when there is one that small, else a JPEG decoded (within DECODE_PIXEL_LIMIT) and
 * scaled to THUMB_MAX (jpeg-js; no native image library is bundled), cached on disk under
 * `cacheDir` by id, mtime and inode. Other formats are their own thumbnail only when already
 * that small; otherwise there is none, with the reason. `read` gives the photo's bytes (from the
 * handle the caller checked), called only when the cache has no thumbnail.
 */
export async function thumbnail(row: PhotoRow, read: () => Promise<Buffer>, cacheDir: string): Promise<Thumbnail> {
  const cached = join(cacheDir, `${row.id}-${Math.round(row.mtime_ms)}-${row.ino ?? 0}.jpg`);
  if (existsSync(cached)) return { kind: 'jpeg', bytes: await readFile(cached) };
  const bytes = await read();
  const embedded = await exifr.thumbnail(bytes).catch(() => undefined);
  if (embedded && embedded.length > 0) {
    const own = await jpegSize(readBuffer(Buffer.from(embedded))).catch(() => null);
    if (own && withinThumb(own)) return keep(cached, cacheDir, Buffer.from(embedded));
  }
  const size = await declaredSize(row, bytes);
  if (!size) return { kind: 'none', reason: `the ${row.mime} file declares no image size` };
  if (pastPixelLimit(size)) return { kind: 'none', reason: pixelLimitReason(size) };
  if (row.mime !== 'image/jpeg') {
    if (withinThumb(size)) return { kind: 'original' };
    return { kind: 'none', reason: `the photo is ${sizeText(size)}, larger than a thumbnail's ${px(THUMB_LIMIT)} px, and ${row.mime} photos are not scaled down here` };
  }
  const img = jpeg.decode(bytes, {
    useTArray: true,
    formatAsRGBA: true,
    maxResolutionInMP: DECODE_PIXEL_LIMIT / 1e6,
    maxMemoryUsageInMB: 1024,
  });
  const small = downscale(img.data, img.width, img.height, THUMB_MAX);
  return keep(cached, cacheDir, jpeg.encode(small, 75).data);
}

async function keep(path: string, cacheDir: string, bytes: Buffer): Promise<Thumbnail> {
  mkdirSync(cacheDir, { recursive: true });
  await writeFile(path, bytes);
  return { kind: 'jpeg', bytes };
}
