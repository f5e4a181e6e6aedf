import { describe, expect, it } from 'vitest';
import { StreamRequest, StreamResponse, streamYear } from '../../../shared/service/stream';
import {
  ImageryRecordExact,
  ImageryRequest,
  ImageryResponse,
  captureDateText,
  compassText,
} from '../../../shared/service/imagery';

const observationProps = {
  address: 'Rue de la République, Lyon',
  date: '2024-03-05T10:20:00Z',
  year: '2024',
  month: '03',
  source: 'sample',
  owner: 'Canon',
  feature_name: 'bridge',
  image_url: 'http://127.0.0.1:1/media/a.jpg',
  is_video: false,
  video_id: null,
  video_url: null,
  duration: null,
  interactive: false,
};

function streamBody(overrides: Record<string, unknown> = {}) {
  return {
    isSuccess: true,
    result_id: 'r-1',
    data: {
      query: 'bridges',
      duration_ms: 12,
      geojson: {
        type: 'FeatureCollection',
        features: [
          { type: 'Feature', id: 'obs-1', geometry: { type: 'Point', coordinates: [4.83, 45.76] }, properties: { ...observationProps } },
        ],
      },
    },
    regions: [{ id: '250', name: 'France' }],
    year: '2024',
    ...overrides,
  };
}

describe('stream request (spec 2.3)', () => {
  it('requires query, defaults limit to 50 and caps it at 50', () => {
    expect(StreamRequest.parse({ query: 'bridges' })).toEqual({ query: 'bridges', limit: 50 });
    expect(StreamRequest.parse({ query: 'q', limit: 50 }).limit).toBe(50);
    expect(StreamRequest.safeParse({ query: 'q', limit: 51 }).success).toBe(false);
    expect(StreamRequest.safeParse({ query: 'q', limit: 0 }).success).toBe(false);
    expect(StreamRequest.safeParse({}).success).toBe(false);
  });

  it('takes region_id as numeric text, points as latitude/longitude objects, year as a number', () => {
    const r = StreamRequest.parse({
      query: 'q',
      region_id: '250',
      position: { points: [{ latitude: 45.7, longitude: 4.8 }, { latitude: 48.85, longitude: 2.35 }] },
      year: 2024,
    });
    expect(r.position?.points).toHaveLength(2);
    expect(StreamRequest.safeParse({ query: 'q', region_id: 'FR' }).success).toBe(false);
    expect(StreamRequest.safeParse({ query: 'q', position: { points: [] } }).success).toBe(false);
    expect(StreamRequest.safeParse({ query: 'q', position: { points: [{ latitude: 95, longitude: 0 }] } }).success).toBe(false);
    expect(StreamRequest.safeParse({ query: 'q', year: '2024' }).success).toBe(false);
    expect(StreamRequest.safeParse({ query: 'q', year: 2024.5 }).success).toBe(false);
  });
});

describe('stream response (spec 2.4)', () => {
  it('accepts every observation field, nullable where the spec says so', () => {
    const r = StreamResponse.parse(streamBody());
    expect(r.isSuccess).toBe(true);
    const nulls = Object.fromEntries(
      ['address', 'date', 'year', 'month', 'source', 'owner', 'image_url', 'is_video', 'video_id', 'video_url', 'duration'].map(
        (k) => [k, null],
      ),
    );
    const withNulls = streamBody();
    withNulls.data.geojson.features[0]!.properties = { ...observationProps, ...nulls } as typeof observationProps;
    expect(StreamResponse.safeParse(withNulls).success).toBe(true);
  });

  it('requires feature_name and interactive, which are never null', () => {
    for (const key of ['feature_name', 'interactive']) {
      const body = streamBody();
      (body.data.geojson.features[0]!.properties as Record<string, unknown>)[key] = null;
      expect(StreamResponse.safeParse(body).success, key).toBe(false);
    }
  });

  it('reads year at the top level or inside data, null when unrestricted', () => {
    const top = StreamResponse.parse(streamBody());
    expect(top.isSuccess && streamYear(top)).toBe('2024');
    const inner = streamBody({ year: undefined });
    (inner.data as Record<string, unknown>)['year'] = '2023';
    const r = StreamResponse.parse(inner);
    expect(r.isSuccess && streamYear(r)).toBe('2023');
    const none = StreamResponse.parse(streamBody({ year: null }));
    expect(none.isSuccess && streamYear(none)).toBeNull();
  });

  it('treats isSuccess false as the failure flag', () => {
    expect(StreamResponse.parse({ isSuccess: false, message: 'no region' }).isSuccess).toBe(false);
    expect(StreamResponse.safeParse({ ...streamBody(), result_id: undefined }).success).toBe(false);
  });

  it('checks observation coordinates in [longitude, latitude] order', () => {
    const body = streamBody();
    body.data.geojson.features[0]!.geometry.coordinates = [45.76, 120.4];
    expect(StreamResponse.safeParse(body).success).toBe(false);
  });
});

