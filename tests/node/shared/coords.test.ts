import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatCoord, parseCoord, rewritePaste, toUtm, type CoordFormat } from '../../../shared/coords';

/** Great-circle distance in metres (haversine, mean Earth radius), written here, not taken from the code. */
function metres(a: { lat: number; lon: number }, b: { lat: number; lon: number }): number {
  const r = Math.PI / 180;
  const h =
    Math.sin(((b.lat - a.lat) * r) / 2) ** 2 +
    Math.cos(a.lat * r) * Math.cos(b.lat * r) * Math.sin(((b.lon - a.lon) * r) / 2) ** 2;
  return 2 * 6_371_008.8 * Math.asin(Math.sqrt(h));
}
const dms = (d: number, m: number, s: number) => d + m / 60 + s / 3600;
const ok = (text: string) => {
  const p = parseCoord(text);
  if ('error' in p) throw new Error(p.error);
  return p;
};

// Lyon, Place Bellecour area, as the task writes it.
const LYON = { lat: dms(45, 45, 32), lon: dms(4, 50, 31) };

describe('reading degrees the ways people write them', () => {
  const lyonWritings: [string, CoordFormat][] = [
    [`45°45'32"N 4°50'31"E`, 'dms'],
    [`45°45′32″N, 4°50′31″E`, 'dms'],
    [`45º45’32”N 4º50’31”E`, 'dms'],
    [`45 45 32 N 4 50 31 E`, 'dms'],
    [`45 45 32N 4 50 31E`, 'dms'],
    [`N45°45'32" E4°50'31"`, 'dms'],
    [`45d45m32sN 4d50m31sE`, 'dms'],
    [`4°50'31"E 45°45'32"N`, 'dms'],
    [`45 45 32 4 50 31`, 'dms'],
    [`45°45'32" 4°50'31"`, 'dms'],
    [`45°45'32'' N 4°50'31'' E`, 'dms'],
  ];
  for (const [text, format] of lyonWritings)
    it(`reads ${text} as Lyon in ${format}`, () => {
      const p = ok(text);
      expect(p.format).toBe(format);
      expect(p.lat).toBeCloseTo(LYON.lat, 9);
      expect(p.lon).toBeCloseTo(LYON.lon, 9);
    });

  it('reads degrees and decimal minutes, with and without symbols', () => {
    for (const text of [`N45°45.533' E4°50.517'`, `45 45.533 N 4 50.517 E`, `45°45.533'N, 4°50.517'E`, `45 45.533 4 50.517`]) {
      const p = ok(text);
      expect(p.format, text).toBe('ddm');
      expect(p.lat, text).toBeCloseTo(45 + 45.533 / 60, 9);
      expect(p.lon, text).toBeCloseTo(4 + 50.517 / 60, 9);
    }
  });

  it('reads decimal degrees with signs, letters or both orders', () => {
    expect(ok('-33.8568, 151.2153')).toMatchObject({ lat: -33.8568, lon: 151.2153, format: 'dd' });
    expect(ok('33.8568 S 151.2153 E')).toMatchObject({ lat: -33.8568, lon: 151.2153 });
    expect(ok('W 0.1276, N 51.5072')).toMatchObject({ lat: 51.5072, lon: -0.1276 });
    expect(ok('45.7589 4.8419')).toMatchObject({ lat: 45.7589, lon: 4.8419 });
    expect(ok(`33°51'24.5"S 151°12'55.1"E`)).toMatchObject({ lat: -dms(33, 51, 24.5), lon: dms(151, 12, 55.1) });
  });

  it('refuses what is not a position, saying so', () => {
    for (const text of ['hello', '91, 10', '10, 181', `45°61'N 4°E`, `45°45'N 46°N`, '-45 N 4 E', '1 2 3', '']) {
      const p = parseCoord(text);
      expect('error' in p, text).toBe(true);
    }
  });
});

