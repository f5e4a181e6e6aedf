import { describe, expect, it } from 'vitest';
import { ThinScratch, thinToScreen, type ScreenPlacement } from '../../../../renderer/src/map/thinPoints';

/** Screen position of point k under a placement, worked out here on its own. */
const screen = (pos: Float32Array, k: number, at: ScreenPlacement) => {
  const [a, b, c, d] = at.matrix;
  return [a * pos[2 * k]! + c * pos[2 * k + 1]! + at.originPx[0], b * pos[2 * k]! + d * pos[2 * k + 1]! + at.originPx[1]];
};

function randomPositions(n: number, spread: number): Float32Array {
  let seed = 11;
  const rnd = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
  const pos = new Float32Array(2 * n);
  for (let i = 0; i < 2 * n; i++) pos[i] = (rnd() - 0.5) * spread;
  return pos;
}

describe('thinning a large point set to what a frame draws', () => {
  // 1 map unit = 0.005 px, rotated 30 degrees, y down, origin at the screen centre; half the points off screen.
  const r = Math.PI / 6;
  const s = 0.005;
  const at: ScreenPlacement = {
    matrix: [s * Math.cos(r), -s * Math.sin(r), -s * Math.sin(r), -s * Math.cos(r)],
    originPx: [400, 300],
    width: 800,
    height: 600,
    margin: 5,
    cell: 2,
  };
  const n = 60_000;
  const pos = randomPositions(n, 200_000);
  const scratch = new ThinScratch(new Float32Array(pos.length));
  const kept = thinToScreen(pos, n, at, scratch);
  const keptPx = Array.from({ length: kept }, (_, k) => screen(scratch.out, k, at));

  it('keeps only points within the margin of the screen, each one of the input points, at most one per cell', () => {
    const input = new Set(Array.from({ length: n }, (_, k) => `${pos[2 * k]},${pos[2 * k + 1]}`));
    const cells = new Set<string>();
    const wrong: string[] = [];
    for (let k = 0; k < kept; k++) {
      if (!input.has(`${scratch.out[2 * k]},${scratch.out[2 * k + 1]}`)) wrong.push(`${k} is not an input point`);
      const [x, y] = keptPx[k]!;
      if (x! < -5 || y! < -5 || x! >= 805 || y! >= 605) wrong.push(`${k} is off screen at ${x},${y}`);
      cells.add(`${Math.floor((x! + 5) / 2)},${Math.floor((y! + 5) / 2)}`);
    }
    expect(wrong).toEqual([]);
    expect(cells.size).toBe(kept);
    expect(kept).toBeGreaterThan(0);
    expect(kept).toBeLessThan(n);
  });

  it('leaves no point on screen further than a cell diagonal from a drawn one', () => {
    const grid = new Map<string, number[][]>();
    for (const p of keptPx) {
      const key = `${Math.floor(p[0]! / 4)},${Math.floor(p[1]! / 4)}`;
      grid.set(key, [...(grid.get(key) ?? []), p]);
    }
    let onScreen = 0;
    let worst = 0;
    for (let k = 0; k < n; k++) {
      const [x, y] = screen(pos, k, at);
      if (x! < -5 || y! < -5 || x! >= 805 || y! >= 605) continue;
      onScreen++;
      let best = Infinity;
      for (let gx = -1; gx <= 1; gx++)
        for (let gy = -1; gy <= 1; gy++)
          for (const p of grid.get(`${Math.floor(x! / 4) + gx},${Math.floor(y! / 4) + gy}`) ?? []) best = Math.min(best, Math.hypot(p[0]! - x!, p[1]! - y!));
      worst = Math.max(worst, best);
    }
    expect(worst).toBeLessThanOrEqual(2 * Math.SQRT2 + 1e-6);
    // A good part of the points are in view, and some shared a cell with another.
    expect(onScreen).toBeGreaterThan(n / 4);
    expect(kept).toBeLessThan(onScreen);
  });

  it('draws every point of a sparse set', () => {
    const sparse = new Float32Array([0, 0, 1000, 0, 0, 1000, 2000, 2000]);
    const out = new ThinScratch(new Float32Array(sparse.length));
    const got = thinToScreen(sparse, 4, { ...at, matrix: [0.1, 0, 0, -0.1], originPx: [10, 500] }, out);
    expect(got).toBe(4);
    expect([...out.out]).toEqual([...sparse]);
  });
});
