import { readFileSync, rmSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ImageryRecordExact, ImageryResponseSuccess, ImageryResponse } from '../../../shared/service/imagery';
import { Problem } from '../../../shared/service/problem';
import { StreamResponse } from '../../../shared/service/stream';
import { migratePgImagery } from '../../../electron/local-service/imagery/pg-store';
import { migrateImagery } from '../../../electron/local-service/imagery/store-migrations';
import { KNOWN, writeKnownFolder, writeSurveyFolder } from './fixtures';
import { KEY, SEARCH_URL, startHarness, type Harness } from './harness';

function success(res: { status: number; json: unknown }) {
  expect(res.status).toBe(200);
  const body = ImageryResponseSuccess.parse(res.json);
  for (const r of body.data) ImageryRecordExact.parse(r);
  return body;
}

describe('POST /search over a folder of photos with known EXIF', () => {
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

  it.each(KNOWN)('finds $file by its place name with date and compass text', async (k) => {
    const body = success(await h.searchReq({ query: k.city, limit: 10 }));
    const rec = body.data.find(
      (r) => Math.abs(r.geometry.coordinates[0] - k.lon) < 1e-5 && Math.abs(r.geometry.coordinates[1] - k.lat) < 1e-5,
    );
    expect(rec, `record at ${k.lon},${k.lat}`).toBeDefined();
    expect(rec!.address).toBe(`${k.city}, ${k.country}`);
    expect(rec!.date).toBe(k.date);
    expect(rec!.compass).toBe(k.compass);
    expect(rec!.interactive).toBe(k.interactive);
    expect(rec!.image.startsWith(`${SEARCH_URL}/imagery/media/${rec!.id}?sig=`)).toBe(true);
    expect(body.region_id).toBe(k.regionId);
    expect(body.region).toBe(k.country);
    expect(body.page).toBe(1);
    expect(body.pageTotal).toBe(1);
  });

  it('matches place names without diacritics, keywords and descriptions', async () => {
    const zurich = success(await h.searchReq({ query: 'zurich' }));
    expect(zurich.data.map((r) => r.address)).toEqual(['Zürich, Switzerland']);
    const tram = success(await h.searchReq({ query: 'tram' }));
    expect(tram.data.map((r) => r.address)).toEqual(['Lisbon, Portugal']);
    const market = success(await h.searchReq({ query: 'covered market' }));
    expect(market.data.map((r) => r.address)).toEqual(['Seoul, South Korea']);
  });

  it('scopes to a country the query names and reports it as the region', async () => {
    const body = success(await h.searchReq({ query: 'photos in Egypt' }));
    expect(body.region).toBe('Egypt');
    expect(body.region_id).toBe('818');
    expect(body.data).toHaveLength(1);
    expect(body.data[0]!.interactive).toBe(true);
  });

  it('answers a query spanning countries with the global region', async () => {
    const body = success(await h.searchReq({ query: 'Lisbon Cairo' }));
    expect(body.data).toHaveLength(2);
    expect(body.region).toBe('Global');
    expect(body.region_id).toBeNull();
  });

  it('11. returns one empty page when nothing matches: page 1 of 1, not of 0', async () => {
    const body = success(await h.searchReq({ query: 'xylophone' }));
    expect(body.data).toEqual([]);
    expect(body.page).toBe(1);
    expect(body.pageTotal).toBe(1);
  });

  it('11. the page count matches the records', async () => {
    const all = success(await h.searchReq({ query: '*', limit: 2 }));
    const withGps = KNOWN.length;
    expect(all.pageTotal).toBe(Math.ceil(withGps / 2));
    const last = success(await h.searchReq({ query: '*', limit: 2, page: all.pageTotal }));
    expect(last.data).toHaveLength(withGps - 2 * (all.pageTotal - 1));
  });

  it('serves the image bytes and a JPEG thumbnail at signed URLs only', async () => {
    const rec = success(await h.searchReq({ query: 'Lisbon' })).data[0]!;
    const img = await h.media(rec.image);
    expect(img.status).toBe(200);
    expect(img.type).toBe('image/jpeg');
    expect(img.body.equals(readFileSync(join(dir, 'lisbon-tram.jpg')))).toBe(true);
    const thumb = await h.media(String(rec['thumbnail']));
    expect(thumb.status).toBe(200);
    expect(thumb.body.subarray(0, 2).toString('hex')).toBe('ffd8');
    const forged = await h.media(rec.image.replace(/sig=.*/, 'sig=AAAA'));
    expect(forged.status).toBe(404);
    const unsigned = await h.media(rec.image.replace(/\?sig=.*/, ''));
    expect(unsigned.status).toBe(404);
    // A signature is bound to its variant.
    const swapped = await h.media(rec.image.replace(`/${rec.id}?`, `/${rec.id}/thumb?`));
    expect(swapped.status).toBe(404);
  });

  it('lists the photo without GPS as skipped with its reason', async () => {
    const status = await h.plugin.catalog()!.status();
    expect(status.photos).toBe(KNOWN.length);
    expect(status.skipped).toEqual([{ path: join(dir, 'no-gps.jpg'), reason: 'no GPS position in EXIF' }]);
    const res = await h.base.inject({ method: 'GET', url: '/v1/imagery/catalog', headers: { authorization: `Bearer ${KEY}` } });
    expect(res.statusCode).toBe(200);
    expect((res.json() as { skipped: unknown[] }).skipped).toHaveLength(1);
  });

  it('rejects bad bodies with problem+json field errors', async () => {
    for (const [body, field] of [
      [{ query: 'x', limit: 0 }, 'limit'],
      [{ query: 'x', limit: 101 }, 'limit'],
      [{ query: 'x', page: 0 }, 'page'],
      [{ query: '  ' }, 'query'],
      [{ limit: 5 }, 'query'],
    ] as const) {
      const res = await h.search.inject({ method: 'POST', url: '/search', headers: { 'x-api-key': KEY }, payload: body });
      expect(res.statusCode).toBe(400);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      const p = Problem.parse(res.json());
      expect(p.errors?.map((e) => e.field)).toContain(field);
    }
  });

  it('is behind the x-api-key check (media opt out and carry signatures)', async () => {
    const res = await h.search.inject({ method: 'POST', url: '/search', payload: { query: 'Lisbon' } });
    expect(res.statusCode).toBe(401);
    const bearer = await h.search.inject({
      method: 'POST',
      url: '/search',
      headers: { authorization: `Bearer ${KEY}` },
      payload: { query: 'Lisbon' },
    });
    expect(bearer.statusCode).toBe(401);
  });

  it('answers 404 for a deleted photo and drops it from results', async () => {
    const rec = success(await h.searchReq({ query: 'Buenos Aires' })).data[0]!;
    unlinkSync(join(dir, 'buenos-aires.jpg'));
    expect((await h.media(rec.image)).status).toBe(404);
    await h.plugin.catalog()!.scan();
    expect(success(await h.searchReq({ query: 'Buenos Aires' })).data).toEqual([]);
    expect((await h.plugin.catalog()!.status()).photos).toBe(KNOWN.length - 1);
  });
});

