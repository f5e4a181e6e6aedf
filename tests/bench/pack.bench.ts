// `npm run bench:pack`: an area of 10,000 cached features with 200 media files of 100-300 KB,
// packed into one GeoPackage and opened on an empty data folder. Last line: one JSON object.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ImageryResponse } from '../../shared/service/imagery';
import { rng } from '../node/cache/fixtures';
import { AREA, computeBody, finished, jpegLike, openSide, packService, T0 } from '../support/pack-fixture';
import { printFigures } from './figures';

const dir = mkdtempSync(join(tmpdir(), 'fl-bench-pack-'));
try {
  const src = openSide(join(dir, 'source'));
  const r = rng(16);
  const at = (): [number, number] => [+(AREA[0] + r() * (AREA[2] - AREA[0])).toFixed(6), +(AREA[1] + r() * (AREA[3] - AREA[1])).toFixed(6)];
  src.cache.bulk(() => {
    // 10,000 features: 10 questions of 980 features and one imagery search of 200 records.
    for (let q = 0; q < 10; q++) {
      const body = computeBody(`places ${q}`, Array.from({ length: 980 }, at));
      const startedAt = T0 + q * 60_000;
      src.cache.storeCompute({ profileId: 'local', request: { query: `places ${q}` }, startedAt, finishedAt: startedAt + 900 }, body, Buffer.from(JSON.stringify(body)));
    }
    const records = Array.from({ length: 200 }, (_, i) => ({
      id: randomUUID(),
      address: `${i} Marktplatz, Fulda`,
      date: 'March 5, 2026',
      compass: 'North (N)',
      interactive: false,
      geometry: { type: 'Point', coordinates: at() },
      image: `https://img.example/bench-${i}.jpg`,
    }));
    const body = { isSuccess: true, page: 1, pageTotal: 1, result_id: 'img', region: 'Fulda', region_id: null, data: records } as unknown as ImageryResponse;
    src.cache.storeImagery({ profileId: 'local', request: { query: 'street photos' }, startedAt: T0 + 3_600_000, finishedAt: T0 + 3_601_000 }, body, JSON.stringify(body));
    for (const rec of records) src.cache.putMedia(rec.image, 'image/jpeg', jpegLike(100_000 + Math.floor(r() * 200_000)), T0);
  });
  src.cache.checkpoint();

  const h = packService(src);
  const sel = { area: { bbox: AREA } };
  const est = await h.service.estimate(sel);
  const path = join(dir, 'area.gpkg');
  const t0 = performance.now();
  const { jobId } = await h.service.create(sel, path);
  const end = await finished(h, jobId);
  const packMs = performance.now() - t0;
  if (end.state !== 'done') throw new Error(`pack ${end.state}: ${end.error?.message}`);
  if (end.contents!.features !== 10_000 || end.contents!.media !== 200) throw new Error(`pack holds ${JSON.stringify(end.contents)}`);

  const dst = openSide(join(dir, 'fresh'));
  const t1 = performance.now();
  const opened = await packService(dst).service.open(path);
  const openMs = performance.now() - t1;
  if (opened.added.features !== 10_000 || opened.added.media !== 200) throw new Error(`opened ${JSON.stringify(opened.added)}`);
  src.close();
  dst.close();
  printFigures({
    pack_10k_features_200_media_bytes: end.bytes!,
    pack_10k_features_200_media_ms: Math.round(packMs),
    open_pack_ms: Math.round(openMs),
    pack_estimate_ratio: +(est.bytes / end.bytes!).toFixed(3),
  });
} finally {
  rmSync(dir, { recursive: true, force: true });
}
