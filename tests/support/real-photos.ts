import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import jpeg from 'jpeg-js';
import { readPng } from './png';

/** One photo of tests/fixtures/real-photos.json, labelled by looking at it. */
export interface RealPhoto {
  src: string;
  file: string;
  what: string;
  classes: string[];
  maybe?: string[];
  faces: number;
  facesMaybe?: number;
  text?: string[];
}

interface Labels {
  evaluated: string[];
  sources: Record<string, { dir: string; package: string; licence: string }>;
  photos: RealPhoto[];
}

export const REAL_PHOTOS: Labels = JSON.parse(readFileSync(join(import.meta.dirname, '../fixtures/real-photos.json'), 'utf8'));

/** Where a photo is installed: a Debian package's path, or `node:<package>/<folder>` in node_modules. */
export function realPhotoPath(p: RealPhoto): string {
  const dir = REAL_PHOTOS.sources[p.src]!.dir;
  if (!dir.startsWith('node:')) return join(dir, p.file);
  const [scope, name, ...rest] = dir.slice(5).split('/');
  const pkg = dirname(createRequire(import.meta.url).resolve(`${scope}/${name}/package.json`));
  return join(pkg, ...rest, p.file);
}

/** The packages missing for the set (scripts/setup.sh test installs them). */
export function missingRealPhotos(): string[] {
  return [...new Set(REAL_PHOTOS.photos.filter((p) => !existsSync(realPhotoPath(p))).map((p) => REAL_PHOTOS.sources[p.src]!.package))];
}

/** The photo as JPEG bytes (PNGs are encoded at quality 92: the detectors read JPEG) and its size. */
export function realPhotoJpeg(p: RealPhoto): { bytes: Buffer; width: number; height: number } {
  const bytes = readFileSync(realPhotoPath(p));
  if (!p.file.endsWith('.png')) {
    const head = jpeg.decode(bytes, { useTArray: true });
    return { bytes, width: head.width, height: head.height };
  }
  const img = readPng(bytes);
  return { bytes: Buffer.from(jpeg.encode(img, 92).data), width: img.width, height: img.height };
}
