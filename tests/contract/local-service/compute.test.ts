import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ComputeResponseExact, QUERY_MAX_CHARS } from '../../../shared/service/compute';
import { PROBLEM_CONTENT_TYPE } from '../../../shared/service/problem';
import { compute, computeForm, fileForm, insertSavedRow, KEYS, postForm, postJson, problem, startService, stopService, type Running } from './harness';

let r: Running;
beforeAll(async () => {
  r = await startService();
});
afterAll(async () => {
  await stopService(r);
});

describe('POST /v1/compute: success shape', () => {
  it('answers exactly the spec 2.2 fields, with features carrying every property', async () => {
    const res = await compute(r, { query: 'large airports within 30 km of Paris', limit: 1 });
    expect(Object.keys(res).sort()).toEqual(['answer', 'id', 'query', 'results', 'usage', 'warnings']);
    expect(res.results.numberMatched).toBeGreaterThan(1);
    expect(res.results.numberReturned).toBe(1);
    const f = res.results.features[0]!;
    expect(Object.keys(f.properties)).toEqual(
      expect.arrayContaining(['source_id', 'name', 'address', 'score', 'distance_meters', 'source', 'attributes']),
    );
    expect(f.properties.distance_meters).toBeGreaterThan(0);
    expect(res.answer.status).toBe('complete');
    expect(res.usage.meters).toBeGreaterThan(1);
  });

  it('every country, with its polygon, validates as a compute feature', async () => {
    const res = await compute(r, { query: 'countries', limit: 2000, answer: false });
    expect(res.results.numberMatched).toBe(res.results.numberReturned);
    expect(res.results.numberMatched).toBeGreaterThan(240);
    expect(res.results.features.filter((f) => f.geometry.type === 'MultiPolygon').length).toBeGreaterThan(20);
  });

  it('answer false gives skipped with null content and error', async () => {
    const res = await compute(r, { query: 'cities in Iceland', answer: false });
    expect(res.answer).toEqual({ status: 'skipped', content: null, error: null });
  });

  it('the fault header makes generation fail with results intact and HTTP 200', async () => {
    const ok = await compute(r, { query: 'airports in Malta' });
    const failed = await compute(r, { query: 'airports in Malta' }, { 'x-fieldlens-answer-fault': '1' });
    expect(failed.answer.status).toBe('failed');
    expect(failed.answer.content).toBeNull();
    expect(failed.answer.error).toMatchObject({ code: 'answer_generation_failed' });
    expect(failed.results).toEqual(ok.results);
  });

  it('the answerFault option fails every generation', async () => {
    const f = await startService({ answerFault: true });
    try {
      const res = await compute(f, { query: 'airports in Malta' });
      expect(res.answer.status).toBe('failed');
      expect(res.results.numberMatched).toBeGreaterThan(0);
    } finally {
      await stopService(f);
    }
  });

  it('accepts multipart with every field as text, repeated files and images', async () => {
    const form = fileForm(
      {
        query: 'which of my sites are within 50 km of an airport',
        limit: '5',
        answer: 'true',
        user_id: 'u1',
        coordinates: JSON.stringify([{ name: 'HQ', latitude: 48.85, longitude: 2.35 }]),
        include_stats: 'auto',
        model: 'compute',
        mode: 'fast',
      },
      [
        { name: 'a.csv', text: 'name,lat,lon,owner\nA,48.85,2.35,ann\nB,0.5,-30.0,bob\n' },
        { name: 'b.geojson', text: JSON.stringify({ type: 'FeatureCollection', features: [{ type: 'Feature', properties: { name: 'C', tag: 7 }, geometry: { type: 'Point', coordinates: [-3.7, 40.4] } }] }) },
        { name: 'photo.jpg', text: 'not really a jpeg', field: 'images' },
      ],
    );
    const res = await computeForm(r, form);
    const names = res.results.features.map((f) => f.properties.name).sort();
    expect(names).toEqual(['A', 'C']);
    const a = res.results.features.find((f) => f.properties.name === 'A')!;
    expect(a.properties.attributes).toMatchObject({ owner: 'ann' });
    const c = res.results.features.find((f) => f.properties.name === 'C')!;
    expect(c.properties.attributes).toMatchObject({ tag: 7 });
    const codes = res.warnings.map((w) => (w as { code: string }).code);
    expect(codes).toEqual(expect.arrayContaining(['images_unused', 'mode_unused']));
  });
});

