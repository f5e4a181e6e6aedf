import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Cache } from '../../../electron/cache';
import type { ImageryResponse } from '../../../shared/service/imagery';
import { bootTestApp, value } from '../../support/app';

const TARGET = { lon: 2.2945, lat: 48.8584 };
const M_PER_DEG_LAT = 111_195; // mean Earth radius 6,371,008.8 m × π / 180
/** A point d metres from the target along the given bearing (flat approximation, fine within 2 km). */
function offset(bearingDeg: number, d: number): [number, number] {
  const b = (bearingDeg * Math.PI) / 180;
  const dLat = (d * Math.cos(b)) / M_PER_DEG_LAT;
  const dLon = (d * Math.sin(b)) / (M_PER_DEG_LAT * Math.cos((TARGET.lat * Math.PI) / 180));
  return [TARGET.lon + dLon, TARGET.lat + dLat];
}
// Bearing from a capture to the target by the same flat approximation, written here independently.
function expectedBearing([lon, lat]: [number, number]): number {
  const dx = (TARGET.lon - lon) * Math.cos((TARGET.lat * Math.PI) / 180);
  const dy = TARGET.lat - lat;
  return ((Math.atan2(dx, dy) * 180) / Math.PI + 360) % 360;
}

// id, where it stands (bearing and distance from the target), which way it faces
const captures: [string, number, number, string][] = [
  ['south-looking-north', 180, 200, 'North (N)'],
  ['west-looking-ene', 270, 300, 'East-North-East (ENE)'], // 22.5° off the 90° bearing
  ['east-looking-north', 90, 100, 'North (N)'], // faces away: 90° off
  ['north-looking-ssw', 0, 400, 'South-South-West (SSW)'], // 22.5° off the 180° bearing
  ['ne-looking-sw', 45, 150, 'South-West (SW)'],
  ['far-looking-north', 180, 2000, 'North (N)'], // beyond the radius
  ['no-facing', 200, 120, 'unknown'],
];

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'fl-facing-'));
  const cache = Cache.open(join(dir, 'cache.db'));
  const body = {
    isSuccess: true, page: 1, pageTotal: 1, result_id: 'r1', region: 'Paris', region_id: null,
    data: captures.map(([id, b, d, compass]) => ({
      id, address: 'Paris', date: 'March 5, 2024', compass, interactive: false,
      geometry: { type: 'Point', coordinates: offset(b, d) }, image: `https://img.example/${id}.jpg`,
    })),
  } as unknown as ImageryResponse;
  cache.storeImagery({ profileId: 'local', request: { query: 'eiffel' }, startedAt: 1, finishedAt: 2 }, body, JSON.stringify(body));
  cache.close();
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('imagery facing a feature', () => {
  it('lists cached captures within the distance whose facing points at the feature, nearest first, with distance and bearing', async () => {
    const { services, rpc } = await bootTestApp(dir, { startLocalService: false });
    try {
      const { captures: got } = value(await rpc.call('imagery.facing', { ...TARGET, radiusMetres: 1000 }));
      expect(got.map((c) => c.featureId)).toEqual(['ne-looking-sw', 'south-looking-north', 'west-looking-ene', 'north-looking-ssw']);
      for (const c of got) {
        const [, b, d] = captures.find(([id]) => id === c.featureId)!;
        expect(c.distanceMetres, c.featureId).toBeCloseTo(d, -1); // within 5 m
        expect(c.bearing, c.featureId).toBeCloseTo(expectedBearing(offset(b, d)), 0);
        expect(c.bearing, c.featureId).toBeCloseTo((b + 180) % 360, 0);
      }
      expect(got.find((c) => c.featureId === 'west-looking-ene')!.offBy).toBeCloseTo(22.5, 0);

      // A narrower cone keeps only the captures looking almost straight at it.
      const narrow = value(await rpc.call('imagery.facing', { ...TARGET, radiusMetres: 1000, toleranceDeg: 10 }));
      expect(narrow.captures.map((c) => c.featureId)).toEqual(['ne-looking-sw', 'south-looking-north']);
      // A wider radius reaches the far capture.
      const wide = value(await rpc.call('imagery.facing', { ...TARGET, radiusMetres: 3000 }));
      expect(wide.captures.at(-1)!.featureId).toBe('far-looking-north');
    } finally {
      await services.close();
    }
  });
});