describe('POST /search paging over 130 photos', () => {
  const N = 130;
  let h: Harness;
  let dir: string;
  beforeAll(async () => {
    dir = writeSurveyFolder(N);
    h = await startHarness({ photoDirs: [dir] });
  });
  afterAll(async () => {
    await h.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it.each([1, 7, 50])('limit %i: pageTotal and page agree and every record appears exactly once', async (limit) => {
    const expectedPages = Math.ceil(N / limit);
    const seen: string[] = [];
    for (let page = 1; page <= expectedPages; page++) {
      const body = success(await h.searchReq({ query: 'survey', limit, page }));
      expect(body.page).toBe(page);
      expect(body.pageTotal).toBe(expectedPages);
      expect(body.data.length).toBe(page < expectedPages ? limit : N - limit * (expectedPages - 1));
      seen.push(...body.data.map((r) => r.id));
    }
    expect(seen).toHaveLength(N);
    expect(new Set(seen).size).toBe(N);
    const past = success(await h.searchReq({ query: 'survey', limit, page: expectedPages + 1 }));
    expect(past.data).toEqual([]);
    expect(past.pageTotal).toBe(expectedPages);
  });

  it('uses the documented default limit of 20', async () => {
    const body = success(await h.searchReq({ query: 'survey' }));
    expect(body.data).toHaveLength(20);
    expect(body.pageTotal).toBe(Math.ceil(N / 20));
    expect(ImageryResponse.parse(body).isSuccess).toBe(true);
  });
});

describe('a catalog that cannot be built', () => {
  let h: Harness;
  let dir: string;
  beforeAll(async () => {
    dir = writeKnownFolder();
    h = await startHarness(
      { photoDirs: [dir] },
      {
        sqlite(db) {
          migrateImagery(db);
          db.exec("CREATE TRIGGER no_room BEFORE INSERT ON imagery_photo BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END");
        },
        async postgis(pool) {
          await migratePgImagery(pool);
          await pool.query(`CREATE FUNCTION no_room() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN RAISE EXCEPTION 'database or disk is full'; END $$;
            CREATE TRIGGER no_room BEFORE INSERT ON imagery_photo FOR EACH ROW EXECUTE FUNCTION no_room()`);
        },
      },
    );
  });
  afterAll(async () => {
    await h.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers isSuccess false with 503 on both operations', async () => {
    const s = await h.searchReq({ query: 'Lisbon' });
    expect(s.status).toBe(503);
    expect(ImageryResponse.parse(s.json).isSuccess).toBe(false);
    expect((s.json as { error: { code: string } }).error.code).toBe('CATALOG_UNAVAILABLE');
    const st = await h.stream({ query: 'Lisbon' });
    expect(st.status).toBe(503);
    expect(StreamResponse.parse(st.json).isSuccess).toBe(false);
    expect((await h.plugin.catalog()!.status()).error).toBe('database or disk is full');
  });

  it('recovers once the database accepts rows again', async () => {
    if (h.pool) await h.pool.query('DROP TRIGGER no_room ON imagery_photo');
    else h.db.exec('DROP TRIGGER no_room');
    const body = success(await h.searchReq({ query: 'Lisbon' }));
    expect(body.data).toHaveLength(1);
  });
});

describe('a failing injected geocoder', () => {
  it('costs the address text, not the catalog', async () => {
    const dir = writeKnownFolder();
    const h = await startHarness({
      photoDirs: [dir],
      geocode: () => {
        throw new Error('place lookup failed');
      },
    });
    try {
      const body = success(await h.searchReq({ query: 'tram' }));
      expect(body.data.map((r) => r.address)).toEqual(['38.72230, -9.13930']);
    } finally {
      await h.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