describe('POST /v1/compute: errors', () => {
  const expectProblem = (res: { status: number; contentType: string; body: unknown }, status: number) => {
    expect(res.status).toBe(status);
    expect(res.contentType).toContain(PROBLEM_CONTENT_TYPE);
    const p = problem(res);
    expect(p.status).toBe(status);
    return p;
  };

  it('401 without a key, with a wrong key, and with the search key on the base host', async () => {
    for (const headers of [{ authorization: '' }, { authorization: 'Bearer wrong' }, { authorization: `Bearer ${KEYS.search}` }]) {
      const res = await postJson(r, { query: 'x' }, headers);
      expectProblem(res, 401);
    }
  });

  it('401 on the search host without x-api-key; its health route needs none', async () => {
    const res = await fetch(`${r.searchBaseUrl}/search`, { method: 'POST' });
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toContain(PROBLEM_CONTENT_TYPE);
    expect((await fetch(`${r.searchBaseUrl}/health`)).status).toBe(200);
    const authed = await fetch(`${r.searchBaseUrl}/search`, { method: 'POST', headers: { 'x-api-key': KEYS.search } });
    expect(authed.status).toBe(404); // key accepted; the route arrives with the imagery plugin
  });

  it('setKeys rotates the keys', async () => {
    r.service.setKeys({ bearer: 'rotated-key-1', search: KEYS.search });
    try {
      expect((await postJson(r, { query: 'airports in Malta' })).status).toBe(401);
      expect((await postJson(r, { query: 'airports in Malta' }, { authorization: 'Bearer rotated-key-1' })).status).toBe(200);
    } finally {
      r.service.setKeys(KEYS);
    }
  });

  it('400 with field errors: missing query, limit out of range, wrong types, bad UUIDs, bad H3, bad coordinates', async () => {
    const p = expectProblem(
      await postJson(r, {
        limit: 2001,
        answer: 'yes',
        area_id: 'not-a-uuid',
        search_id: '1234',
        h3_ids: ['8a2a1072b59ffff'],
        coordinates: [{ name: 'x', latitude: 91, longitude: -181 }],
      }),
      400,
    );
    const fields = p.errors!.map((e) => e.field);
    expect(fields).toEqual(
      expect.arrayContaining(['query', 'limit', 'answer', 'area_id', 'search_id', 'coordinates.0.latitude', 'coordinates.0.longitude']),
    );
    const zero = expectProblem(await postJson(r, { query: 'cities', limit: 0 }), 400);
    expect(zero.errors!.map((e) => e.field)).toEqual(['limit']);
    const h3 = expectProblem(await postJson(r, { query: 'cities', h3_ids: ['8a2a1072b59ffff', 'nonsense'] }), 400);
    expect(h3.errors).toEqual([{ field: 'h3_ids.1', message: '"nonsense" is not a valid H3 cell' }]);
    const m = expectProblem(await postJson(r, { query: 'cities', measurement: 'average' }), 400);
    expect(m.errors!.map((e) => e.field)).toEqual(['measurement']);
    const form = expectProblem(await postForm(r, fileForm({ query: 'x', limit: 'ten' }, [])), 400);
    expect(form.errors!.map((e) => e.field)).toEqual(['limit']);
  });

  it('404 for an unknown search_id and an unknown area_id', async () => {
    const p = expectProblem(await postJson(r, { query: 'only those in Spain', search_id: '00000000-0000-4000-8000-000000000000' }), 404);
    expect(p.errors).toEqual([{ field: 'search_id', message: 'unknown search_id' }]);
    expectProblem(await postJson(r, { query: 'airports', area_id: '00000000-0000-4000-8000-000000000000' }), 404);
  });

  it('409 for a search_id saved against another catalog version', async () => {
    const id = '11111111-2222-4333-8444-555555555555';
    await insertSavedRow(r, id, 'not-this-one');
    const p = expectProblem(await postJson(r, { query: 'only those in Spain', search_id: id }), 409);
    expect(p.errors).toEqual([{ field: 'search_id', message: 'saved with another catalog version' }]);
  });

  it('400 for a question text past QUERY_MAX_CHARS, in JSON and in a form', async () => {
    const long = 'airports in France '.repeat(Math.ceil(QUERY_MAX_CHARS / 19)).slice(0, QUERY_MAX_CHARS + 1);
    for (const res of [await postJson(r, { query: long }), await postForm(r, fileForm({ query: long }, []))])
      expect(expectProblem(res, 400).errors!.map((e: { field: string }) => e.field)).toEqual(['query']);
    // At the limit it is read (and answered, here as a question the service cannot read whole).
    expect((await postJson(r, { query: long.slice(0, QUERY_MAX_CHARS) })).status).not.toBe(400);
  });

  it('400 for a body that is not JSON, 415 for an unsupported content type', async () => {
    expectProblem(await postJson(r, '{"query": "x",'), 400);
    expectProblem(await postJson(r, '[1,2]'), 400);
    expectProblem(await postJson(r, 'query=x', { 'content-type': 'application/x-www-form-urlencoded' }), 415);
    expectProblem(await postJson(r, 'query', { 'content-type': 'text/plain' }), 415);
  });

  it('413 for a JSON body over 1 MiB and an upload over 20 MiB', async () => {
    expectProblem(await postJson(r, { query: 'a'.repeat(1024 * 1024 + 10) }), 413);
    const big = fileForm({ query: 'these' }, [{ name: 'big.csv', text: 'lat,lon\n' + '1,1\n'.repeat(5_300_000) }]);
    expectProblem(await postForm(r, big), 413);
  });

  it('400 for unusable uploads, naming the file and line', async () => {
    const csv = expectProblem(await postForm(r, fileForm({ query: 'my sites' }, [{ name: 'sites.csv', text: 'name,lat,lon\nB,north,2\n' }])), 400);
    expect(csv.detail).toBe('sites.csv: none of its 1 row(s) could be read (line 2: latitude "north" is not a number)');
    const json = expectProblem(
      await postForm(r, fileForm({ query: 'these' }, [{ name: 'p.geojson', text: '{"type":"FeatureCollection",\n"features":[\n{"type":"Feature" "geometry":null}\n]}' }])),
      400,
    );
    expect(json.detail).toMatch(/^p\.geojson line 3: invalid JSON/);
    const wkt = expectProblem(await postForm(r, fileForm({ query: 'these' }, [{ name: 'w.csv', text: 'id\twkt\n2\tPOLYGON ((1 2, 3\n' }])), 400);
    expect(wkt.detail).toBe('w.csv: none of its 1 row(s) could be read (line 2: "wkt" is not valid WKT: POLYGON ((1 2, 3)');
    const nocols = expectProblem(await postForm(r, fileForm({ query: 'these' }, [{ name: 'n.csv', text: 'a,b\n1,2\n' }])), 400);
    expect(nocols.detail).toMatch(/^n\.csv line 1: no coordinate columns/);
  });

  it('404 problem for unknown routes; the server keeps serving after every error', async () => {
    const res = await fetch(`${r.baseUrl}/v1/nothing`, { headers: { authorization: `Bearer ${KEYS.bearer}` } });
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toContain(PROBLEM_CONTENT_TYPE);
    const ok = await postJson(r, { query: 'airports in Malta' });
    expect(ComputeResponseExact.safeParse(ok.body).success).toBe(true);
  });
});

