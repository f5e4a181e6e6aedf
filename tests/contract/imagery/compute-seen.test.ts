import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createImageryPlugin, type ImageryPlugin } from '../../../electron/local-service/imagery';
import { writeGeotaggedJpeg } from '../../../electron/local-service/imagery/photo-writer';
import { DATABASE_FILE } from '../../../electron/local-service/store';
import type { ComputeResponse } from '../../../shared/service/compute';
import { compute, computeForm, databaseFor, fileForm, refused, startService, stopService, BACKEND, type Running } from '../local-service/harness';

/**
 * Photos as a source of questions: what the detector saw in each photo is written straight into
 * the catalog's detection table, and every answer is checked against distances computed here,
 * by haversine, from the rows of that table and of the photos'.
 */

const DEPOT = { lat: 45.764, lon: 4.8357 };
const YARD = { lat: 45.75, lon: 4.85 };
const M_PER_DEG = 111_195;

/** Photos north of a site by a distance, and what the detector saw in each: [label, score][]. */
const PHOTOS = [
  { file: 'depot-50m.jpg', at: DEPOT, north: 50, seen: [['car', 0.91], ['person', 0.8]] },
  { file: 'depot-150m.jpg', at: DEPOT, north: 150, seen: [['car', 0.62], ['car', 0.95]] },
  { file: 'depot-260m.jpg', at: DEPOT, north: 260, seen: [['car', 0.7]] },
  { file: 'depot-80m.jpg', at: DEPOT, north: -80, seen: [['person', 0.77], ['bench', 0.55]] },
  { file: 'yard-120m.jpg', at: YARD, north: 120, seen: [['bench', 0.5], ['car', 0.41]] },
  { file: 'yard-900m.jpg', at: YARD, north: 900, seen: [['bench', 0.66]] },
  { file: 'paris.jpg', at: { lat: 48.8566, lon: 2.3522 }, north: 0, seen: [['car', 0.88], ['bench', 0.7]] },
  { file: 'nothing-seen.jpg', at: DEPOT, north: 10, seen: [] },
] as const;

const SITES = 'site_id,name,latitude,longitude\nA,Depot,45.764,4.8357\nB,Yard,45.75,4.85\n';

function haversineM(lon1: number, lat1: number, lon2: number, lat2: number): number {
  const rad = Math.PI / 180;
  const a = Math.sin(((lat2 - lat1) * rad) / 2) ** 2 + Math.cos(lat1 * rad) * Math.cos(lat2 * rad) * Math.sin(((lon2 - lon1) * rad) / 2) ** 2;
  return 2 * 6_371_008.8 * Math.asin(Math.sqrt(a));
}

interface RawPhoto {
  rowid: number;
  id: string;
  path: string;
  lon: number;
  lat: number;
}
interface RawDetection {
  photo_rowid: number;
  label: string;
  score: number;
}

let r: Running;
let plugin: ImageryPlugin;
let dir: string;
let photos: RawPhoto[] = [];
let detections: RawDetection[] = [];

/** Runs SQL on the catalog's database, whichever backend the service is on. */
async function sql<T>(text: string, params: unknown[] = []): Promise<T[]> {
  const url = await databaseFor(r.dataDir);
  if (url) {
    const pool = new pg.Pool({ connectionString: url, max: 1 });
    try {
      let k = 0;
      return (await pool.query(text.replace(/\?/g, () => `$${++k}`), params)).rows as T[];
    } finally {
      await pool.end();
    }
  }
  const db = new Database(join(r.dataDir, DATABASE_FILE));
  try {
    const st = db.prepare(text);
    return st.reader ? (st.all(...params) as T[]) : (st.run(...params), []);
  } finally {
    db.close();
  }
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fl-seen-photos-'));
  PHOTOS.forEach((p, i) =>
    writeGeotaggedJpeg(join(dir, p.file), {
      width: 64, height: 48, latitude: p.at.lat + p.north / M_PER_DEG, longitude: p.at.lon,
      direction: 90, takenAt: `2024:05:0${(i % 9) + 1} 10:00:00`, make: 'TestCam', seed: i + 1,
    }),
  );
  plugin = createImageryPlugin({ photoDirs: [dir], watch: false, perception: false });
  r = await startService({ options: { plugins: [plugin] } });
  await plugin.catalog()!.ready();
  photos = await sql<RawPhoto>('SELECT rowid, id, path, lon, lat FROM imagery_photo');
  expect(photos).toHaveLength(PHOTOS.length);
  for (const p of PHOTOS) {
    const row = photos.find((x) => x.path.endsWith(p.file))!;
    for (const [label, score] of p.seen)
      await sql('INSERT INTO imagery_detection (photo_rowid, model, label, score, x, y, w, h) VALUES (?, ?, ?, ?, ?, ?, ?, ?)', [row.rowid, 'test@1', label, score, 4, 6, 20, 10]);
  }
  detections = await sql<RawDetection>('SELECT photo_rowid, label, score FROM imagery_detection');
}, 120_000);
afterAll(async () => {
  await stopService(r);
  rmSync(dir, { recursive: true, force: true });
});

