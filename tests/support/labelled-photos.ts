import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Box } from '../../electron/local-service/imagery/perception/pool';

/** Test images shipped in @jimp/test-utils (MIT). */
export const JIMP_IMAGES = join(dirname(createRequire(import.meta.url).resolve('@jimp/test-utils/package.json')), 'images');

/**
 * Objects labelled by hand from looking at the images: [left, top, width, height] in pixels.
 * fillbytes.jpg is a CCTV view of a car park (704 x 576); cops.jpg two police figurines (640 x 426).
 */
export const LABELLED: { file: string; label: string; box: Box; what: string }[] = [
  { file: 'fillbytes.jpg', label: 'car', box: [48, 335, 228, 200], what: 'dark hatchback, front left' },
  { file: 'fillbytes.jpg', label: 'car', box: [245, 263, 223, 129], what: 'white hatchback, centre' },
  { file: 'fillbytes.jpg', label: 'car', box: [262, 183, 106, 38], what: 'black saloon at the back' },
  { file: 'fillbytes.jpg', label: 'car', box: [12, 210, 78, 63], what: 'dark car, left edge' },
  { file: 'fillbytes.jpg', label: 'car', box: [340, 243, 188, 99], what: 'white car behind the centre one' },
  { file: 'fillbytes.jpg', label: 'car', box: [430, 230, 150, 75], what: 'red car' },
  { file: 'cops.jpg', label: 'person', box: [160, 22, 150, 372], what: 'policewoman figurine' },
  { file: 'cops.jpg', label: 'person', box: [300, 50, 212, 345], what: 'policeman figurine' },
];

export function iou(a: Box, b: Box): number {
  const w = Math.min(a[0] + a[2], b[0] + b[2]) - Math.max(a[0], b[0]);
  const h = Math.min(a[1] + a[3], b[1] + b[3]) - Math.max(a[1], b[1]);
  const inter = Math.max(0, w) * Math.max(0, h);
  return inter / (a[2] * a[3] + b[2] * b[3] - inter);
}
