/**
 * Which points of a large set a frame needs to draw. Points off screen (beyond the disc radius)
 * are left out, and of the points that fall in one small screen cell only the first is kept, at
 * its own position: the others would be drawn within a pixel or two of it, under the same disc.
 * A million points over a country at country zoom come down to about one per cell, which is
 * what the GPU then rasterises; zoomed in, only the points in view are drawn at all.
 */
export interface ScreenPlacement {
  /** Device pixels per map unit, as the 2x2 part of OpenLayers' coordinate-to-pixel transform (a, b, c, d). */
  matrix: readonly [number, number, number, number];
  /** Device-pixel position of the buffer's origin (as placed in this copy of the world). */
  originPx: readonly [number, number];
  width: number;
  height: number;
  /** Device pixels beyond each edge where a point still shows part of its disc. */
  margin: number;
  /** Side of a screen cell, in device pixels. */
  cell: number;
}

/** Reusable scratch: `out` is as large as the buffer, `seen` grows to the largest grid asked for. */
export class ThinScratch {
  seen = new Uint8Array(0);
  constructor(public readonly out: Float32Array) {}
}

/**
 * Copies the kept points (origin-relative, like the input) to the front of `scratch.out` and
 * returns how many there are.
 */
export function thinToScreen(positions: Float32Array, count: number, at: ScreenPlacement, scratch: ThinScratch): number {
  const [a, b, c, d] = at.matrix;
  const [ox, oy] = at.originPx;
  const { margin, cell } = at;
  const cols = Math.ceil((at.width + 2 * margin) / cell);
  const rows = Math.ceil((at.height + 2 * margin) / cell);
  if (scratch.seen.length < cols * rows) scratch.seen = new Uint8Array(cols * rows);
  const seen = scratch.seen;
  seen.fill(0, 0, cols * rows);
  const out = scratch.out;
  const inv = 1 / cell;
  const maxX = at.width + margin;
  const maxY = at.height + margin;
  let n = 0;
  for (let k = 0; k < 2 * count; k += 2) {
    const x = positions[k]!;
    const y = positions[k + 1]!;
    const px = a * x + c * y + ox;
    const py = b * x + d * y + oy;
    if (px < -margin || py < -margin || px >= maxX || py >= maxY) continue;
    const slot = Math.floor((py + margin) * inv) * cols + Math.floor((px + margin) * inv);
    if (seen[slot]) continue;
    seen[slot] = 1;
    out[2 * n] = x;
    out[2 * n + 1] = y;
    n++;
  }
  return n;
}