/** Photo ids showing `label` within `maxM` of any of the points, with the best score and the nearest distance, from the raw rows. */
function expected(label: string, points: { lat: number; lon: number }[], maxM: number) {
  const out = new Map<string, { score: number; d: number }>();
  for (const det of detections.filter((x) => x.label === label)) {
    const p = photos.find((x) => x.rowid === det.photo_rowid)!;
    const d = Math.min(...points.map((s) => haversineM(p.lon, p.lat, s.lon, s.lat)));
    if (d > maxM) continue;
    const prev = out.get(p.id);
    out.set(p.id, { score: Math.max(prev?.score ?? 0, det.score), d });
  }
  return out;
}

const answered = (res: ComputeResponse) =>
  new Map(res.results.features.map((f) => [String(f.properties.attributes['photo_id']), { score: f.properties.attributes['score'] as number, d: f.properties.distance_meters }]));

describe(`photos by what was seen in them, as a source of questions (${BACKEND})`, () => {
  it('"photos showing cars within 200 m of my sites": the photos whose detections hold a car that near, nearest first', async () => {
    const res = await computeForm(r, fileForm({ query: 'photos showing cars within 200 m of my sites', answer: 'true' }, [{ name: 'sites.csv', text: SITES }]));
    const want = expected('car', [DEPOT, YARD], 200);
    expect(want.size).toBe(3);
    const got = answered(res);
    expect([...got.keys()].sort()).toEqual([...want.keys()].sort());
    for (const [id, w] of want) {
      expect(got.get(id)!.score).toBe(w.score);
      expect(got.get(id)!.d).toBeCloseTo(w.d, -0.5);
    }
    const ds = res.results.features.map((f) => f.properties.distance_meters);
    expect(ds).toEqual([...ds].sort((a, b) => a - b));
    const f = res.results.features[0]!;
    expect(f.properties.attributes).toMatchObject({ feature_name: 'car', class: 'car', bearing: 90, box: [4, 6, 20, 10], model: 'test@1' });
    expect(f.properties.source_id).toBe(f.properties.attributes['photo_id']);
    expect(f.id).toBe(`layer:photos:${photos.find((p) => p.id === f.properties.source_id)!.rowid}`);
    expect(f.geometry).toEqual({ type: 'Point', coordinates: [expect.any(Number), expect.any(Number)] });
    expect(res.results.numberMatched).toBe(want.size);
  });

  it('"cars seen within 200 m of my sites" reads the same', async () => {
    const res = await computeForm(r, fileForm({ query: 'cars seen within 200 m of my sites' }, [{ name: 'sites.csv', text: SITES }]));
    expect([...answered(res).keys()].sort()).toEqual([...expected('car', [DEPOT, YARD], 200).keys()].sort());
  });

  it('"benches seen within 1 km of" a position, and "photos of people" (a word of the class, not its label)', async () => {
    const benches = await compute(r, { query: 'benches seen within 1 km of 45.75, 4.85' });
    const want = expected('bench', [{ lat: 45.75, lon: 4.85 }], 1000);
    expect(want.size).toBe(2);
    expect([...answered(benches).keys()].sort()).toEqual([...want.keys()].sort());
    expect(benches.results.features.every((f) => /^bench, photo of 2024-05-0\d$/.test(f.properties.name))).toBe(true);

    const people = await compute(r, { query: 'photos of people within 500 m of 45.764, 4.8357' });
    const wantPeople = expected('person', [DEPOT], 500);
    expect(wantPeople.size).toBe(2);
    expect([...answered(people).keys()].sort()).toEqual([...wantPeople.keys()].sort());
  });

  it('a count in a country: every photo showing a car in France', async () => {
    const res = await compute(r, { query: 'how many photos showing cars in France' });
    const want = new Set(detections.filter((d) => d.label === 'car').map((d) => d.photo_rowid));
    expect(res.results.numberMatched).toBe(want.size);
  });

  it('a follow-up narrows the photos it continues: read together with the question before', async () => {
    const first = await compute(r, { query: 'photos showing cars in France' });
    expect(expected('car', [DEPOT], 200).size).toBe(2);
    const next = await compute(r, { query: 'within 200 m of 45.764, 4.8357', search_id: first.id });
    expect([...answered(next).keys()].sort()).toEqual([...expected('car', [DEPOT], 200).keys()].sort());
    expect(next.warnings).toContainEqual(expect.objectContaining({ code: 'context', message: expect.stringContaining('photos showing cars in France within 200 m') }));
  });

  it('a class the detector does not have is refused, naming the words and the classes it sees', async () => {
    const p = await refused(r, { query: 'photos showing tanks within 1 km of 45.75, 4.85' });
    expect(p.unread).toEqual([expect.objectContaining({ words: 'tanks', step: 'subject' })]);
    expect(p.unread[0]!.why).toMatch(/no class for "tanks".*\bcar\b.*\bbench\b/);
    expect(p.holds?.columns).toEqual(expect.arrayContaining(['person', 'car', 'bench', 'fire hydrant']));

    const seen = await refused(r, { query: 'tanks seen near 45.75, 4.85' });
    expect(seen.unread.map((u) => u.words)).toEqual(['tanks']);
  });

  it('a condition on a column photos do not have is refused, naming what they have', async () => {
    const p = await refused(r, { query: 'photos showing cars open now' });
    expect(p.unread.map((u) => u.words)).toEqual(['open now']);
    expect(p.holds).toEqual({ subject: 'photos showing cars', columns: expect.arrayContaining(['class', 'score', 'photo_id', 'captured_at', 'bearing', 'box']) });
  });
});
