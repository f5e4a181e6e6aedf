import proj4 from 'proj4';
import { describe, expect, it } from 'vitest';
import PointIndex from '../../../../renderer/src/map/PointIndex';
import { buildPointBuffer } from '../../../../renderer/src/map/pointBuffer';

// Web Mercator by proj4 (its own definition, not OpenLayers'): the reference for every position.
const merc = (lon: number, lat: number) => proj4('EPSG:4326', 'EPSG:3857', [lon, lat]) as [number, number];
const WORLD = 2 * Math.PI * 6378137;

const fc = (features: Array<{ id: string; geometry: unknown }>) => ({
  type: 'FeatureCollection' as const,
  features: features.map((f) => ({ type: 'Feature' as const, ...f })),
});

/** Map position of the buffer's k-th point, in double precision. */
const at = (b: ReturnType<typeof buildPointBuffer>, k: number) => [b.positions[2 * k]! + b.origin[0], b.positions[2 * k + 1]! + b.origin[1]];

describe('the GPU point buffer', () => {
  it('holds every point projected to Web Mercator, relative to the centre of their extent, with its place in the collection', () => {
    const lonLat: Array<[number, number]> = [[4.85, 45.76], [-73.99, 40.73], [151.21, -33.87], [179.9, 0.1], [-179.9, -0.1], [0, 84.9]];
    const b = buildPointBuffer(
      fc([
        { id: 'line', geometry: { type: 'LineString', coordinates: [[2.35, 48.85], [5.37, 43.3]] } },
        ...lonLat.map((c, i) => ({ id: `p${i}`, geometry: { type: 'Point', coordinates: c } })),
        { id: 'none', geometry: null },
        { id: 'bad', geometry: { type: 'Point', coordinates: ['x', 1] } },
        { id: 'area', geometry: { type: 'Polygon', coordinates: [[[0, 0], [1, 0], [1, 1], [0, 0]]] } },
      ]),
    );
    expect(b.count).toBe(lonLat.length);
    expect(b.positions).toBeInstanceOf(Float32Array);
    expect(b.positions).toHaveLength(2 * lonLat.length);
    expect([...b.slots]).toEqual(lonLat.map((_, i) => i + 1));
    expect(b.others).toEqual([0, lonLat.length + 3]);
    const projected = lonLat.map(([lon, lat]) => merc(lon, lat));
    const xs = projected.map((p) => p[0]);
    const ys = projected.map((p) => p[1]);
    const [minX, maxX, minY, maxY] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
    expect(b.extent[0]).toBeCloseTo(minX, 3);
    expect(b.extent[1]).toBeCloseTo(minY, 3);
    expect(b.extent[2]).toBeCloseTo(maxX, 3);
    expect(b.extent[3]).toBeCloseTo(maxY, 3);
    expect(b.origin[0]).toBeCloseTo((minX + maxX) / 2, 3);
    expect(b.origin[1]).toBeCloseTo((minY + maxY) / 2, 3);
    // A world-wide set: float32 keeps offsets of up to 2e7 m to within a couple of metres.
    projected.forEach(([x, y], k) => {
      expect(Math.abs(at(b, k)[0]! - x)).toBeLessThan(2);
      expect(Math.abs(at(b, k)[1]! - y)).toBeLessThan(2);
    });
  });

  it('keeps a town-sized set to the centimetre although it lies thousands of kilometres from 0,0', () => {
    const lonLat = Array.from({ length: 500 }, (_, i) => [11.57 + (i % 25) * 0.002, 48.13 + Math.floor(i / 25) * 0.0015] as [number, number]);
    const b = buildPointBuffer(fc(lonLat.map((c, i) => ({ id: `p${i}`, geometry: { type: 'Point', coordinates: c } }))));
    lonLat.forEach(([lon, lat], k) => {
      const [x, y] = merc(lon, lat);
      expect(Math.abs(at(b, k)[0]! - x)).toBeLessThan(0.01);
      expect(Math.abs(at(b, k)[1]! - y)).toBeLessThan(0.01);
    });
  });

  it('is empty for a set without points', () => {
    const b = buildPointBuffer(fc([{ id: 'l', geometry: { type: 'LineString', coordinates: [[0, 0], [1, 1]] } }]));
    expect(b.count).toBe(0);
    expect(b.positions).toHaveLength(0);
    expect(b.others).toEqual([0]);
    expect(b.extent[0]).toBe(Infinity);
  });
});

describe('picking through the point index', () => {
  it('finds the nearest point within the radius, as a brute-force search over the same points does', () => {
    let seed = 7;
    const rnd = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
    const lonLat = Array.from({ length: 3000 }, () => [-5 + 15 * rnd(), 40 + 10 * rnd()] as [number, number]);
    // One feature without a geometry first: indices are the collection's, not the buffer's.
    const b = buildPointBuffer(fc([{ id: 'none', geometry: null }, ...lonLat.map((c, i) => ({ id: `p${i}`, geometry: { type: 'Point', coordinates: c } }))]));
    const index = new PointIndex(b);
    const projected = lonLat.map(([lon, lat]) => merc(lon, lat));
    for (let k = 0; k < 200; k++) {
      const q = merc(-5 + 15 * rnd(), 40 + 10 * rnd());
      const radius = 20_000;
      let best = -1;
      let bestD = Infinity;
      projected.forEach(([x, y], i) => {
        const d = Math.hypot(x - q[0], y - q[1]);
        if (d <= radius && d < bestD) [best, bestD] = [i + 1, d];
      });
      expect(index.nearest(q, radius) ?? -1).toBe(best);
    }
    // A click on the next copy of the world east finds the same point.
    const [x0, y0] = projected[0]!;
    expect(index.nearest([x0 + WORLD, y0], 5)).toBe(1);
  });

  it('finds nothing in an empty set', () => {
    expect(new PointIndex(buildPointBuffer(fc([]))).nearest([0, 0], 1e7)).toBeNull();
  });
});
