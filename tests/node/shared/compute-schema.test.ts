import { describe, expect, it } from 'vitest';
import {
  ComputeFormFields,
  ComputeRequest,
  ComputeResponse,
  ComputeResponseExact,
} from '../../../shared/service/compute';

const uuid = '3f2b8c1e-5d4a-4b6c-9e8f-0a1b2c3d4e5f';

function feature(overrides: Record<string, unknown> = {}) {
  return {
    type: 'Feature',
    id: 'f1',
    geometry: { type: 'Point', coordinates: [4.85, 45.75] },
    properties: {
      source_id: 'geonames:2996944',
      name: 'Lyon',
      address: 'Lyon, France',
      score: 0.9,
      distance_meters: 1200.5,
      source: { name: 'GeoNames', url: 'https://www.geonames.org/2996944' },
      attributes: {},
    },
    ...overrides,
  };
}

function response(overrides: Record<string, unknown> = {}) {
  return {
    id: uuid,
    query: 'airports within 50 km of Lyon',
    answer: { status: 'complete', content: 'Two airports.', error: null },
    results: { type: 'FeatureCollection', numberMatched: 3, numberReturned: 1, features: [feature()] },
    warnings: [],
    usage: { meters: 1.5 },
    ...overrides,
  };
}

describe('compute request (spec 2.1)', () => {
  it('requires only query and applies the documented defaults', () => {
    const r = ComputeRequest.parse({ query: 'airports near Lyon' });
    expect(r).toEqual({ query: 'airports near Lyon', limit: 100, answer: true, model: 'compute' });
    expect(ComputeRequest.safeParse({}).success).toBe(false);
    expect(ComputeRequest.safeParse({ query: '   ' }).success).toBe(false);
  });

  it('bounds limit to 1..2000 integers', () => {
    expect(ComputeRequest.parse({ query: 'q', limit: 1 }).limit).toBe(1);
    expect(ComputeRequest.parse({ query: 'q', limit: 2000 }).limit).toBe(2000);
    for (const limit of [0, 2001, 1.5, '10', -1])
      expect(ComputeRequest.safeParse({ query: 'q', limit }).success, `limit ${String(limit)}`).toBe(false);
  });

  it('accepts every optional field with its type', () => {
    const r = ComputeRequest.parse({
      query: 'q',
      answer: false,
      user_id: 'analyst-7',
      area_id: uuid,
      coordinates: [{ name: 'HQ', latitude: 45.75, longitude: 4.85 }],
      h3_ids: ['871fb4662ffffff'],
      include_stats: 'auto',
      measurement: 'per_capita',
      mode: 'broad',
      model: 'compute',
      search_id: uuid,
    });
    expect(r.answer).toBe(false);
    expect(r.coordinates?.[0]).toEqual({ name: 'HQ', latitude: 45.75, longitude: 4.85 });
    expect(ComputeRequest.parse({ query: 'q', h3_ids: '871fb4662ffffff' }).h3_ids).toBe('871fb4662ffffff');
    expect(ComputeRequest.parse({ query: 'q', include_stats: true }).include_stats).toBe(true);
    expect(ComputeRequest.safeParse({ query: 'q', include_stats: 'sometimes' }).success).toBe(false);
  });

  it('rejects malformed UUIDs and out-of-range coordinates', () => {
    expect(ComputeRequest.safeParse({ query: 'q', area_id: 'not-a-uuid' }).success).toBe(false);
    expect(ComputeRequest.safeParse({ query: 'q', search_id: '1234' }).success).toBe(false);
    const bad = [
      { name: 'x', latitude: 91, longitude: 0 },
      { name: 'x', latitude: 0, longitude: -181 },
      { name: 'x', latitude: '45', longitude: 4 },
      { latitude: 1, longitude: 1 },
    ];
    for (const c of bad) expect(ComputeRequest.safeParse({ query: 'q', coordinates: [c] }).success).toBe(false);
  });

  it('takes the map view (view_bbox, an extension) as [west, south, east, north], in JSON and in a form', () => {
    expect(ComputeRequest.parse({ query: 'q', view_bbox: [4.7, 45.6, 5, 45.9] }).view_bbox).toEqual([4.7, 45.6, 5, 45.9]);
    // West past east crosses the antimeridian; south past north, a latitude out of range or three numbers are no view.
    expect(ComputeRequest.safeParse({ query: 'q', view_bbox: [170, -20, -170, -10] }).success).toBe(true);
    for (const bad of [[0, 10, 1, 5], [0, -91, 1, 5], [0, 1, 2]]) expect(ComputeRequest.safeParse({ query: 'q', view_bbox: bad }).success, String(bad)).toBe(false);
    expect(ComputeFormFields.parse({ query: 'q', view_bbox: '4.7,45.6,5,45.9' }).view_bbox).toEqual([4.7, 45.6, 5, 45.9]);
    expect(ComputeFormFields.parse({ query: 'q', view_bbox: '[4.7,45.6,5,45.9]' }).view_bbox).toEqual([4.7, 45.6, 5, 45.9]);
    expect(ComputeFormFields.safeParse({ query: 'q', view_bbox: '4.7,,5,45.9' }).success).toBe(false);
  });

  it('decodes the same fields from multipart text', () => {
    const r = ComputeFormFields.parse({
      query: 'my sites near airports',
      limit: '25',
      answer: 'false',
      coordinates: '[{"name":"HQ","latitude":1,"longitude":2}]',
      h3_ids: ['871fb4662ffffff', '871fb4663ffffff'],
      include_stats: 'auto',
      search_id: uuid,
    });
    expect(r).toMatchObject({ limit: 25, answer: false, include_stats: 'auto', search_id: uuid });
    expect(r.coordinates).toEqual([{ name: 'HQ', latitude: 1, longitude: 2 }]);
    expect(ComputeFormFields.parse({ query: 'q', h3_ids: 'a1,b2' }).h3_ids).toEqual(['a1', 'b2']);
    expect(ComputeFormFields.parse({ query: 'q' }).limit).toBe(100);
    expect(ComputeFormFields.safeParse({ query: 'q', limit: 'ten' }).success).toBe(false);
    expect(ComputeFormFields.safeParse({ query: 'q', limit: '2001' }).success).toBe(false);
    expect(ComputeFormFields.safeParse({ query: 'q', coordinates: '{bad' }).success).toBe(false);
    expect(ComputeFormFields.safeParse({ query: 'q', answer: 'yes' }).success).toBe(false);
  });
});

