import { describe, expect, it } from 'vitest';
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
});
