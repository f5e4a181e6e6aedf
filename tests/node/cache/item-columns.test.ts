import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Cache, FEATURE_ID_SPAN } from '../../../electron/cache';
import type { StreamResponseSuccess } from '../../../shared/service/stream';
import type { ImageryResponseSuccess } from '../../../shared/service/imagery';

const meta = { profileId: 'local', request: { query: 'q' }, startedAt: 1, finishedAt: 2 };

describe('kind-specific columns come from the tables themselves', () => {
  let dir: string;
  let cache: Cache;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'fieldlens-itemcols-'));
    cache = Cache.open(join(dir, 'cache.db'));
  });
  afterEach(() => {
    cache.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('stores every field of an observation in the column of its name, as the column type reads it', () => {
    const properties = {
      address: 'Rua Augusta 1', date: '2024-05-01', year: '2024', month: '05', source: 'dashcam', owner: 'ana',
      feature_name: 'crosswalk', image_url: 'https://img.example/1.jpg', is_video: true, video_id: 'v1',
      video_url: 'https://img.example/1.mp4', duration: 12.5, interactive: false,
    };
    const body = {
      isSuccess: true, result_id: 'r', regions: [],
      data: { query: 'q', duration_ms: 5, geojson: { type: 'FeatureCollection', features: [
        { type: 'Feature', id: 'o1', geometry: { type: 'Point', coordinates: [-9.14, 38.71] }, properties },
      ] } },
    } as unknown as StreamResponseSuccess;
    const id = cache.storeStream(meta, body, JSON.stringify(body));
    const row = cache.db.prepare('SELECT * FROM observations WHERE id = ?').get(id * FEATURE_ID_SPAN);
    expect(row).toEqual({
      id: id * FEATURE_ID_SPAN, date: '2024-05-01', year: '2024', month: '05', source: 'dashcam', owner: 'ana',
      image_url: 'https://img.example/1.jpg', is_video: 1, video_id: 'v1', video_url: 'https://img.example/1.mp4',
      duration: 12.5, interactive: 0,
    });
  });

  it('stores an imagery record by its field names, and a field of the wrong type as null', () => {
    const record = { id: 'i1', address: 'Av. da Liberdade', date: 'March 5, 2024', compass: 'North (N)', interactive: 7, image: 'https://img.example/2.jpg', geometry: { type: 'Point', coordinates: [-9.14, 38.72] } };
    const body = { isSuccess: true, page: 1, pageTotal: 1, data: [record], result_id: 'r', region: 'Lisboa', region_id: null } as unknown as ImageryResponseSuccess;
    const id = cache.storeImagery(meta, body, JSON.stringify(body));
    expect(cache.db.prepare('SELECT * FROM imagery_records WHERE id = ?').get(id * FEATURE_ID_SPAN)).toEqual({
      id: id * FEATURE_ID_SPAN, date: 'March 5, 2024', compass: 'North (N)', interactive: null, image: 'https://img.example/2.jpg',
    });
  });
});
