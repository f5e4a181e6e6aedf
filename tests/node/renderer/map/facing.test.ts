import { describe, expect, it } from 'vitest';
import { arrowRotation, bearingOfCompassText, facingDegrees } from '../../../../renderer/src/map/facing';

describe('capture facing and arrow rotation', () => {
  it('reads the 16-point compass text of spec 2.6 by its abbreviation', () => {
    // 16 points, 22.5 degrees apart, clockwise from north.
    const expected: Array<[string, number]> = [
      ['North (N)', 0],
      ['North-North-East (NNE)', 22.5],
      ['East (E)', 90],
      ['South-South-West (SSW)', 202.5],
      ['West (W)', 270],
      ['North-North-West (NNW)', 337.5],
    ];
    for (const [text, deg] of expected) expect(bearingOfCompassText(text)).toBe(deg);
    expect(bearingOfCompassText('Somewhere (X)')).toBeNull();
    expect(bearingOfCompassText(undefined)).toBeNull();
  });

  it('prefers a numeric angle, wraps it into [0, 360), and treats an explicit null as unknown', () => {
    expect(facingDegrees({ heading: 123.4, compass: 'North (N)' })).toBe(123.4);
    expect(facingDegrees({ compass_angle: -90 })).toBe(270);
    expect(facingDegrees({ computed_compass_angle: 725 })).toBe(5);
    expect(facingDegrees({ compass: 'South-East (SE)' })).toBe(135);
    // The bundled service sends "North (N)" as a placeholder with heading null.
    expect(facingDegrees({ heading: null, compass: 'North (N)' })).toBeNull();
    expect(facingDegrees({ name: 'no facing' })).toBeNull();
  });

  it('turns an upward arrow clockwise by the bearing, in radians', () => {
    expect(arrowRotation(0)).toBe(0);
    expect(arrowRotation(90)).toBeCloseTo(Math.PI / 2, 12);
    expect(arrowRotation(180)).toBeCloseTo(Math.PI, 12);
    expect(arrowRotation(270)).toBeCloseTo((3 * Math.PI) / 2, 12);
    // A unit arrow pointing up (0, 1), turned clockwise by the rotation, points east for 90 degrees.
    const r = arrowRotation(90);
    expect([Math.sin(r), Math.cos(r)].map((v) => Math.round(v * 1e9) / 1e9)).toEqual([1, 0]);
  });
});
