import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tagJpeg } from '../../../electron/local-service/imagery/photo-writer';
import { JIMP_IMAGES } from '../../support/labelled-photos';
import { BACKEND, startHarness, type Harness } from './harness';

interface StreamBody {
  data: { geojson: { features: { properties: { description: string; feature_name: string; match: string } }[] } };
}

/**
 * Two folders, one a prefix of the other's name: the car park (with "Camera 03" written in it)
 * in `photos`, the police figurines in `photos-b`.
 */
function writeFolders(): { root: string; cars: string; people: string } {
  const root = mkdtempSync(join(tmpdir(), 'fl-perception-switch-'));
  const cars = join(root, 'photos');
  const people = join(root, 'photos-b');
  const put = (dir: string, file: string, width: number, height: number, description: string) => {
    mkdirSync(dir, { recursive: true });
    const tags = { width, height, latitude: 45.76, longitude: 4.84, description, takenAt: '2024:05:01 10:00:00', make: 'TestCam' };
    writeFileSync(join(dir, file), tagJpeg(readFileSync(join(JIMP_IMAGES, file)), tags));
  };
  put(cars, 'fillbytes.jpg', 704, 576, 'Depot yard');
  put(people, 'cops.jpg', 640, 426, 'Figurines on a path');
  return { root, cars, people };
}

describe(`a photo folder indexed without the detectors (${BACKEND})`, () => {
  let dirs: ReturnType<typeof writeFolders>;
  let h: Harness;

  /** Waits until the detectors have nothing left to look at, after a kick has had time to start. */
  const settled = async () => {
    const t0 = Date.now();
    await new Promise((ok) => setTimeout(ok, 100));
    for (;;) {
      const p = h.plugin.perception()!;
      if (p.state !== 'running') return p;
      if (Date.now() - t0 > 90_000) throw new Error(`detectors did not finish: ${JSON.stringify(p)}`);
      await new Promise((ok) => setTimeout(ok, 100));
    }
  };
  const seen = async (query: string) => {
    const r = await h.stream({ query });
    expect(r.status).toBe(200);
    return (r.json as StreamBody).data.geojson.features.map((f) => [f.properties.description, f.properties.match, f.properties.feature_name]);
  };
  const textRead = async (query: string) => {
    const r = await h.searchReq({ query });
    expect(r.status).toBe(200);
    return (r.json as { data: { description: string }[] }).data.map((d) => d.description);
  };

  beforeAll(async () => {
    dirs = writeFolders();
    h = await startHarness({ photoDirs: [dirs.cars, dirs.people], perception: { workers: 1 }, detectionOff: [dirs.cars] });
    await h.plugin.catalog()!.scan();
    await settled();
  }, 120_000);
  afterAll(async () => {
    await h?.close();
    rmSync(dirs.root, { recursive: true, force: true });
  });

  it('while off, its photos are not looked at; the other folder is', async () => {
    expect(h.plugin.perception()).toMatchObject({ state: 'idle', failed: 0, error: null });
    expect(await h.plugin.catalog()!.status()).toMatchObject({ photos: 2 });
    expect(await seen('people')).toEqual([['Figurines on a path', 'seen', 'person']]);
    expect(await seen('cars')).toEqual([]);
    expect(await textRead('camera')).toEqual([]);
  });

  it('switched on, its photos are looked at and what is seen in them is found', async () => {
    await h.plugin.setDetectionOff([]);
    expect(await settled()).toMatchObject({ state: 'idle', done: 1, failed: 0 });
    expect(await seen('cars')).toEqual([['Depot yard', 'seen', 'car']]);
    expect(await textRead('camera')).toEqual(['Depot yard']);
  }, 120_000);

  it('switched off again, what was seen in it is forgotten and not looked at again', async () => {
    await h.plugin.setDetectionOff([dirs.cars]);
    expect(await settled()).toMatchObject({ state: 'idle', done: 0 });
    expect(await seen('cars')).toEqual([]);
    expect(await textRead('camera')).toEqual([]);
    // The folder whose name only starts the same keeps what was seen in it.
    expect(await seen('people')).toEqual([['Figurines on a path', 'seen', 'person']]);
  });

  it('switched off while its photo is being looked at, what is seen is not kept', async () => {
    await h.plugin.setDetectionOff([]);
    expect(h.plugin.perception()!.state).toBe('running');
    await h.plugin.setDetectionOff([dirs.cars]);
    expect(await settled()).toMatchObject({ state: 'idle', error: null });
    expect(await seen('cars')).toEqual([]);
    expect(await textRead('camera')).toEqual([]);
  }, 120_000);
});