describe('addresses', () => {
  it('are names a person reads: no region codes ("Tokyo, 40, Japan"), which stay in the properties', async () => {
    const code = /^(\d+|[A-Z]{2}-[A-Z0-9]{1,3}|[A-Z0-9]{2})$/;
    const cities = await compute(r, { query: 'cities in Japan', limit: 50 });
    const airports = await compute(r, { query: 'airports in France', limit: 50 });
    const features = [...cities.results.features, ...airports.results.features];
    expect(features.length).toBeGreaterThan(20);
    for (const f of features) {
      const parts = String(f.properties.address).split(', ');
      expect(parts.filter((p) => code.test(p))).toEqual([]);
    }
    expect(cities.results.features.find((f) => f.properties.name === 'Tokyo')?.properties.address).toBe('Tokyo, Japan');
    expect(airports.results.features.every((f) => /^FR-/.test(String(f.properties.region_code)))).toBe(true);
  });
});

describe('continuation', () => {
  it('continues a saved query across a service restart', async () => {
    const first = await startService();
    const dataDir = first.dataDir;
    const a = await compute(first, { query: 'airports in Spain', limit: 1 });
    await stopService(first, false);
    const second = await startService({ dataDir });
    try {
      const b = await compute(second, { query: 'only those within 50 km of Madrid', search_id: a.id, limit: 50 });
      expect(b.results.numberMatched).toBeGreaterThan(0);
      expect(b.results.numberMatched).toBeLessThan(a.results.numberMatched);
      for (const f of b.results.features) {
        expect(f.properties.address).toContain('Spain');
        expect(f.properties.distance_meters).toBeLessThanOrEqual(50_000);
      }
      // A continuation of a continuation.
      const c = await compute(second, { query: 'how many per country', search_id: b.id });
      expect(c.results.features.map((f) => f.properties.name)).toEqual(['Spain']);
      expect(c.results.features[0]!.properties.attributes).toMatchObject({ count: b.results.numberMatched });
    } finally {
      await stopService(second);
    }
  });
});
