import * as turf from '@turf/turf';
import type { Geometry } from 'geojson';
import { describe, expect, it } from 'vitest';
import { geometryDistance } from '../../../electron/local-service/query/layers/geometry';
import { capLowerBound, capOf, piecesOf, referenceIndex } from '../../../electron/local-service/query/layers/ref-index';

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

describe('cap lower bounds', () => {
  // Long great-circle edges far north bulge past their vertices' latitudes: the cap must hold them.
  const lines: Geometry[] = [
    { type: 'LineString', coordinates: [[-40, 60], [40, 60]] },
    { type: 'LineString', coordinates: [[-9.1, 38.7], [37.6, 55.7]] },
    { type: 'LineString', coordinates: [[170, -40], [-170, -45]] },
    turf.bboxPolygon([10, 50, 20, 55]).geometry,
    ...piecesOf({ type: 'LineString', coordinates: Array.from({ length: 300 }, (_, i) => [-5 + i * 0.05, 45 + Math.sin(i / 9)]) }),
  ];
  const points: Geometry[] = Array.from({ length: 100 }, () => ({ type: 'Point', coordinates: [-180 + rand() * 360, -80 + rand() * 160] }));
  // Points near the lines too, where a loose bound would first go wrong.
  for (let i = 0; i < 40; i++) points.push({ type: 'Point', coordinates: [-40 + rand() * 80, 58 + rand() * 8] });

  it('never pass the exact distance (turf), and come near it far away', () => {
    let tight = 0;
    for (const g of lines) {
      for (const p of points) {
        const exact = geometryDistance(p, g);
        const lb = capLowerBound(capOf(p), capOf(g));
        expect(lb).toBeLessThanOrEqual(exact);
        if (exact > 5_000_000 && lb > exact * 0.5) tight++;
      }
    }
    expect(tight).toBeGreaterThan(50);
  });

  it('a route cut in pieces: within and nearest agree with the distance to the whole line', () => {
    const line: Geometry = { type: 'LineString', coordinates: Array.from({ length: 400 }, (_, i) => [2 + i * 0.02, 48 + Math.sin(i / 11) * 0.3]) };
    const index = referenceIndex(piecesOf(line));
    for (const p of probes.concat(points.slice(0, 40))) {
      const d = geometryDistance(p, line);
      expect(index.nearest(p)).toBeCloseTo(d, 3);
      for (const r of [5_000, 50_000]) expect(index.within(p, r)).toEqual(d <= r ? expect.closeTo(d, 3) : Infinity);
    }
  });
});
