import { describe, expect, it } from 'vitest';
import type { QueryRecord } from '../../../shared/rpc/methods/history';
import { attachmentType, bytesToBase64, viewOfRecord } from '../../../renderer/src/lib/results';

const base: Omit<QueryRecord, 'kind' | 'raw'> = {
  id: 1,
  profileId: 'local',
  queryText: 'q',
  outcome: 'ok',
  remoteId: null,
  searchId: null,
  rerunOf: null,
  answerStatus: null,
  answerContent: 'Two airports.',
  featureCount: 0,
  numberMatched: null,
  numberReturned: null,
  usageMeters: null,
  page: null,
  pageTotal: null,
  region: null,
  startedAt: 0,
  finishedAt: 0,
  durationMs: 0,
  serverDurationMs: null,
  httpStatus: 200,
  bbox: null,
  request: {},
  answerError: null,
  warnings: ['w'],
  usage: null,
  error: null,
  uploads: [],
};

describe('cached query views', () => {
  it('reads compute features into rows and a collection', () => {
    const raw = JSON.stringify({
      results: {
        type: 'FeatureCollection',
        features: [
          {
            type: 'Feature',
            id: 'f1',
            geometry: { type: 'Point', coordinates: [4.84, 45.76] },
            properties: { source_id: 's', name: 'Lyon', address: 'Lyon, France', score: 1, distance_meters: 1500, source: { name: 'x', url: '' }, attributes: {} },
          },
        ],
      },
    });
    const v = viewOfRecord({ ...base, kind: 'compute', raw });
    expect(v.rows).toEqual([
      { id: 'f1', title: 'Lyon', subtitle: 'Lyon, France', distanceMeters: 1500, imageUrl: null, date: null, compass: null },
    ]);
    expect(v.collection.features[0]?.geometry).toEqual({ type: 'Point', coordinates: [4.84, 45.76] });
    expect(v.answer).toBe('Two airports.');
    expect(v.warnings).toEqual(['w']);
  });

  it('reads imagery records and stream observations', () => {
    const imagery = viewOfRecord({
      ...base,
      kind: 'imagery',
      raw: JSON.stringify({
        data: [
          { id: 'i1', address: 'Paris, France', date: 'March 5, 2024', compass: 'North-East (NE)', interactive: false, geometry: { type: 'Point', coordinates: [2.3, 48.8] }, image: 'http://h/i1' },
          { id: 'i2', address: 'Reykjavik, Iceland', date: 'February 2, 2024', compass: 'South-West (SW)', interactive: true, geometry: { type: 'Point', coordinates: [-21.9, 64.1] }, image: 'http://h/i2' },
        ],
      }),
    });
    expect(imagery.rows[0]).toMatchObject({ id: 'i1', title: 'Paris, France', imageUrl: 'http://h/i1', compass: 'North-East (NE)' });
    expect(imagery.rows[1]?.compass).toBe('South-West (SW) · 360°');
    expect(imagery.collection.features.map((f) => f.id)).toEqual(['i1', 'i2']);

    const stream = viewOfRecord({
      ...base,
      kind: 'stream',
      raw: JSON.stringify({
        data: { geojson: { features: [{ type: 'Feature', id: 'o1', geometry: { type: 'Point', coordinates: [1, 2] }, properties: { address: null, feature_name: 'bridge', owner: 'Canon', image_url: 'http://h/o1', date: '2024-01-01' } }] } },
      }),
    });
    expect(stream.rows[0]).toMatchObject({ id: 'o1', title: 'bridge', subtitle: 'bridge · Canon', imageUrl: 'http://h/o1' });
  });

  it('shows nothing (but keeps the answer) when no usable body was received', () => {
    expect(viewOfRecord({ ...base, kind: 'compute', raw: null }).rows).toEqual([]);
    expect(viewOfRecord({ ...base, kind: 'compute', raw: '{not json' }).rows).toEqual([]);
  });
});

describe('attachments', () => {
  it('encodes bytes as base64 across chunk boundaries', () => {
    const bytes = new Uint8Array(70_000).map((_, i) => i % 251);
    const encoded = bytesToBase64(bytes);
    expect(Uint8Array.from(atob(encoded), (c) => c.charCodeAt(0))).toEqual(bytes);
    expect(bytesToBase64(new TextEncoder().encode('lon,lat\n'))).toBe('bG9uLGxhdAo=');
    expect(bytesToBase64(new Uint8Array())).toBe('');
  });

  it('names a content type from the file name when the browser gives none', () => {
    expect(attachmentType('sites.CSV', '')).toBe('text/csv');
    expect(attachmentType('sites.geojson', '')).toBe('application/geo+json');
    expect(attachmentType('x.bin', '')).toBe('application/octet-stream');
    expect(attachmentType('a.csv', 'text/plain')).toBe('text/plain');
  });
});
