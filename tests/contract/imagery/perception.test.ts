import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tagJpeg, writeGeotaggedJpeg } from '../../../electron/local-service/imagery/photo-writer';
import { iou, JIMP_IMAGES, LABELLED } from '../../support/labelled-photos';
import { BACKEND, KEY, startHarness, type Harness } from './harness';

interface Obs {
  id: string;
  properties: { feature_name: string; match: string; score?: number; detections?: { label: string; score: number; box: [number, number, number, number] }[]; description: string };
}
interface StreamBody {
  isSuccess: boolean;
  data: { geojson: { features: Obs[] }; perception?: { classes: { label: string; said: string }[]; unseen: string[]; message: string | null } };
}

/** Two real photos (a car park, two police figurines) and a drawn one tagged "potholes", geotagged in Lyon. */
function writeFolder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'fl-perception-'));
  const tag = (file: string, width: number, height: number, description: string) =>
    writeFileSync(
      join(dir, file),
      tagJpeg(readFileSync(join(JIMP_IMAGES, file)), { width, height, latitude: 45.76, longitude: 4.84, description, takenAt: '2024:05:01 10:00:00', make: 'TestCam' }),
    );
  tag('fillbytes.jpg', 704, 576, 'Depot yard');
  tag('cops.jpg', 640, 426, 'Figurines on a path');
  writeGeotaggedJpeg(join(dir, 'road.jpg'), { width: 64, height: 48, latitude: 45.77, longitude: 4.85, keywords: ['potholes'], description: 'Road survey', make: 'TestCam' });
  copyFileSync(join(JIMP_IMAGES, 'cops.jpg'), join(dir, 'no-gps.jpg'));
  return dir;
}

describe(`stream answers by what the detector saw (${BACKEND})`, () => {
  let dir: string;
  let h: Harness;
  beforeAll(async () => {
    dir = writeFolder();
    h = await startHarness({ photoDirs: [dir], perception: { workers: 1 } });
    const t0 = Date.now();
    for (;;) {
      const p = h.plugin.perception()!;
      if (p.state === 'idle' && p.total === 3 && p.done === 3) break;
      if (Date.now() - t0 > 90_000) throw new Error(`detectors did not finish: ${JSON.stringify(p)}`);
      await new Promise((ok) => setTimeout(ok, 100));
    }
  }, 120_000);
  afterAll(async () => {
    await h?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Waits for the detectors to settle (a kick with nothing to look at still runs once). */
  const settled = async () => {
    const t0 = Date.now();
    await new Promise((ok) => setTimeout(ok, 50));
    while (h.plugin.perception()!.state === 'running' && Date.now() - t0 < 30_000) await new Promise((ok) => setTimeout(ok, 50));
    return h.plugin.perception()!;
  };

  const stream = async (query: string) => {
    const r = await h.stream({ query });
    expect(r.status).toBe(200);
    return r.json as StreamBody;
  };

  it('"cars" lists the car park with the class as feature_name, its score and boxes', async () => {
    const body = await stream('cars');
    expect(body.data.perception).toEqual({ classes: [{ label: 'car', said: 'cars' }], unseen: [], message: null });
    expect(body.data.geojson.features.map((f) => f.properties.description)).toEqual(['Depot yard']);
    const p = body.data.geojson.features[0]!.properties;
    expect(p).toMatchObject({ feature_name: 'car', match: 'seen' });
    expect(p.score).toBe(Math.max(...p.detections!.map((d) => d.score)));
    expect(p.detections!.every((d) => d.label === 'car')).toBe(true);
    // The boxes are the hand-labelled cars' (image pixels), not somewhere else.
    const cars = LABELLED.filter((l) => l.file === 'fillbytes.jpg');
    expect(cars.filter((l) => p.detections!.some((d) => iou(d.box, l.box) >= 0.5)).length).toBeGreaterThanOrEqual(4);
  });

  it('"people" lists the figurines as person; a place word narrows, a year is no artifact', async () => {
    const body = await stream('people');
    expect(body.data.geojson.features.map((f) => [f.properties.description, f.properties.feature_name])).toEqual([['Figurines on a path', 'person']]);
    const narrowed = await stream('people on a path 2024');
    expect(narrowed.data.geojson.features).toHaveLength(1);
    expect(narrowed.data.perception!.unseen).toEqual(['path']);
  });

  it('an artifact the detector has no class for is said so: keyword matches are not presented as seen', async () => {
    const tagged = await stream('potholes');
    expect(tagged.data.geojson.features.map((f) => [f.properties.description, f.properties.match, f.properties.feature_name])).toEqual([
      ['Road survey', 'text', 'potholes'],
    ]);
    expect(tagged.data.perception!.unseen).toEqual(['potholes']);
    expect(tagged.data.perception!.message).toMatch(/no class for "potholes".*keywords, captions or text read in them.*not because it was seen/);
    const nothing = await stream('gargoyles');
    expect(nothing.data.geojson.features).toEqual([]);
    expect(nothing.data.perception!.message).toMatch(/no class for "gargoyles".*nothing is listed/);
  });

  it('a class nothing was seen of lists nothing (no keyword guess), and says no more', async () => {
    const body = await stream('fire hydrants');
    expect(body.data.geojson.features).toEqual([]);
    expect(body.data.perception).toEqual({ classes: [{ label: 'fire hydrant', said: 'fire hydrants' }], unseen: [], message: null });
  });

  it('text read in a photo is found by imagery search, with the lines that matched', async () => {
    const r = await h.searchReq({ query: 'camera' });
    expect(r.status).toBe(200);
    const body = r.json as { data: { description: string; text_seen?: string[] }[] };
    expect(body.data.map((d) => [d.description, d.text_seen])).toEqual([['Depot yard', ['Camera 03']]]);
    // Stream finds it by the same words, not as something seen.
    const s = await stream('camera');
    expect(s.data.geojson.features.map((f) => [f.properties.description, f.properties.match])).toEqual([['Depot yard', 'text']]);
  });

  it('the catalog reports the detectors; stop and go on are routes of the base host', async () => {
    const auth = { authorization: `Bearer ${KEY}` };
    const cat = await h.base.inject({ method: 'GET', url: '/v1/imagery/catalog', headers: auth });
    expect(cat.json().perception).toMatchObject({ state: 'idle', failed: 0, error: null });
    const stop = await h.base.inject({ method: 'POST', url: '/v1/imagery/perception/cancel', headers: auth });
    expect(stop.json()).toMatchObject({ state: 'idle' });
    expect(h.plugin.perception()!.state).toBe('idle');
    const go = await h.base.inject({ method: 'POST', url: '/v1/imagery/perception/resume', headers: auth });
    expect(go.statusCode).toBe(200);
    expect(await settled()).toMatchObject({ state: 'idle', done: 0 });
    expect((await h.base.inject({ method: 'POST', url: '/v1/imagery/perception/pause', headers: auth })).statusCode).toBe(404);
  });

  it('a rescan looks again only at new or changed photos', async () => {
    const before = h.plugin.perception()!;
    await h.plugin.catalog()!.scan();
    const after = await settled();
    expect(after.state).toBe('idle');
    expect(after.done).toBe(0);
    expect(before.run).toBe(after.run);
  });
});