describe('imagery search (spec 2.5, 2.6)', () => {
  const record = {
    id: '0b6f6a9e-3c1d-4f2a-8b7e-5d4c3b2a1f00',
    address: 'Place Bellecour, Lyon, France',
    date: 'March 5, 2024',
    compass: 'North-East (NE)',
    interactive: false,
    geometry: { type: 'Point', coordinates: [4.832, 45.757] },
    image: 'http://127.0.0.1:1/media/x.jpg',
  };
  const body = (over: Record<string, unknown> = {}) => ({
    isSuccess: true,
    page: 1,
    pageTotal: 3,
    data: [record],
    result_id: 'res-1',
    region: 'France',
    region_id: '250',
    ...over,
  });

  it('requires query; limit and page are optional positive integers', () => {
    expect(ImageryRequest.parse({ query: 'lyon' })).toEqual({ query: 'lyon' });
    expect(ImageryRequest.safeParse({ query: 'lyon', limit: 0 }).success).toBe(false);
    expect(ImageryRequest.safeParse({ query: 'lyon', page: 0 }).success).toBe(false);
    expect(ImageryRequest.safeParse({ limit: 5 }).success).toBe(false);
  });

  it('accepts the response with a nullable region_id for global scope', () => {
    expect(ImageryResponse.safeParse(body()).success).toBe(true);
    expect(ImageryResponse.safeParse(body({ region_id: null, region: 'Global' })).success).toBe(true);
    expect(ImageryResponse.safeParse(body({ region_id: undefined })).success).toBe(false);
    for (const k of ['page', 'pageTotal', 'data', 'result_id', 'region'])
      expect(ImageryResponse.safeParse(body({ [k]: undefined })).success, k).toBe(false);
  });

  it('requires every record field; the exact form checks the date and compass text', () => {
    for (const k of Object.keys(record)) {
      const r: Record<string, unknown> = { ...record };
      delete r[k];
      expect(ImageryRecordExact.safeParse(r).success, k).toBe(false);
    }
    expect(ImageryRecordExact.safeParse(record).success).toBe(true);
    expect(ImageryRecordExact.safeParse({ ...record, date: '2024-03-05' }).success).toBe(false);
    expect(ImageryRecordExact.safeParse({ ...record, compass: 'NE' }).success).toBe(false);
    expect(ImageryRecordExact.safeParse({ ...record, id: 'abc' }).success).toBe(false);
    expect(ImageryRecordExact.safeParse({ ...record, geometry: { type: 'Point', coordinates: [45.7, 104.8] } }).success).toBe(
      false,
    );
  });

  it('writes dates as "Month D, YYYY" and facings with the 16-point names', () => {
    expect(captureDateText(new Date(Date.UTC(2024, 2, 5, 23, 59)))).toBe('March 5, 2024');
    expect(compassText(0)).toBe('North (N)');
    expect(compassText(45)).toBe('North-East (NE)');
    expect(compassText(22.5)).toBe('North-North-East (NNE)');
    expect(compassText(200)).toBe('South-South-West (SSW)');
    expect(compassText(359)).toBe('North (N)');
    expect(compassText(-90)).toBe('West (W)');
  });
});
