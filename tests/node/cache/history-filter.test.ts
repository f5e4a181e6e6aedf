import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cache, type ListFilter } from '../../../electron/cache';
import type { ComputeResponse } from '../../../shared/service/compute';
import { rng } from './fixtures';

// History filters against a brute-force selection written here: every entry's features, words and
// time are kept by the test, and each filter is answered by looking at all of them.

type Pos = [number, number];
type Box = [number, number, number, number];
interface Entry {
  id: number;
  startedAt: number;
  /** Words of the entry's own text, and of each feature's name. */
  queryWords: Set<string>;
  featureWords: Set<string>[];
  /** Box of each feature with a geometry (features without one are stored too). */
  boxes: Box[];
}

const WORDS = ['bakery', 'ferry', 'quarry', 'chapel', 'market', 'tunnel', 'harbour', 'mill', 'tower', 'bridge', 'school', 'depot'];
const T0 = Date.UTC(2026, 0, 1);
const HOUR = 3_600_000;

/** Even-odd ray casting over a closed or open ring. */
function inside([x, y]: Pos, ring: Pos[]): boolean {
  let odd = false;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    const [xi, yi] = ring[i]!;
    const [xj, yj] = ring[j]!;
    if (yi > y !== yj > y && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) odd = !odd;
  }
  return odd;
}

const meets = (a: Box, b: Box) => a[2] >= b[0] && a[0] <= b[2] && a[3] >= b[1] && a[1] <= b[3];

function boxOf(coords: Pos[]): Box {
  const xs = coords.map((c) => c[0]);
  const ys = coords.map((c) => c[1]);
  return [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)];
}

/** A star-shaped ring around (cx, cy): concave, with radii between r/3 and r. */
function star(r: () => number, cx: number, cy: number, radius: number): Pos[] {
  const n = 5 + Math.floor(r() * 8);
  return Array.from({ length: n }, (_, i) => {
    const a = (i / n) * 2 * Math.PI;
    const d = radius * (i % 2 ? 1 / 3 + r() * 0.3 : 0.7 + r() * 0.3);
    return [+(cx + d * Math.cos(a)).toFixed(4), +(cy + d * Math.sin(a)).toFixed(4)] as Pos;
  });
}