describe('compute response (spec 2.2)', () => {
  it('accepts a complete response and keeps unknown fields for clients', () => {
    const r = ComputeResponse.parse(response({ extra: { trace: 1 } }));
    expect((r as Record<string, unknown>)['extra']).toEqual({ trace: 1 });
    expect(r.results.features[0]?.properties.source).toEqual({
      name: 'GeoNames',
      url: 'https://www.geonames.org/2996944',
    });
  });

  it('the exact form allows only the six top-level fields', () => {
    expect(ComputeResponseExact.safeParse(response()).success).toBe(true);
    expect(ComputeResponseExact.safeParse(response({ extra: 1 })).success).toBe(false);
    for (const k of ['id', 'query', 'answer', 'results', 'warnings', 'usage']) {
      const r: Record<string, unknown> = response();
      delete r[k];
      expect(ComputeResponse.safeParse(r).success, `without ${k}`).toBe(false);
    }
  });

  it('ties answer content and error to its status', () => {
    const ok = (answer: unknown) => ComputeResponse.safeParse(response({ answer })).success;
    expect(ok({ status: 'skipped', content: null, error: null })).toBe(true);
    expect(ok({ status: 'failed', content: null, error: { message: 'model unavailable' } })).toBe(true);
    expect(ok({ status: 'failed', content: null, error: 'timeout' })).toBe(true);
    expect(ok({ status: 'skipped', content: 'text', error: null })).toBe(false);
    expect(ok({ status: 'complete', content: null, error: null })).toBe(false);
    expect(ok({ status: 'complete', content: 'x', error: 'oops' })).toBe(false);
    expect(ok({ status: 'pending', content: null, error: null })).toBe(false);
  });

  it('checks numberReturned against the features and numberMatched', () => {
    const results = (numberMatched: number, numberReturned: number) =>
      ComputeResponse.safeParse(
        response({ results: { type: 'FeatureCollection', numberMatched, numberReturned, features: [feature()] } }),
      ).success;
    expect(results(1, 1)).toBe(true);
    expect(results(5, 2)).toBe(false);
    expect(results(0, 1)).toBe(false);
  });

  it('keeps warnings of any shape and requires usage.meters', () => {
    expect(ComputeResponse.safeParse(response({ warnings: ['ignored "please"', { code: 'AMBIGUOUS' }] })).success).toBe(
      true,
    );
    expect(ComputeResponse.safeParse(response({ usage: {} })).success).toBe(false);
  });

  it('reads coordinates as [longitude, latitude]', () => {
    const at = (coordinates: unknown) =>
      ComputeResponse.safeParse(
        response({
          results: {
            type: 'FeatureCollection',
            numberMatched: 1,
            numberReturned: 1,
            features: [feature({ geometry: { type: 'Point', coordinates } })],
          },
        }),
      ).success;
    expect(at([150.5, -33.9])).toBe(true); // Sydney: longitude beyond 90 is fine first
    expect(at([-33.9, 150.5])).toBe(false); // swapped: latitude 150.5 is impossible
    expect(at([4.85])).toBe(false);
  });

  it('accepts any GeoJSON geometry and rejects malformed ones', () => {
    const geom = (geometry: unknown) =>
      ComputeResponse.safeParse(
        response({
          results: { type: 'FeatureCollection', numberMatched: 1, numberReturned: 1, features: [feature({ geometry })] },
        }),
      ).success;
    const ring = [
      [0, 0],
      [1, 0],
      [1, 1],
      [0, 0],
    ];
    expect(geom({ type: 'Polygon', coordinates: [ring] })).toBe(true);
    expect(geom({ type: 'MultiPolygon', coordinates: [[ring]] })).toBe(true);
    expect(geom({ type: 'LineString', coordinates: [[0, 0], [1, 1]] })).toBe(true);
    expect(geom({ type: 'GeometryCollection', geometries: [{ type: 'Point', coordinates: [1, 2] }] })).toBe(true);
    expect(geom({ type: 'Polygon', coordinates: [[[0, 0], [1, 1]]] })).toBe(false);
    expect(geom({ type: 'Circle', coordinates: [0, 0] })).toBe(false);
  });

  it('requires every feature property with its type', () => {
    for (const key of ['source_id', 'name', 'address', 'score', 'distance_meters', 'source', 'attributes']) {
      const f = feature();
      delete (f.properties as Record<string, unknown>)[key];
      const r = response({ results: { type: 'FeatureCollection', numberMatched: 1, numberReturned: 1, features: [f] } });
      expect(ComputeResponse.safeParse(r).success, `without ${key}`).toBe(false);
    }
    const f = feature();
    (f.properties as Record<string, unknown>)['score'] = '0.9';
    const r = response({ results: { type: 'FeatureCollection', numberMatched: 1, numberReturned: 1, features: [f] } });
    expect(ComputeResponse.safeParse(r).success).toBe(false);
  });
});
