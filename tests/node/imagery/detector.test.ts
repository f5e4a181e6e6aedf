import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readModels } from '../../../electron/local-service/imagery/perception/models';
import { createDetectorPool, type DetectorPool } from '../../../electron/local-service/imagery/perception/pool';
import { ClassVocabulary } from '../../../electron/local-service/imagery/perception/vocabulary';
import { iou, JIMP_IMAGES, LABELLED } from '../../support/labelled-photos';

describe('photo detector (NanoDet in a worker thread)', () => {
  let pool: DetectorPool;
  beforeAll(() => {
    pool = createDetectorPool({ models: readModels(), workers: 1 });
  });
  afterAll(() => pool.close());

  it('iou of boxes', () => {
    expect(iou([0, 0, 10, 10], [0, 0, 10, 10])).toBe(1);
    expect(iou([0, 0, 10, 10], [5, 0, 10, 10])).toBeCloseTo(50 / 150);
    expect(iou([0, 0, 10, 10], [20, 20, 5, 5])).toBe(0);
  });

  it('finds the hand-labelled cars and people (IoU >= 0.5), boxes in image pixels', async () => {
    const files = [...new Set(LABELLED.map((l) => l.file))];
    const seen = new Map(await Promise.all(files.map(async (f) => [f, await pool.detect(join(JIMP_IMAGES, f))] as const)));
    expect(seen.get('fillbytes.jpg')).toMatchObject({ width: 704, height: 576 });
    expect(seen.get('cops.jpg')).toMatchObject({ width: 640, height: 426 });
    const found = LABELLED.filter((l) => seen.get(l.file)!.objects.some((d) => d.label === l.label && iou(d.box, l.box) >= 0.5));
    const recall = found.length / LABELLED.length;
    console.log(`detector recall on ${LABELLED.length} labelled objects: ${recall.toFixed(3)}; missed: ${LABELLED.filter((l) => !found.includes(l)).map((l) => l.what).join(', ') || 'none'}`);
    expect(recall).toBeGreaterThanOrEqual(0.75);
    // Every image has one of its labelled objects found.
    for (const f of files) expect(found.some((l) => l.file === f)).toBe(true);
    for (const s of seen.values())
      for (const d of s.objects) {
        expect(d.box[0]).toBeGreaterThanOrEqual(0);
        expect(d.box[0] + d.box[2]).toBeLessThanOrEqual(s.width + 1);
        expect(d.score).toBeGreaterThanOrEqual(readModels().detector.minScore);
      }
  }, 60_000);

  it('reads the text burnt into the CCTV frame (PaddleOCR)', async () => {
    expect(pool.reads).toBe(true);
    const lines = await pool.read(join(JIMP_IMAGES, 'fillbytes.jpg'));
    const camera = lines.find((l) => l.text === 'Camera 03');
    expect(camera).toBeDefined();
    // Hand-measured: the caption sits in the bottom right, about x 510-655, y 515-540.
    expect(iou(camera!.box, [510, 515, 145, 25])).toBeGreaterThanOrEqual(0.5);
  }, 60_000);

  it('a file that is not a JPEG is an error, and the worker keeps serving', async () => {
    await expect(pool.detect(join(JIMP_IMAGES, 'dice.png'))).rejects.toThrow(/dice\.png/);
    expect((await pool.detect(join(JIMP_IMAGES, 'cops.jpg'))).width).toBe(640);
  }, 60_000);

  // Linux keeps a nice value per thread: /proc/self/task/<tid>/stat, its 19th field.
  it.runIf(process.platform === 'linux')('runs its workers below the priority of the thread that serves requests', async () => {
    const threads = () =>
      readdirSync('/proc/self/task').map((tid) => {
        const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
        return { tid: Number(tid), nice: Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]) };
      });
    const low = createDetectorPool({ models: readModels(), workers: 1, ocr: false, nice: 7 });
    try {
      expect(threads().filter((t) => t.nice === 7)).toEqual([]);
      expect((await low.detect(join(JIMP_IMAGES, 'cops.jpg'))).width).toBe(640);
      const after = threads();
      expect(after.filter((t) => t.nice === 7).length).toBeGreaterThanOrEqual(1);
      // The process's own thread keeps its priority.
      expect(after.find((t) => t.tid === process.pid)!.nice).toBeLessThan(7);
    } finally {
      await low.close();
    }
  }, 60_000);

  it('ends a worker left idle, and starts one again for the next photo', async () => {
    const brief = createDetectorPool({ models: readModels(), workers: 1, ocr: false, idleMs: 200 });
    try {
      expect(brief.running()).toBe(0);
      expect((await brief.detect(join(JIMP_IMAGES, 'cops.jpg'))).width).toBe(640);
      expect(brief.running()).toBe(1);
      const t0 = Date.now();
      while (brief.running() > 0 && Date.now() - t0 < 10_000) await new Promise((ok) => setTimeout(ok, 50));
      expect(brief.running()).toBe(0);
      expect((await brief.detect(join(JIMP_IMAGES, 'cops.jpg'))).width).toBe(640);
      expect(brief.running()).toBe(1);
    } finally {
      await brief.close();
    }
  }, 60_000);
});

describe('detector classes in query words', () => {
  const vocab = new ClassVocabulary(readModels().classes);
  const read = (q: string) =>
    vocab.read(q.split(' ').map((t) => ({ text: t, folded: t.toLowerCase() }))).classes.map((c) => c.label);

  it.each([
    ['hydrants', 'fire hydrant'],
    ['fire hydrants', 'fire hydrant'],
    ['cars', 'car'],
    ['people', 'person'],
    ['bikes', 'bicycle'],
    ['benches', 'bench'],
    ['stop signs', 'stop sign'],
    ['traffic lights', 'traffic light'],
    ['Buses', 'bus'],
  ])('"%s" is the class %s', (q, label) => {
    expect(read(q)).toEqual([label]);
  });

  it('words that are no class are left for the text match', () => {
    const r = vocab.read(['potholes', 'near', 'cars'].map((t) => ({ text: t, folded: t })));
    expect(r.classes).toEqual([{ label: 'car', said: 'cars' }]);
    expect(r.rest).toEqual([0, 1]);
  });

  it.each([
    ['car parks', []],
    ['bus stop', []],
    ['bicycle lanes', []],
    ['cars parked', ['car']],
    ['people walking', ['person']],
    ['car Lyon', ['car']],
    ['car 2024', ['car']],
    ['car bus', ['car', 'bus']],
    ['red car', ['car']],
  ])('"%s" names the classes %j (a singular class before another word qualifies it)', (q, labels) => {
    const words = q.split(' ').map((t) => ({ text: t, folded: t.toLowerCase() }));
    expect(vocab.read(words, (w) => w === 'lyon').classes.map((c) => c.label)).toEqual(labels);
  });
});
