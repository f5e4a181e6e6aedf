import * as turf from '@turf/turf';
import type { Geometry } from 'geojson';
import OpeningHours from 'opening_hours';
import { describe, expect, it } from 'vitest';
import { conditionTests, unheldConditions } from '../../../electron/local-service/query/layers/conditions';
import { geometryDistance } from '../../../electron/local-service/query/layers/geometry';
import type { Condition } from '../../../electron/local-service/query/plan';

const NOW = new Date(2026, 0, 2, 12, 45); // a Friday

describe('attribute conditions', () => {
  it('a condition is unheld only when no layer of the subject has its column, and only when every layer\'s columns are known', () => {
    const open: Condition = { type: 'open_now', label: 'open now' };
    const cap: Condition = { type: 'number', keys: ['capacity', 'seats'], min: 100, label: 'capacity > 100' };
    expect(unheldConditions([open, cap], [['name', 'number']], 'districts')).toEqual([
      { words: 'open now', why: 'districts have no opening_hours column', part: open },
      { words: 'capacity > 100', why: 'districts have no capacity or seats column', part: cap },
    ]);
    // One of two layers holds one of the keys: tested there, not refused.
    expect(unheldConditions([open, cap], [['name'], ['seats', 'opening_hours']], 'places')).toEqual([]);
    // A layer whose columns are not all known (a summary at its limit) may hold it.
    expect(unheldConditions([open], [['name'], null], 'places')).toEqual([]);
  });

  it('open now reads opening_hours at the clock; a missing or unreadable value fails and is counted', () => {
    const values = ['Mo-Fr 08:00-12:30,14:00-18:00', '24/7', 'Sa 09:00-13:00', 'not hours at all'];
    const t = conditionTests([{ type: 'open_now', label: 'open now' }], NOW);
    const got = values.map((v) => t.pass({ opening_hours: v }));
    const want = values.slice(0, 3).map((v) => new OpeningHours(v, null).getState(NOW));
    expect(got).toEqual([...want, false]);
    expect(t.pass({})).toBe(false);
    const [w] = t.warnings();
    expect(w).toMatchObject({ tag: 'opening_hours', missing: 1, unreadable: 1 });
  });

  it('open on a day: any opening on the next such day', () => {
    const t = conditionTests([{ type: 'open_on', day: 0, label: 'open on Sunday' }], NOW);
    expect(t.pass({ opening_hours: 'Mo-Sa 08:00-20:00; Su 10:00-14:00' })).toBe(true);
    expect(t.pass({ opening_hours: 'Mo-Fr 09:00-19:00' })).toBe(false);
  });

  it('equals, contains and numeric bounds', () => {
    const t = conditionTests(
      [
        { type: 'equals', key: 'wheelchair', values: ['yes'], label: 'w' },
        { type: 'contains', key: 'operator', text: 'apotheken ag', label: 'o' },
        { type: 'number', keys: ['capacity'], min: 100.000001, label: 'c' },
      ],
      NOW,
    );
    expect(t.pass({ wheelchair: 'yes', operator: 'Die Apotheken AG', capacity: '150' })).toBe(true);
    expect(t.pass({ wheelchair: 'yes', operator: 'Die Apotheken AG', capacity: '100' })).toBe(false);
    expect(t.pass({ wheelchair: 'limited', operator: 'Die Apotheken AG', capacity: '150' })).toBe(false);
    expect(t.pass({ wheelchair: 'yes', operator: 'Netz AG', capacity: '150' })).toBe(false);
    expect(t.pass({ wheelchair: 'yes', operator: 'Apotheken AG', capacity: 'many' })).toBe(false);
  });
});

describe('distance between geometries', () => {
  const line = (c: number[][]): Geometry => ({ type: 'LineString', coordinates: c });
  it('is 0 where they meet and the nearest vertex-to-geometry distance otherwise', () => {
    const a = line([[8, 47], [8.01, 47]]);
    expect(geometryDistance(a, line([[8.005, 46.99], [8.005, 47.01]]))).toBe(0);
    const b = line([[8.02, 47.001], [8.03, 47.001]]);
    expect(geometryDistance(a, b)).toBeCloseTo(turf.distance([8.01, 47], [8.02, 47.001], { units: 'meters' }), 3);
    const poly: Geometry = turf.bboxPolygon([8.1, 47.1, 8.2, 47.2]).geometry;
    expect(geometryDistance({ type: 'Point', coordinates: [8.15, 47.15] }, poly)).toBe(0);
    expect(geometryDistance(poly, { type: 'Point', coordinates: [8.15, 47.25] })).toBeCloseTo(turf.pointToLineDistance([8.15, 47.25], turf.lineString([[8.1, 47.2], [8.2, 47.2]]), { units: 'meters' }), 3);
  });
});