describe('UTM and MGRS against published examples', () => {
  // Wikipedia, "Universal Transverse Mercator coordinate system" (section "UTM zone"): the CN
  // Tower at 43°38′33.24″N 79°23′13.7″W is in zone 17 at 630084 m E, 4833438 m N.
  const CN_TOWER = { lat: dms(43, 38, 33.24), lon: -dms(79, 23, 13.7) };

  it('projects the CN Tower to its published UTM position', () => {
    const u = toUtm(CN_TOWER)!;
    expect(u.zone).toBe(17);
    expect(u.band).toBe('T'); // 40°N..48°N
    // The published figures are whole metres; the projection agrees to within one.
    expect(Math.abs(u.easting - 630084)).toBeLessThan(1);
    expect(Math.abs(u.northing - 4833438)).toBeLessThan(1);
    const [zone, e, n] = formatCoord(CN_TOWER, 'utm').split(' ');
    expect(zone).toBe('17T');
    expect(Math.abs(Number(e) - 630084)).toBeLessThanOrEqual(1);
    expect(Math.abs(Number(n) - 4833438)).toBeLessThanOrEqual(1);
  });

  it('reads the published UTM position back to the CN Tower within a metre', () => {
    for (const text of ['17T 630084 4833438', '17 T 630084mE 4833438mN', 'UTM 17T 630084 4833438']) {
      const p = ok(text);
      expect(p.format).toBe('utm');
      expect(metres(p, CN_TOWER), text).toBeLessThan(1);
    }
  });

  it('reads a hemisphere letter where the band letter would not fit, on the zone central meridian', () => {
    // 4,000,000 m N lies near 36°N: band S, not band N (0°..8°N). Easting 500000 is the central
    // meridian of zone 31: 6 * 31 - 183 = 3°E.
    const asHemisphere = ok('31N 500000 4000000');
    const asBand = ok('31S 500000 4000000');
    expect(asHemisphere.lon).toBeCloseTo(3, 9);
    expect(asHemisphere.lat).toBeCloseTo(asBand.lat, 9);
    expect(asHemisphere.lat).toBeGreaterThan(32);
    expect(asHemisphere.lat).toBeLessThan(40);
    expect('error' in parseCoord('31C 500000 4000000')).toBe(true);
    expect('error' in parseCoord('61T 500000 4000000')).toBe(true);
  });

  // Wikipedia, "Military Grid Reference System": 4Q FJ 1234 5678 is the 10 m square at
  // 21°18′34.0″N 157°55′0.7″W (its south-west corner; the reader gives the square's centre).
  const HONOLULU = { lat: dms(21, 18, 34.0), lon: -dms(157, 55, 0.7) };

  it('reads the published MGRS example, written compact or spaced', () => {
    for (const text of ['4QFJ12345678', '4Q FJ 1234 5678', '4qfj 1234 5678']) {
      const p = ok(text);
      expect(p.format).toBe('mgrs');
      // Centre of a 10 m square: at most 7.1 m from its corner, plus the example's 0.1" rounding.
      expect(metres(p, HONOLULU), text).toBeLessThan(10);
    }
    expect(formatCoord(HONOLULU, 'mgrs').replace(/ /g, '').slice(0, 7)).toBe('4QFJ123');
    expect('error' in parseCoord('4QFJ1234567')).toBe(true);
  });
});

describe('formatting and reading back', () => {
  it('prints Lyon in each notation as a surveyor would', () => {
    expect(formatCoord(LYON, 'dd')).toBe('45.758889, 4.841944');
    expect(formatCoord(LYON, 'dms')).toBe(`45°45'32.0"N 4°50'31.0"E`);
    expect(formatCoord(LYON, 'ddm')).toBe(`45°45.533'N 4°50.517'E`);
    expect(formatCoord({ lat: -dms(0, 0, 59.96), lon: -dms(9, 59, 59.96) }, 'dms')).toBe(`0°01'00.0"S 10°00'00.0"W`);
  });

  // Rounding per notation: DMS 0.05" (1.6 m), DDM 0.0005' (0.93 m), UTM 0.5 m per axis, MGRS 1 m truncation.
  const tolerance: Record<CoordFormat, number> = { dd: 0.1, dms: 2.2, ddm: 1.4, utm: 1.5, mgrs: 2.5 };
  for (const format of ['dd', 'dms', 'ddm', 'utm', 'mgrs'] as CoordFormat[])
    it(`round-trips any position through ${format}`, () => {
      const lat = format === 'utm' || format === 'mgrs' ? fc.double({ min: -79.9, max: 83.9, noNaN: true }) : fc.double({ min: -90, max: 90, noNaN: true });
      fc.assert(
        fc.property(lat, fc.double({ min: -179.999, max: 179.999, noNaN: true }), (la, lo) => {
          const p = { lat: la, lon: lo };
          const back = ok(formatCoord(p, format));
          expect(back.format).toBe(format);
          expect(metres(p, back)).toBeLessThan(tolerance[format]);
        }),
        { numRuns: 300 },
      );
    });
});

describe('pasting coordinates into a question', () => {
  it('rewrites a pasted DMS pair inside a question to decimal degrees', () => {
    const r = rewritePaste(`airports within 50 km of 45°45'32"N 4°50'31"E please`);
    const want = `${LYON.lat.toFixed(6)}, ${LYON.lon.toFixed(6)}`;
    expect(r.text).toBe(`airports within 50 km of ${want} please`);
    expect(r.conversions).toEqual([{ from: `45°45'32"N 4°50'31"E`, to: want, format: 'dms' }]);
  });

  it('rewrites a whole pasted MGRS or UTM reference, and MGRS inside text', () => {
    const whole = rewritePaste('17T 630084 4833438');
    expect(whole.conversions[0]!.format).toBe('utm');
    const [lat, lon] = whole.text.split(', ').map(Number);
    expect(metres({ lat: lat!, lon: lon! }, { lat: dms(43, 38, 33.24), lon: -dms(79, 23, 13.7) })).toBeLessThan(1);
    const inside = rewritePaste('cities near 4QFJ12345678 today');
    expect(inside.text).toMatch(/^cities near 21\.309\d+, -157\.916\d+ today$/);
  });

  it('leaves text without coordinates, and decimal degrees, as pasted', () => {
    expect(rewritePaste('airports in France')).toEqual({ text: 'airports in France', conversions: [] });
    expect(rewritePaste('45.7589, 4.8419')).toEqual({ text: '45.7589, 4.8419', conversions: [] });
    expect(rewritePaste('top 5 cities over 1000000 people')).toEqual({ text: 'top 5 cities over 1000000 people', conversions: [] });
  });
});
