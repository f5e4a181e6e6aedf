import { createHmac, timingSafeEqual } from 'node:crypto';
import { existsSync, mkdirSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import exifr from 'exifr';
import jpeg from 'jpeg-js';
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

export const THUMB_MAX = 320;

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

/**
 * A JPEG thumbnail of a photo: the camera's embedded EXIF thumbnail when there is one, else the
 * photo decoded and scaled down (jpeg-js; no native image library is bundled), cached on disk
 * under `cacheDir` by id and mtime. Returns null for formats without a thumbnail (the original
 * is served instead).
 */
export async function thumbnail(row: PhotoRow, cacheDir: string): Promise<Buffer | null> {
  if (row.mime !== 'image/jpeg') {
    const embedded = await exifr.thumbnail(row.path).catch(() => undefined);
    return embedded ? Buffer.from(embedded) : null;
  }
  const cached = join(cacheDir, `${row.id}-${Math.round(row.mtime_ms)}.jpg`);
  if (existsSync(cached)) return readFile(cached);
  const embedded = await exifr.thumbnail(row.path).catch(() => undefined);
  let out: Buffer;
  if (embedded && embedded.length > 0) out = Buffer.from(embedded);
  else {
    const img = jpeg.decode(await readFile(row.path), {
      useTArray: true,
      formatAsRGBA: true,
      maxResolutionInMP: 100,
      maxMemoryUsageInMB: 1024,
    });
    const small = downscale(img.data, img.width, img.height, THUMB_MAX);
    out = jpeg.encode(small, 75).data;
  }
  mkdirSync(cacheDir, { recursive: true });
  await writeFile(cached, out);
  return out;
}
