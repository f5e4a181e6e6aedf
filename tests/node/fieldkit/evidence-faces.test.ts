import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { strFromU8, unzipSync } from 'fflate';
import jpeg from 'jpeg-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cache } from '../../../electron/cache';
import { createEvidenceService } from '../../../electron/fieldkit/evidence/service';
import { createSigningKey } from '../../../electron/fieldkit/evidence/signing-key';
import { verifyBundle } from '../../../electron/fieldkit/evidence/verify';
import { createFaceBlur, type FaceBlurService } from '../../../electron/local-service/imagery/perception/face-blur';
import { createMemorySecretStore } from '../../../electron/keys/memory-store';
import { JIMP_IMAGES } from '../../support/labelled-photos';
import { streamResponse } from '../cache/fixtures';

type Box = [number, number, number, number];
/** The two figurines' faces in cops.jpg, labelled by hand (inside the face, away from its edge). */
const FACES: Box[] = [
  [215, 75, 50, 50],
  [335, 95, 60, 60],
];
/** Pavement at the bottom left: nothing to hide there. */
const PAVEMENT: Box = [20, 330, 100, 60];
/** In fillbytes.jpg (a car park), labelled by hand: the front left hatchback's number plate, and the "Camera 03" caption on the ground. */
const PLATE: Box = [216, 482, 34, 16];
const CAPTION: Box = [512, 515, 140, 22];

function luma(img: { width: number; data: Uint8Array }, [x0, y0, w, h]: Box): number[] {
  const out: number[] = [];
  for (let y = y0; y < y0 + h; y++)
    for (let x = x0; x < x0 + w; x++) {
      const p = (y * img.width + x) * 4;
      out.push(0.299 * img.data[p]! + 0.587 * img.data[p + 1]! + 0.114 * img.data[p + 2]!);
    }
  return out;
}
const variance = (v: number[]) => {
  const m = v.reduce((a, b) => a + b, 0) / v.length;
  return v.reduce((a, b) => a + (b - m) ** 2, 0) / v.length;
};