let dir: string;
let cache: Cache;
const entries: Entry[] = [];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'fl-history-filter-'));
  cache = Cache.open(join(dir, 'cache.db'));
  const r = rng(2024);
  cache.bulk(() => {
    for (let e = 0; e < 3000; e++) {
      // Clustered entries around a few towns, some spread over a continent, a few with no geometry.
      const spread = r() < 0.1 ? 30 : 0.2 + r() * 2;
      const town = Math.floor(r() * 6);
      const cx = -5 + town * 6 + (r() - 0.5) * 4;
      const cy = 40 + (town % 3) * 5 + (r() - 0.5) * 4;
      const n = r() < 0.03 ? 0 : 1 + Math.floor(r() ** 2 * 150);
      const queryWord = WORDS[Math.floor(r() * WORDS.length)]!;
      const queryWords = new Set([queryWord, 'near', `town${town}`]);
      const featureWords: Set<string>[] = [];
      const boxes: Box[] = [];
      const features = Array.from({ length: n }, (_, i) => {
        const nameWord = WORDS[Math.floor(r() * WORDS.length)]!;
        const x = +(cx + (r() - 0.5) * spread).toFixed(5);
        const y = +(cy + (r() - 0.5) * spread).toFixed(5);
        const kind = r();
        let geometry: unknown;
        if (kind < 0.04) geometry = null;
        else if (kind < 0.12) {
          const line: Pos[] = [[x, y], [+(x + r() * 0.3).toFixed(5), +(y + (r() - 0.5) * 0.3).toFixed(5)]];
          geometry = { type: 'LineString', coordinates: line };
          boxes.push(boxOf(line));
        } else {
          geometry = { type: 'Point', coordinates: [x, y] };
          boxes.push([x, y, x, y]);
        }
        const name = r() < 0.5 ? `${nameWord} ${i}` : `place ${i}`;
        featureWords.push(new Set(name.split(' ')));
        return {
          type: 'Feature',
          id: `n/${e}-${i}`,
          geometry,
          properties: { name, address: null, source: { name: 't', url: null }, attributes: {} },
        };
      });
      const query = `${queryWord} near town${town}`;
      const body = {
        id: randomUUID(),
        query,
        answer: { status: 'complete', content: null, error: null },
        results: { type: 'FeatureCollection', numberMatched: n, numberReturned: n, features },
        warnings: [],
        usage: { meters: 0 },
      } as unknown as ComputeResponse;
      // Several entries share a start time, so ties are ordered by id.
      const startedAt = T0 + Math.floor(r() * 2000) * HOUR;
      const id = cache.storeCompute({ profileId: 'p', request: { query }, startedAt, finishedAt: startedAt + 10 }, body, JSON.stringify(body));
      entries.push({ id, startedAt, queryWords, featureWords, boxes });
    }
  });
}, 120_000);
afterAll(() => {
  cache.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Ask {
  word?: string;
  bbox?: Box;
  polygon?: Pos[];
  from?: number;
  to?: number;
}

/** Every entry that matches, newest first (ties: higher id first). */
function bruteForce(a: Ask): number[] {
  let area: Box | null = a.bbox ?? null;
  if (a.polygon) {
    const pb = boxOf(a.polygon);
    area = area ? [Math.max(area[0], pb[0]), Math.max(area[1], pb[1]), Math.min(area[2], pb[2]), Math.min(area[3], pb[3])] : pb;
  }
  return entries
    .filter((e) => {
      if (a.from !== undefined && e.startedAt < a.from) return false;
      if (a.to !== undefined && e.startedAt > a.to) return false;
      // Every word in the entry's text, or every word in one feature's name.
      const terms = a.word?.split(' ') ?? [];
      if (terms.length && !terms.every((t) => e.queryWords.has(t)) && !e.featureWords.some((f) => terms.every((t) => f.has(t)))) return false;
      if (area)
        return e.boxes.some((b) => meets(b, area) && (!a.polygon || inside([(b[0] + b[2]) / 2, (b[1] + b[3]) / 2], a.polygon)));
      return true;
    })
    .sort((x, y) => y.startedAt - x.startedAt || y.id - x.id)
    .map((e) => e.id);
}

function ask(r: () => number, i: number): Ask {
  const a: Ask = {};
  const cx = -5 + Math.floor(r() * 6) * 6 + (r() - 0.5) * 6;
  const cy = 40 + Math.floor(r() * 3) * 5 + (r() - 0.5) * 6;
  const word = () => WORDS[Math.floor(r() * WORDS.length)]!;
  // One word; or two that meet in one feature's name ("mill 7"), in the entry's text ("near town2"),
  // or only across the entry ("mill ferry": one in its text, one in a feature), which must not match.
  if (i % 2) {
    const k = r();
    a.word =
      k < 0.55 ? word() : k < 0.65 ? `town${Math.floor(r() * 6)}` : k < 0.8 ? `${word()} ${Math.floor(r() * 20)}` : k < 0.9 ? `near town${Math.floor(r() * 6)}` : `${word()} ${word()}`;
  }
  if (i % 3 === 1) {
    const w = r() < 0.2 ? 60 : 0.2 + r() * 4;
    a.bbox = [cx - w / 2, cy - w / 3, cx + w / 2, cy + w / 3];
  }
  if (i % 4 >= 2) a.polygon = star(r, cx + (r() - 0.5), cy + (r() - 0.5), 0.3 + r() * 3);
  if (i % 5 >= 3) {
    a.from = T0 + Math.floor(r() * 1500) * HOUR;
    a.to = a.from + Math.floor(r() * 800) * HOUR;
  }
  return a;
}

const filterOf = (a: Ask): ListFilter => ({
  ...(a.word ? { text: a.word } : {}),
  ...(a.bbox ? { bbox: a.bbox } : {}),
  ...(a.polygon ? { polygon: a.polygon } : {}),
  ...(a.from !== undefined ? { from: a.from, to: a.to } : {}),
});

describe('history filters against a brute-force selection', () => {
  it('answers words, extent, drawn area and dates, alone and together, in order', () => {
    const r = rng(99);
    let nonEmpty = 0;
    let areaAndWords = 0;
    let twoWords = 0;
    for (let i = 0; i < 160; i++) {
      const a = ask(r, i);
      const want = bruteForce(a);
      const got = cache.list({ ...filterOf(a), limit: 200 });
      expect(got.items.map((q) => q.id), JSON.stringify(a)).toEqual(want.slice(0, 200));
      expect(got.hasMore).toBe(want.length > 200);
      if (want.length) nonEmpty++;
      if (want.length && a.word && (a.bbox || a.polygon)) areaAndWords++;
      if (want.length && a.word?.includes(' ')) twoWords++;
    }
    // The asks are not all empty, nor all trivially full.
    expect(nonEmpty).toBeGreaterThan(110);
    expect(areaAndWords).toBeGreaterThan(15);
    expect(twoWords).toBeGreaterThan(8);
  });

  it('pages through a filtered list without losing or repeating an entry', () => {
    const r = rng(5);
    // Asks with an extent or area, some with words and dates (see ask()).
    for (const i of [2, 4, 7, 10, 11, 13, 2, 7, 11]) {
      const a = ask(r, i);
      const want = bruteForce(a);
      const seen: number[] = [];
      for (let offset = 0; ; offset += 37) {
        const page = cache.list({ ...filterOf(a), limit: 37, offset });
        seen.push(...page.items.map((q) => q.id));
        expect(page.hasMore).toBe(want.length > offset + 37);
        if (!page.hasMore) break;
      }
      expect(seen).toEqual(want);
    }
  });

  it('answers the same on a cache written before the area index existed', () => {
    const file = join(dir, 'old.db');
    const old = Cache.open(file);
    const r = rng(3);
    const kept: { id: number; points: Pos[] }[] = [];
    for (let e = 0; e < 40; e++) {
      const x = 2 + r() * 4;
      const y = 45 + r() * 4;
      const points = Array.from({ length: 100 }, () => [x + r() * 0.5, y + r() * 0.5] as Pos);
      const body = {
        id: randomUUID(),
        query: 'ferry',
        answer: { status: 'complete', content: null, error: null },
        results: {
          type: 'FeatureCollection',
          numberMatched: 100,
          numberReturned: 100,
          features: points.map((p, i) => ({
            type: 'Feature',
            id: `f${i}`,
            geometry: { type: 'Point', coordinates: p },
            properties: { name: `${e % 2 ? 'quay' : 'pier'} ${i}`, address: null, source: { name: 't', url: null }, attributes: {} },
          })),
        },
        warnings: [],
        usage: { meters: 0 },
      } as unknown as ComputeResponse;
      kept.push({ id: old.storeCompute({ profileId: 'p', request: {}, startedAt: T0 + e, finishedAt: T0 + e }, body, JSON.stringify(body)), points });
    }
    const area: Pos[] = [[3, 46], [5, 46], [4, 48.5]];
    const newest = (pred: (p: Pos) => boolean) => kept.filter((k) => k.points.some(pred)).map((k) => k.id).reverse();
    const inArea = newest((p) => inside(p, area));
    const inBox = newest(([x, y]) => x >= 2.5 && x <= 4 && y >= 45.5 && y <= 47);
    old.close();
    // Back to version 2: the tables the area index (and the later tile cache) added are gone.
    const db = new Database(file);
    db.exec('DROP TABLE queries_rtree; DROP TABLE feature_runs; DROP TABLE entry_words; DROP TABLE basemap_tiles; DROP TABLE words_pending; PRAGMA user_version = 2;');
    db.close();
    const reopened = Cache.open(file);
    try {
      expect(reopened.stats().schemaVersion).toBe(5);
      expect(inArea.length).toBeGreaterThan(3);
      expect(inArea.length).toBeLessThan(kept.length);
      expect(reopened.list({ polygon: area, limit: 500 }).items.map((q) => q.id)).toEqual(inArea);
      expect(reopened.list({ bbox: [2.5, 45.5, 4, 47], limit: 500 }).items.map((q) => q.id)).toEqual(inBox);
      // Words of the entries' own text and of their features' names, indexed from what was stored.
      expect(reopened.list({ text: 'ferry', limit: 500 }).items.map((q) => q.id)).toEqual(kept.map((k) => k.id).reverse());
      const quays = kept.filter((_, e) => e % 2).map((k) => k.id).reverse();
      expect(reopened.list({ text: 'quay', limit: 500 }).items.map((q) => q.id)).toEqual(quays);
      expect(reopened.list({ text: 'quay 7', limit: 500 }).items.map((q) => q.id)).toEqual(quays);
      expect(reopened.list({ text: 'quay pier', limit: 500 }).items).toEqual([]);
    } finally {
      reopened.close();
    }
  });

  it('forgets a deleted entry in the area index', () => {
    const a: Ask = { bbox: [-40, 20, 60, 70] };
    const first = bruteForce(a)[0]!;
    expect(cache.list({ ...filterOf(a), limit: 1 }).items[0]!.id).toBe(first);
    expect(cache.delete(first)).toBe(true);
    entries.splice(entries.findIndex((e) => e.id === first), 1);
    expect(cache.db.prepare('SELECT count(*) FROM queries_rtree WHERE id = ?').pluck().get(first)).toBe(0);
    expect(cache.db.prepare('SELECT count(*) FROM feature_runs WHERE id / 1048576 = ?').pluck().get(first)).toBe(0);
    expect(cache.list({ ...filterOf(a), limit: 3 }).items.map((q) => q.id)).toEqual(bruteForce(a).slice(0, 3));
  });
});
