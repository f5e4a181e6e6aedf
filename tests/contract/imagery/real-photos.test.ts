import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tagJpeg } from '../../../electron/local-service/imagery/photo-writer';
import { missingRealPhotos, REAL_PHOTOS, realPhotoJpeg, type RealPhoto } from '../../support/real-photos';
import { BACKEND, startHarness, type Harness } from './harness';

interface Obs {
  properties: { description: string; match: string };
}
interface StreamBody {
  data: { geojson: { features: Obs[] }; perception?: { classes: { label: string }[]; unseen: string[]; message: string | null } };
}
interface SearchBody {
  data: { description: string; text_seen?: string[] }[];
}

/** The classes whose figures must reach 0.85, and any other class shown in at least 3 photos. */
const REQUIRED = ['person', 'car', 'bicycle'];
const MIN = 0.85;

/** Each labelled photo geotagged in Lyon, its description its key ("rp07"), no keywords. */
function writeFolder(): { dir: string; byKey: Map<string, RealPhoto> } {
  const dir = mkdtempSync(join(tmpdir(), 'fl-real-photos-'));
  const byKey = new Map<string, RealPhoto>();
  REAL_PHOTOS.photos.forEach((p, i) => {
    const key = `rp${String(i).padStart(2, '0')}`;
    const { bytes, width, height } = realPhotoJpeg(p);
    writeFileSync(join(dir, `${key}.jpg`), tagJpeg(bytes, { width, height, latitude: 45.76, longitude: 4.84, description: key, takenAt: '2024:05:01 10:00:00', make: 'TestCam' }));
    byKey.set(key, p);
  });
  return { dir, byKey };
}

describe(`real photos: per-class precision and recall of stream answers (${BACKEND})`, () => {
  let dir: string;
  let byKey: Map<string, RealPhoto>;
  let h: Harness;
  beforeAll(async () => {
    const missing = missingRealPhotos();
    if (missing.length) throw new Error(`the labelled photos need ${missing.join(', ')}: run scripts/setup.sh test`);
    ({ dir, byKey } = writeFolder());
    h = await startHarness({ photoDirs: [dir], perception: { workers: 1 } });
    const t0 = Date.now();
    for (;;) {
      const p = h.plugin.perception()!;
      if (p.state === 'idle' && p.done === byKey.size) break;
      if (Date.now() - t0 > 240_000) throw new Error(`detectors did not finish: ${JSON.stringify(p)}`);
      await new Promise((ok) => setTimeout(ok, 200));
    }
  }, 300_000);
  afterAll(async () => {
    await h?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const streamBody = async (body: object) => {
    const r = await h.stream({ limit: 50, ...body });
    expect(r.status).toBe(200);
    return r.json as StreamBody;
  };
  const stream = async (query: string) => (await streamBody({ query })).data.geojson.features;
  const search = async (query: string) => {
    const r = await h.searchReq({ query, limit: 100 });
    expect(r.status).toBe(200);
    return (r.json as SearchBody).data.map((d) => d.description).sort();
  };
  /** Keys of the photos whose labelled sign text holds the phrase (case and spaces ignored). */
  const signsWith = (phrase: string) => {
    const squeeze = (t: string) => t.toLowerCase().replace(/[^a-z0-9]+/g, '');
    return [...byKey].filter(([, p]) => (p.text ?? []).some((t) => squeeze(t).includes(squeeze(phrase)))).map(([k]) => k).sort();
  };

  it('finds person, car and every class shown in 3 photos with precision and recall >= 0.85', async () => {
    const rows: { label: string; photos: number; tp: number; fp: number; fn: number; precision: number | null; recall: number | null }[] = [];
    for (const label of REAL_PHOTOS.evaluated) {
      const listed = new Set((await stream(label)).filter((f) => f.properties.match === 'seen').map((f) => f.properties.description));
      let tp = 0, fp = 0, fn = 0;
      for (const [key, p] of byKey) {
        // A class shown only in part or a few pixels tall counts neither way.
        if (p.maybe?.includes(label)) continue;
        const has = p.classes.includes(label);
        if (listed.has(key) && has) tp++;
        else if (listed.has(key)) fp++;
        else if (has) fn++;
      }
      const photos = [...byKey.values()].filter((p) => p.classes.includes(label)).length;
      rows.push({ label, photos, tp, fp, fn, precision: tp + fp ? tp / (tp + fp) : null, recall: photos ? tp / photos : null });
    }
    const f = (v: number | null) => (v === null ? 'n/a' : v.toFixed(2));
    console.log(['| class | photos | found | false | missed | precision | recall |', '|---|---|---|---|---|---|---|',
      ...rows.map((r) => `| ${r.label} | ${r.photos} | ${r.tp} | ${r.fp} | ${r.fn} | ${f(r.precision)} | ${f(r.recall)} |`)].join('\n'));
    const checked = rows.filter((r) => r.photos >= 3 || (REQUIRED.includes(r.label) && r.photos > 0));
    expect(checked.map((r) => r.label)).toEqual(expect.arrayContaining(['person', 'car']));
    for (const r of checked) {
      expect({ label: r.label, precision: r.precision! >= MIN, recall: r.recall! >= MIN }).toEqual({ label: r.label, precision: true, recall: true });
    }
  });

  it('an unseen class with a region or a position is refused, naming it and the classes known', async () => {
    const lyon = { latitude: 45.76, longitude: 4.84 };
    for (const scope of [{ region_id: '250' }, { position: { points: [lyon] } }, {}]) {
      const body = await streamBody({ query: 'wind turbines', ...scope });
      expect(body.data.geojson.features).toEqual([]);
      expect(body.data.perception!.unseen).toEqual(['wind', 'turbines']);
      expect(body.data.perception!.message).toMatch(/no class for any of "wind", "turbines".*nothing is listed.*classes it knows: person, bicycle, car/);
    }
    // A scope alone still lists its photos.
    expect((await streamBody({ query: 'photos', region_id: '250' })).data.geojson.features).toHaveLength(byKey.size);
  });

  it('"car parks" is not the class car: the sign saying it is found by its text', async () => {
    const body = await streamBody({ query: 'car parks' });
    expect(body.data.perception!.classes).toEqual([]);
    expect(body.data.geojson.features.map((f) => f.properties.match)).not.toContain('seen');
    expect(body.data.geojson.features.map((f) => f.properties.description).sort()).toEqual(signsWith('car parks'));
  });

  it('text on signs is found whatever its case and spacing, a phrase as a phrase', async () => {
    // Read glued ("NOPARKING") or not, both signs saying parking are found, and only they.
    expect(signsWith('parking')).toHaveLength(2);
    expect(await search('parking')).toEqual(signsWith('parking'));
    expect(await search('PARKING')).toEqual(signsWith('parking'));
    // "Sports Centre" is the direction sign, not the copy centre.
    expect(signsWith('sports centre')).toHaveLength(1);
    expect(await search('Sports Centre')).toEqual(signsWith('sports centre'));
    expect(await search('sportscentre')).toEqual(signsWith('sports centre'));
  });

  it('/search finds what the detector saw: "cars" lists the photos stream lists as showing cars', async () => {
    const seen = (await stream('cars')).filter((f) => f.properties.match === 'seen').map((f) => f.properties.description).sort();
    expect(seen.length).toBeGreaterThanOrEqual(4);
    expect(await search('cars')).toEqual(seen);
  });
});
