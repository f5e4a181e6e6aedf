import { describe, expect, it } from 'vitest';
import { formatLength, lengthsInProse, scaleBar, scaleBarUnits } from '../../../renderer/src/lib/units';

// Expected figures worked out by hand from the definitions: 1 mi = 1609.344 m, 1 nmi = 1852 m, 1 ft = 0.3048 m.
describe('lengths in the chosen units', () => {
  it('keeps metric as it was', () => {
    expect(formatLength(850)).toBe('850 m');
    expect(formatLength(12_345)).toBe('12.3 km');
    expect(formatLength(1_204_000)).toBe('1,204 km');
  });
  it('reads miles, feet and nautical miles', () => {
    const mi = { distance: 'mi', short: 'ft' } as const;
    expect(formatLength(16_093.44, mi)).toBe('10 mi');
    expect(formatLength(30_329.1, mi)).toBe('18.8 mi'); // 30329.1 / 1609.344 = 18.846
    expect(formatLength(100, mi)).toBe('328 ft'); // 100 / 0.3048 = 328.08
    expect(formatLength(3_704, { distance: 'nmi', short: 'm' })).toBe('2 nmi');
    expect(formatLength(150, { distance: 'nmi', short: 'm' })).toBe('150 m');
  });
  it('rewrites the lengths of an answer, not its other numbers', () => {
    const mi = { distance: 'mi', short: 'ft' } as const;
    expect(lengthsInProse('Geneva Airport, 4.9 km. Then Annemasse (9.5 km); 8 listed, pop 183,981.', mi)).toBe(
      'Geneva Airport, 3 mi. Then Annemasse (5.9 mi); 8 listed, pop 183,981.',
    );
    expect(lengthsInProse('within 1,609 km', mi)).toBe('within 1,000 mi'); // 1,609,000 / 1609.344 = 999.8, shown whole past 100
    expect(lengthsInProse('a gate 30 m away', mi)).toBe('a gate 98 ft away');
    expect(lengthsInProse('4.9 km', { distance: 'km', short: 'm' })).toBe('4.9 km');
  });
  it('names the scale bar units', () => {
    expect(scaleBarUnits({ distance: 'mi', short: 'ft' })).toBe('imperial');
    expect(scaleBarUnits({ distance: 'nmi', short: 'm' })).toBe('nautical');
    expect(scaleBarUnits({ distance: 'km', short: 'm' })).toBe('metric');
  });
});

describe('the scale bar in the chosen units', () => {
  // OpenLayers' ScaleLine writes, for a bar of at least n metres: metric m below 1,000 m, else km;
  // imperial ft below 1,609.344 m, else mi; nautical always nmi (its source, control/ScaleLine.js).
  const written = (system: string, n: number) =>
    system === 'nautical' ? 'nmi' : system === 'imperial' ? (n < 1609.344 ? 'ft' : 'mi') : n < 1000 ? 'm' : 'km';
  const all = (['km', 'mi', 'nmi'] as const).flatMap((distance) => (['m', 'ft'] as const).map((short) => ({ distance, short })));
  it('writes only the chosen units, from street level to a continent', () => {
    for (const u of all) {
      const seen = new Set<string>();
      for (let r = 0.05; r < 50_000; r *= 1.07) {
        const { system, minWidth } = scaleBar(u, r);
        expect(minWidth).toBeGreaterThanOrEqual(30);
        const unit = written(system, minWidth * r);
        expect([u.distance, u.short], `${u.distance}/${u.short} at ${r} m/px`).toContain(unit);
        seen.add(unit);
      }
      // Both units are used somewhere along the way.
      expect([...seen].sort()).toEqual([u.distance, u.short].sort());
    }
  });
  it('miles with metres: metres up to a mile, never feet', () => {
    const u = { distance: 'mi', short: 'm' } as const;
    expect(scaleBar(u, 1)).toEqual({ system: 'metric', minWidth: 64 }); // 64 m
    expect(scaleBar(u, 20).system).toBe('metric'); // 1,280 m: a shorter bar in metres
    expect(scaleBar(u, 20).minWidth * 20).toBeLessThan(1000);
    expect(scaleBar(u, 30)).toEqual({ system: 'imperial', minWidth: 64 }); // 1,920 m: miles
  });
});