describe('faces are hidden in evidence bundles', () => {
  let dir: string;
  let cache: Cache;
  let queryId: number;
  /** A result with the figurines and the car park. */
  let carsQueryId: number;
  let blur: FaceBlurService;
  const photo = readFileSync(join(JIMP_IMAGES, 'cops.jpg'));
  const carPark = readFileSync(join(JIMP_IMAGES, 'fillbytes.jpg'));
  const service = () =>
    createEvidenceService({
      cache,
      signingKey: createSigningKey(createMemorySecretStore()),
      dataDir: dir,
      app: { name: 'Fieldlens', version: '1.0.0' },
      clock: () => new Date('2026-05-01T12:00:00Z'),
      faceBlur: blur,
    });

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'fl-evidence-faces-'));
    cache = Cache.open(join(dir, 'cache.db'));
    const fx = streamResponse(1, 3);
    queryId = cache.storeStream({ profileId: 'local', request: { query: 'people' }, startedAt: 1, finishedAt: 2 }, fx.body, Buffer.from(fx.raw));
    const url = fx.body.data.geojson.features[0]!.properties.image_url!;
    cache.putMedia(url, 'image/jpeg', photo, 3);
    const two = streamResponse(2, 4);
    carsQueryId = cache.storeStream({ profileId: 'local', request: { query: 'cars' }, startedAt: 4, finishedAt: 5 }, two.body, Buffer.from(two.raw));
    cache.putMedia(two.body.data.geojson.features[1]!.properties.image_url!, 'image/jpeg', carPark, 6);
    blur = createFaceBlur(join(process.cwd(), 'resources/models'));
  });
  afterAll(async () => {
    await blur.close();
    cache.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('by default: variance inside each face box falls, the rest of the image stays, the manifest says so, the cache keeps the original', async () => {
    const made = await service().create(queryId);
    const entries = unzipSync(readFileSync(made.path));
    const out = jpeg.decode(entries['media/001.jpg']!, { useTArray: true });
    const orig = jpeg.decode(photo, { useTArray: true });
    expect([out.width, out.height]).toEqual([orig.width, orig.height]);
    for (const f of FACES) expect(variance(luma(out, f))).toBeLessThan(variance(luma(orig, f)) / 3);
    const a = luma(out, PAVEMENT);
    const b = luma(orig, PAVEMENT);
    expect(a.reduce((s, v, i) => s + Math.abs(v - b[i]!), 0) / a.length).toBeLessThan(4);

    const manifest = JSON.parse(strFromU8(entries['manifest.json']!));
    expect(manifest.privacy).toMatchObject({ facesBlurred: true, detector: 'blazeface-back@human-models-3.0.4', checked: ['media/001.jpg'], notChecked: [] });
    expect(manifest.privacy.faces).toBeGreaterThanOrEqual(2);
    expect(made.privacy).toMatchObject({ facesBlurred: true });
    // The signed hashes are of the blurred bytes: the bundle checks out.
    expect((await service().verify({ path: made.path })).ok).toBe(true);
    expect(verifyBundle(readFileSync(made.path)).ok).toBe(true);
    expect(Buffer.from(cache.getMedia(cache.mediaUrlsOf([queryId])[0]!.url)!.bytes).equals(photo)).toBe(true);
  }, 60_000);

  /** The car park's image in a bundle, decoded. */
  const carParkIn = (entries: Record<string, Uint8Array>) => {
    const images = Object.keys(entries)
      .filter((k) => k.startsWith('media/'))
      .map((k) => jpeg.decode(entries[k]!, { useTArray: true }));
    return images.find((i) => i.width === 704 && i.height === 576)!;
  };
  const meanDiff = (a: number[], b: number[]) => a.reduce((s, v, i) => s + Math.abs(v - b[i]!), 0) / a.length;

  it('vehicles asked for: the number plate is no longer readable, the caption beside is kept, the manifest says so', async () => {
    const made = await service().create(carsQueryId, { blurVehicles: true });
    const entries = unzipSync(readFileSync(made.path));
    const out = carParkIn(entries);
    const orig = jpeg.decode(carPark, { useTArray: true });
    expect(variance(luma(out, PLATE))).toBeLessThan(variance(luma(orig, PLATE)) / 3);
    expect(meanDiff(luma(out, CAPTION), luma(orig, CAPTION))).toBeLessThan(4);
    const manifest = JSON.parse(strFromU8(entries['manifest.json']!));
    expect(manifest.privacy).toMatchObject({ facesBlurred: true, vehiclesBlurred: true, vehicleDetector: 'nanodet-coco@human-models-3.0.4', notChecked: [] });
    // Six cars are labelled by hand in the car park (tests/support/labelled-photos.ts); the detector finds most.
    expect(manifest.privacy.vehicles).toBeGreaterThanOrEqual(4);
    expect(manifest.privacy.note).toMatch(/number plates/i);
    // Per image: the car park's plates are counted against it, and the counts add up.
    const perImage = manifest.privacy.images as { name: string; faces: number; plates: number }[];
    expect(perImage.map((i) => i.name).sort()).toEqual([...manifest.privacy.checked].sort());
    expect(perImage.reduce((n, i) => n + i.plates, 0)).toBe(manifest.privacy.vehicles);
    expect(perImage.reduce((n, i) => n + i.faces, 0)).toBe(manifest.privacy.faces);
    expect(Math.max(...perImage.map((i) => i.plates))).toBeGreaterThanOrEqual(4);
    expect(made.privacy).toMatchObject({ vehiclesBlurred: true, vehicles: manifest.privacy.vehicles });
    expect((await service().verify({ path: made.path })).ok).toBe(true);
  }, 60_000);

  it('vehicles not asked for (the default): the plate stays as it was', async () => {
    const made = await service().create(carsQueryId);
    const entries = unzipSync(readFileSync(made.path));
    const out = carParkIn(entries);
    const orig = jpeg.decode(carPark, { useTArray: true });
    expect(meanDiff(luma(out, PLATE), luma(orig, PLATE))).toBeLessThan(4);
    const manifest = JSON.parse(strFromU8(entries['manifest.json']!));
    expect(manifest.privacy).toMatchObject({ facesBlurred: true, vehiclesBlurred: false, vehicleDetector: null, vehicles: 0 });
    expect(manifest.privacy.note).not.toMatch(/number plates/i);
  }, 60_000);

  it('turned off for one bundle: images go as cached, and the manifest says faces were not hidden', async () => {
    const made = await service().create(queryId, { blurFaces: false });
    const entries = unzipSync(readFileSync(made.path));
    expect(Buffer.from(entries['media/001.jpg']!).equals(photo)).toBe(true);
    const manifest = JSON.parse(strFromU8(entries['manifest.json']!));
    expect(manifest.privacy).toMatchObject({ facesBlurred: false, faces: 0, notChecked: ['media/001.jpg'] });
    expect(manifest.privacy.note).toMatch(/turned off/);
  }, 60_000);
});
