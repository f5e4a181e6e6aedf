import jpeg from 'jpeg-js';
import { REAL_PHOTOS, realPhotoJpeg } from './real-photos';

/** Portraits of the labelled set whose every face is plain to see (no maybes, at least one face). */
const PORTRAITS = ['grace_hopper.jpg', 'astronaut.png', 'camera.png', 'cops.jpg'];

/**
 * A group photo made of the labelled portraits: `cols` x `rows` cells of `cell` px, each a portrait
 * area-averaged to fit, so each face is a small part of a large image. Answers the JPEG, how
 * many faces it shows (the portraits' labelled counts) and where each portrait is.
 */
export function groupPhoto(cols = 5, rows = 3, cell = 400): {
  bytes: Buffer;
  width: number;
  height: number;
  faces: number;
  cells: { x: number; y: number; size: number; faces: number }[];
} {
  const width = cols * cell, height = rows * cell;
  const out = new Uint8Array(width * height * 4).fill(255);
  let faces = 0;
  const cells: { x: number; y: number; size: number; faces: number }[] = [];
  for (let k = 0; k < cols * rows; k++) {
    const p = REAL_PHOTOS.photos.find((x) => x.file.endsWith(PORTRAITS[k % PORTRAITS.length]!))!;
    faces += p.faces;
    const img = jpeg.decode(realPhotoJpeg(p).bytes, { useTArray: true });
    const f = Math.max(img.width, img.height) / cell;
    const w = Math.floor(img.width / f), h = Math.floor(img.height / f);
    const ox = (k % cols) * cell, oy = Math.floor(k / cols) * cell;
    cells.push({ x: ox, y: oy, size: cell, faces: p.faces });
    for (let y = 0; y < h; y++)
      for (let x = 0; x < w; x++) {
        const sx0 = Math.floor(x * f), sx1 = Math.max(sx0 + 1, Math.floor((x + 1) * f));
        const sy0 = Math.floor(y * f), sy1 = Math.max(sy0 + 1, Math.floor((y + 1) * f));
        for (let c = 0; c < 3; c++) {
          let sum = 0, n = 0;
          for (let yy = sy0; yy < sy1; yy++) for (let xx = sx0; xx < sx1; xx++) { sum += img.data[(yy * img.width + xx) * 4 + c]!; n++; }
          out[((oy + y) * width + ox + x) * 4 + c] = sum / n;
        }
      }
  }
  return { bytes: Buffer.from(jpeg.encode({ width, height, data: out }, 90).data), width, height, faces, cells };
}
