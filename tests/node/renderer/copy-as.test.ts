import { describe, expect, it } from 'vitest';
import { pastedPosition } from '../../../renderer/src/components/compose/pastedPosition';
import { copyChoices } from '../../../renderer/src/lib/copyAs';
import { tableRows } from '../../../renderer/src/lib/table';
import type { ComputeFeature } from '../../../shared/service/compute';

// Published positions (Wikipedia's UTM and MGRS articles), not values computed by shared/coords.
const dms = (d: number, m: number, s: number) => d + m / 60 + s / 3600;
/** The CN Tower: 43°38′33.24″N 79°23′13.7″W, UTM zone 17, 630084 m E, 4833438 m N. */
const CN_TOWER = { lat: dms(43, 38, 33.24), lon: -dms(79, 23, 13.7) };
/** The Washington Monument: 38°53′22″N 77°02′07″W, MGRS 18SUJ2348306479. */
const MONUMENT = { lat: dms(38, 53, 22), lon: -dms(77, 2, 7) };

/** Great-circle distance in metres (haversine), written here. */
function metres(a: { lat: number; lon: number }, b: { lat: number; lon: number }): number {
  const r = Math.PI / 180;
  const h = Math.sin(((b.lat - a.lat) * r) / 2) ** 2 + Math.cos(a.lat * r) * Math.cos(b.lat * r) * Math.sin(((b.lon - a.lon) * r) / 2) ** 2;
  return 2 * 6_371_008.8 * Math.asin(Math.sqrt(h));
}

const feature = (id: string, geometry: unknown): ComputeFeature =>
  ({ type: 'Feature', id, geometry, properties: { name: id, address: '', score: 1, distance_meters: 0, source: { name: 's', url: null }, attributes: {} } }) as unknown as ComputeFeature;

describe('copy as, from the results table', () => {
  it('gives each row a position: the point, a shape’s box centre, or none', () => {
    const rows = tableRows([
      feature('a', { type: 'Point', coordinates: [CN_TOWER.lon, CN_TOWER.lat] }),
      feature('b', { type: 'LineString', coordinates: [[2, 48], [4, 50]] }),
      feature('c', null),
    ]);
    expect(rows.map((r) => r.position)).toEqual([{ lat: CN_TOWER.lat, lon: CN_TOWER.lon }, { lat: 49, lon: 3 }, null]);
  });

  it('offers every notation once, the default first, written as published for the CN Tower', () => {
    const choices = copyChoices(CN_TOWER, 'utm');
    expect(choices.map((c) => c.format)).toEqual(['utm', 'dd', 'dms', 'ddm', 'mgrs']);
    expect(choices.map((c) => c.preferred)).toEqual([true, false, false, false, false]);
    const text = Object.fromEntries(choices.map((c) => [c.format, c.text]));
    // The published grid position is to the metre, the published degrees to 0.01" (0.3 m).
    const [, e, n] = /^17T (\d+) (\d+)$/.exec(text['utm']!) ?? [];
    expect(Math.abs(Number(e) - 630084)).toBeLessThanOrEqual(1);
    expect(Math.abs(Number(n) - 4833438)).toBeLessThanOrEqual(1);
    expect(text['dms']).toBe(`43°38'33.2"N 79°23'13.7"W`);
    expect(text['dd']).toBe('43.642567, -79.387139');
    // The monument's published degrees are to the second: about 30 m east-west, 31 m north-south.
    const [, me, mn] = /^18S UJ (\d{5}) (\d{5})$/.exec(copyChoices(MONUMENT, 'mgrs')[0]!.text) ?? [];
    expect(Math.abs(Number(me) - 23483)).toBeLessThanOrEqual(30);
    expect(Math.abs(Number(mn) - 6479)).toBeLessThanOrEqual(31);
  });
});

describe('pasting into the named coordinates boxes', () => {
  it('reads a UTM, MGRS, DMS or decimal position whole, at the published place', () => {
    const utm = pastedPosition('17T 630084 4833438');
    expect(utm && !('error' in utm) && metres(utm, CN_TOWER)).toBeLessThan(1.5);
    const mgrs = pastedPosition('18SUJ2348306479');
    // The monument's published degrees are to the second (about 30 m).
    expect(mgrs && !('error' in mgrs) && metres(mgrs, MONUMENT)).toBeLessThan(30);
    expect(pastedPosition(`43°38′33.24″N 79°23′13.7″W`)).toMatchObject({ lat: expect.closeTo(CN_TOWER.lat, 9), lon: expect.closeTo(CN_TOWER.lon, 9) });
    expect(pastedPosition('48.8584, 2.2945')).toMatchObject({ lat: 48.8584, lon: 2.2945, conversion: { format: 'dd' } });
    expect(pastedPosition(' 18S UJ 23483 06479 ')).toMatchObject({ conversion: { from: '18S UJ 23483 06479', format: 'mgrs' } });
  });

  it('leaves a lone number to the box and says when a paste is no position', () => {
    expect(pastedPosition('45.75')).toBeNull();
    expect(pastedPosition('-4')).toBeNull();
    expect(pastedPosition('')).toBeNull();
    expect(pastedPosition('north of the river')).toEqual({ error: expect.stringContaining('is not a coordinate') });
  });
});
