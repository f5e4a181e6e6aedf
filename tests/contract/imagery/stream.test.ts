import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compassText } from '../../../shared/service/imagery';
import { Problem } from '../../../shared/service/problem';
import { StreamResponse, StreamResponseSuccess, streamYear } from '../../../shared/service/stream';
import { KNOWN, writeKnownFolder, writeSurveyFolder } from './fixtures';
import { BASE_URL, KEY, startHarness, type Harness } from './harness';

function success(res: { status: number; json: unknown }) {
  expect(res.status).toBe(200);
  return StreamResponseSuccess.parse(res.json);
}

/** Great-circle distance in km (haversine, mean earth radius). */
function haversineKm(lon1: number, lat1: number, lon2: number, lat2: number): number {
  const rad = Math.PI / 180;
  const h = Math.sin(((lat2 - lat1) * rad) / 2) ** 2 + Math.cos(lat1 * rad) * Math.cos(lat2 * rad) * Math.sin(((lon2 - lon1) * rad) / 2) ** 2;
  return 2 * 6371 * Math.asin(Math.sqrt(h));
}

/** A point `m` metres north of a position. */
const north = (lat: number, lon: number, m: number) => ({ latitude: lat + m / 111_320, longitude: lon });

describe('POST /v1/stream over a folder of photos with known EXIF', () => {
  let h: Harness;
  let dir: string;
  beforeAll(async () => {
    dir = writeKnownFolder();
    h = await startHarness({ photoDirs: [dir] });
  });
  afterAll(async () => {
    await h.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it.each(KNOWN)('finds $file by place with every observation field', async (k) => {
    const body = success(await h.stream({ query: `imagery of ${k.city}` }));
    expect(body.data.query).toBe(`imagery of ${k.city}`);
    expect(body.data.duration_ms).toBeGreaterThanOrEqual(0);
    expect(streamYear(body)).toBeNull();
    const f = body.data.geojson.features.find((x) => x.properties.address === `${k.city}, ${k.country}`);
    expect(f).toBeDefined();
    const p = f!.properties;
    expect(f!.geometry).toEqual({ type: 'Point', coordinates: [expect.closeTo(k.lon, 5), expect.closeTo(k.lat, 5)] });
    expect(p.date).toBe(k.isoDate);
    expect(p.year).toBe(String(k.year));
    expect(p.month).toBe(k.month);
    expect(p.source).toBe('TestCam');
    expect(p.owner).toBe('TestCam');
    expect(p.feature_name).toBe(k.city);
    expect(p.image_url!.startsWith(`${BASE_URL}/v1/imagery/media/${f!.id}?sig=`)).toBe(true);
    expect(p.is_video).toBe(false);
    expect(p.video_id).toBeNull();
    expect(p.video_url).toBeNull();
    expect(p.duration).toBeNull();
    expect(p.interactive).toBe(k.interactive);
    expect(p['compass']).toBe(k.compass);
    expect(compassText(p['heading'] as number)).toBe(k.compass);
    expect(body.regions).toContainEqual(expect.objectContaining({ region_id: k.regionId, name: k.country }));
    const img = await h.media(p.image_url!);
    expect(img.status).toBe(200);
    expect(img.type).toBe('image/jpeg');
  });

  it('says in feature_name which words of the query matched', async () => {
    const body = success(await h.stream({ query: 'Tram stops in Lisbon' }));
    expect(body.data.geojson.features).toHaveLength(1);
    expect(body.data.geojson.features[0]!.properties.feature_name).toBe('Tram Lisbon');
    const two = success(await h.stream({ query: 'lake or market' }));
    expect(two.data.geojson.features.map((f) => f.properties.feature_name).sort()).toEqual(['lake', 'market']);
  });

  it.each(KNOWN)('finds $file first by position, ranked by distance', async (k) => {
    const body = success(await h.stream({ query: 'captures nearby', position: { points: [north(k.lat, k.lon, 150)] } }));
    const feats = body.data.geojson.features;
    // Words that match nothing: only captures within the stated radius of the position.
    const p = north(k.lat, k.lon, 150);
    expect(feats).toHaveLength(KNOWN.filter((o) => haversineKm(o.lon, o.lat, p.longitude, p.latitude) <= 50).length);
    expect(feats[0]!.properties.address).toBe(`${k.city}, ${k.country}`);
    expect(feats[0]!.properties['distance_meters']).toBeGreaterThan(100);
    expect(feats[0]!.properties['distance_meters']).toBeLessThan(200);
    const d = feats.map((f) => f.properties['distance_meters'] as number);
    expect([...d].sort((a, b) => a - b)).toEqual(d);
  });

  it('positions limit matching words too: captures beyond the stated radius are not listed', async () => {
    // Words that name every photo's city, asked 10 km north of the first photo.
    const query = KNOWN.map((o) => o.city).join(' ');
    const p = north(KNOWN[0].lat, KNOWN[0].lon, 10_000);
    const everywhere = success(await h.stream({ query }));
    expect(everywhere.data.geojson.features.length).toBe(KNOWN.length);
    const body = success(await h.stream({ query, position: { points: [p] } }));
    const want = KNOWN.filter((o) => haversineKm(o.lon, o.lat, p.longitude, p.latitude) <= 50);
    expect(want.length).toBeLessThan(KNOWN.length);
    expect(body.data.geojson.features.map((f) => f.properties.address).sort()).toEqual(want.map((o) => `${o.city}, ${o.country}`).sort());
    expect(body.data['radius_meters']).toBe(50_000);
    for (const f of body.data.geojson.features) expect(f.properties.distance_meters!).toBeLessThanOrEqual(50_000);
  });

  it('10. a query matching nothing returns only observations within the stated radius of the position, nearest first', async () => {
    const lisbon = KNOWN[0];
    // 30 km north of the Lisbon photo: inside 50 km; every other photo is thousands of km away.
    const p = north(lisbon.lat, lisbon.lon, 30_000);
    const body = success(await h.stream({ query: 'xylophone', position: { points: [p] } }));
    const feats = body.data.geojson.features;
    const want = KNOWN.filter((o) => haversineKm(o.lon, o.lat, p.longitude, p.latitude) <= 50);
    expect(want).toHaveLength(1);
    expect(feats.map((f) => f.properties.address)).toEqual(want.map((o) => `${o.city}, ${o.country}`));
    expect(feats[0]!.properties.distance_meters! / 1000).toBeCloseTo(haversineKm(lisbon.lon, lisbon.lat, p.longitude, p.latitude), 1);
    expect(body.data['radius_meters']).toBe(50_000);
    expect(body.regions).toContainEqual(expect.objectContaining({ type: 'radius', radius_meters: 50_000, count: 1 }));
    const far = success(await h.stream({ query: 'xylophone', position: { points: [{ latitude: 0, longitude: -30 }] } }));
    expect(far.data.geojson.features).toEqual([]);
  });

  it('ranks by the nearest of several points', async () => {
    const [a, b] = [KNOWN[0], KNOWN[3]];
    const body = success(
      await h.stream({ query: 'anything', limit: 2, position: { points: [north(a.lat, a.lon, 50), north(b.lat, b.lon, 20)] } }),
    );
    expect(body.data.geojson.features.map((f) => f.properties.address)).toEqual([
      `${b.city}, ${b.country}`,
      `${a.city}, ${a.country}`,
    ]);
  });

  it.each(KNOWN)('finds $file by year', async (k) => {
    const body = success(await h.stream({ query: '*', year: k.year }));
    expect(body.year).toBe(String(k.year));
    expect(body.data.geojson.features.map((f) => f.properties.address)).toEqual([`${k.city}, ${k.country}`]);
    const other = success(await h.stream({ query: k.city, year: k.year + 1 }));
    expect(other.data.geojson.features).toEqual([]);
  });

  it('filters by region_id (ISO 3166-1 numeric, leading zeros optional)', async () => {
    const ar = success(await h.stream({ query: 'avenue', region_id: '32' }));
    expect(ar.data.geojson.features.map((f) => f.properties.address)).toEqual(['Buenos Aires, Argentina']);
    expect(ar.regions).toEqual([{ region_id: '032', name: 'Argentina', code: 'AR', type: 'country' }]);
    const none = success(await h.stream({ query: 'tram', region_id: '032' }));
    // The query names nothing inside the region, so the region alone decides.
    expect(none.data.geojson.features.map((f) => f.properties.feature_name)).toEqual(['photo']);
  });

  it('sets isSuccess false for a well-formed region id that names no region', async () => {
    const res = await h.stream({ query: 'tram', region_id: '999' });
    expect(res.status).toBe(200);
    const body = StreamResponse.parse(res.json);
    expect(body.isSuccess).toBe(false);
    expect((res.json as { error: { code: string } }).error.code).toBe('UNKNOWN_REGION');
  });

  it('rejects bad requests with problem+json field errors', async () => {
    const cases: [unknown, string][] = [
      [{ query: 'x', limit: 51 }, 'limit'],
      [{ query: 'x', limit: 0 }, 'limit'],
      [{ query: 'x', year: 2024.5 }, 'year'],
      [{ query: 'x', year: '2024' }, 'year'],
      [{ query: 'x', year: 99999 }, 'year'],
      [{ query: 'x', position: { points: [{ latitude: 95, longitude: 0 }] } }, 'position.points.0.latitude'],
      [{ query: 'x', position: { points: [{ latitude: 10, longitude: -181 }] } }, 'position.points.0.longitude'],
      [{ query: 'x', position: { points: [] } }, 'position.points'],
      [{ query: 'x', position: { points: [{ lat: 1, lon: 2 }] } }, 'position.points.0.latitude'],
      [{ query: 'x', region_id: 'FR' }, 'region_id'],
      [{}, 'query'],
    ];
    for (const [body, field] of cases) {
      const res = await h.base.inject({ method: 'POST', url: '/v1/stream', headers: { authorization: `Bearer ${KEY}` }, payload: body as object });
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      const p = Problem.parse(res.json());
      expect(p.status).toBe(400);
      expect(p.errors?.map((e) => e.field), JSON.stringify(body)).toContain(field);
    }
  });

  it('is behind the Bearer check', async () => {
    const none = await h.base.inject({ method: 'POST', url: '/v1/stream', payload: { query: 'x' } });
    expect(none.statusCode).toBe(401);
    const wrong = await h.base.inject({ method: 'POST', url: '/v1/stream', headers: { 'x-api-key': KEY }, payload: { query: 'x' } });
    expect(wrong.statusCode).toBe(401);
  });
});

describe('POST /v1/stream limits over 130 photos', () => {
  let h: Harness;
  let dir: string;
  beforeAll(async () => {
    dir = writeSurveyFolder(130);
    h = await startHarness({ photoDirs: [dir] });
  });
  afterAll(async () => {
    await h.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('returns at most 50 by default and honours a smaller limit', async () => {
    expect(success(await h.stream({ query: 'survey' })).data.geojson.features).toHaveLength(50);
    expect(success(await h.stream({ query: 'survey', limit: 7 })).data.geojson.features).toHaveLength(7);
  });

  it('keeps only captures of the requested year', async () => {
    const body = success(await h.stream({ query: 'survey', year: 2020 }));
    // Photos i with i % 5 == 2 are dated 2020: 26 of 130.
    expect(body.data.geojson.features).toHaveLength(26);
    expect(body.data.geojson.features.every((f) => f.properties.year === '2020')).toBe(true);
    expect(body.year).toBe('2020');
  });
});
