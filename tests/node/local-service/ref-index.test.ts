import * as turf from '@turf/turf';
import type { Geometry } from 'geojson';
import { describe, expect, it } from 'vitest';
import { geometryDistance } from '../../../electron/local-service/query/layers/geometry';
import { referenceIndex } from '../../../electron/local-service/query/layers/ref-index';

// A seeded mix of points, short lines and small squares over a 20 km square.
let seed = 7;
const rand = () => ((seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 4294967296);
const geoms: Geometry[] = Array.from({ length: 500 }, (_, i) => {
  const x = 8 + rand() * 0.25;
  const y = 47 + rand() * 0.18;
  if (i % 3 === 0) return { type: 'Point', coordinates: [x, y] };
  if (i % 3 === 1) return { type: 'LineString', coordinates: [[x, y], [x + 0.003, y + 0.001]] };
  return turf.bboxPolygon([x, y, x + 0.002, y + 0.002]).geometry;
});
const probes: Geometry[] = Array.from({ length: 60 }, () => ({ type: 'Point', coordinates: [7.95 + rand() * 0.35, 46.95 + rand() * 0.28] }));

describe('reference index', () => {
  const index = referenceIndex(geoms);
  const brute = (g: Geometry) => Math.min(...geoms.map((r) => geometryDistance(g, r)));

  it('nearest matches a distance to every geometry', () => {
    for (const p of probes) expect(index.nearest(p)).toBeCloseTo(brute(p), 6);
  });

  it('within gives the distance when it is inside the radius, else Infinity', () => {
    for (const p of probes) {
      const d = brute(p);
      for (const r of [200, 800, 3000]) expect(index.within(p, r)).toEqual(d <= r ? expect.closeTo(d, 6) : Infinity);
    }
  });
});
