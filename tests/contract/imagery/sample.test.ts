import { readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ImageryRecordExact, ImageryResponseSuccess } from '../../../shared/service/imagery';
import { StreamResponseSuccess } from '../../../shared/service/stream';
import { startHarness, type Harness } from './harness';

const SAMPLE_DIR = resolve('resources/sample-photos');

describe('bundled sample imagery', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ photoDirs: [], sample: true, sampleDir: SAMPLE_DIR });
  });
  afterAll(() => h.close());

  it('is small enough to commit', () => {
    const jpgs = readdirSync(SAMPLE_DIR).filter((f) => f.endsWith('.jpg'));
    const total = jpgs.reduce((n, f) => n + statSync(join(SAMPLE_DIR, f)).size, 0);
    expect(jpgs.length).toBeGreaterThanOrEqual(8);
    expect(total).toBeLessThan(1.5 * 1024 * 1024);
  });

  it('is indexed in full, clearly marked, with one interactive panorama', async () => {
    expect(await h.plugin.catalog()!.status()).toMatchObject({ photos: 10, skipped: [] });
    const body = ImageryResponseSuccess.parse((await h.searchReq({ query: '*', limit: 100 })).json);
    expect(body.data).toHaveLength(10);
    for (const r of body.data) {
      ImageryRecordExact.parse(r);
      expect(r['description']).toMatch(/^Sample imagery: /);
    }
    expect(body.data.filter((r) => r.interactive).map((r) => r.address)).toEqual(['Reykjavík, Iceland']);
    const paris = ImageryResponseSuccess.parse((await h.searchReq({ query: 'Paris' })).json);
    expect(paris.data.map((r) => r.address)).toEqual(['Paris, France', 'Paris, France']);
    const stream = StreamResponseSuccess.parse((await h.stream({ query: 'sample' })).json);
    expect(new Set(stream.data.geojson.features.map((f) => f.properties.source))).toEqual(new Set(['Fieldlens sample imagery']));
  });
});
