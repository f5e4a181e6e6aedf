import { describe, expect, it } from 'vitest';
import PointIndex from '../../../../renderer/src/map/PointIndex';
import { pointOf, readResults } from '../../../../renderer/src/map/readResults';

const R = 6378137;
const merc = (lon: number, lat: number) => [(R * lon * Math.PI) / 180, R * Math.log(Math.tan(Math.PI / 4 + (lat * Math.PI) / 360))];

const fc = (features: Array<{ id: string; geometry: unknown; properties?: Record<string, unknown> }>) => ({
  type: 'FeatureCollection' as const,
  features: features.map((f) => ({ type: 'Feature' as const, ...f })),
});

describe('results read for the map', () => {
  it('projects points to Web Mercator, keeps lines, skips what has no usable geometry, and bounds it all', () => {
    const read = readResults(
      fc([
        { id: 'a', geometry: { type: 'Point', coordinates: [4.85, 45.76] }, properties: { name: 'Lyon', heading: 90 } },
        { id: 'b', geometry: { type: 'LineString', coordinates: [[2.35, 48.85], [5.37, 43.3]] }, properties: { address: 'A7' } },
        { id: 'c', geometry: null },
        { id: 'd', geometry: { type: 'Point', coordinates: ['x', 1] } },
      ]),
      { details: true },
    );
    expect(read.features).toHaveLength(2);
    expect(read.skipped).toBe(2);
    expect(read.pointsOnly).toBe(false);
    const [x, y] = merc(4.85, 45.76);
    expect(pointOf(read.features[0]!)![0]).toBeCloseTo(x!, 3);
    expect(pointOf(read.features[0]!)![1]).toBeCloseTo(y!, 3);
    expect(read.features[0]!.get('i')).toBe(0);
    expect(read.features[0]!.get('name')).toBe('Lyon');
    expect(read.features[0]!.get('facing')).toBe(90);
    expect(read.features[1]!.get('i')).toBe(1);
    expect(read.features[1]!.get('name')).toBe('A7');
    expect(pointOf(read.features[1]!)).toBeNull();
    // The extent spans Paris (north-west) to Marseille/Lyon (south-east).
    const [minX, minY] = merc(2.35, 43.3);
    const [maxX, maxY] = merc(5.37, 48.85);
    expect(read.extent.map((v) => Math.round(v))).toEqual([minX, minY, maxX, maxY].map((v) => Math.round(v!)));
  });

  it('keeps large sets lean: no labels or facing unless asked', () => {
    const read = readResults(fc([{ id: 'a', geometry: { type: 'Point', coordinates: [0, 0] }, properties: { name: 'n' } }]), { details: false });
    expect(read.pointsOnly).toBe(true);
    expect(read.features[0]!.get('name')).toBeUndefined();
  });

  it('picks the nearest point within the radius, as a brute-force search over the same points does', () => {
    let seed = 7;
    const rnd = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
    const lonLat = Array.from({ length: 3000 }, () => [-5 + 15 * rnd(), 40 + 10 * rnd()] as [number, number]);
    const read = readResults(fc(lonLat.map((c, i) => ({ id: `p${i}`, geometry: { type: 'Point', coordinates: c } }))), { details: false });
    const index = new PointIndex(read.features);
    const projected = lonLat.map(([lon, lat]) => merc(lon, lat));
    for (let k = 0; k < 200; k++) {
      const q = merc(-5 + 15 * rnd(), 40 + 10 * rnd());
      const radius = 20_000;
      let best = -1;
      let bestD = Infinity;
      projected.forEach(([x, y], i) => {
        const d = Math.hypot(x! - q[0]!, y! - q[1]!);
        if (d <= radius && d < bestD) [best, bestD] = [i, d];
      });
      const got = index.nearest(q, radius);
      expect(got === null ? -1 : got.get('i')).toBe(best);
    }
    // A click on the next copy of the world east finds the same point.
    const [x0, y0] = projected[0]!;
    expect(index.nearest([x0! + 2 * Math.PI * R, y0!], 1)?.get('i')).toBe(0);
  });
});
