import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { statSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import Database from 'better-sqlite3';
import { Cache, FEATURE_ID_SPAN, ftsExpression, migrate, type QueryMeta } from '../../../electron/cache';
import type { ComputeResponse } from '../../../shared/service/compute';
import { computeResponse, imageryResponse, streamResponse } from './fixtures';

let dir: string;
let cache: Cache;
const file = () => join(dir, 'cache.db');
const meta = (request: Record<string, unknown>, startedAt = 1_700_000_000_000, extra: Partial<QueryMeta> = {}): QueryMeta => ({
  profileId: 'local',
  request,
  startedAt,
  finishedAt: startedAt + 250,
  ...extra,
});

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'fieldlens-cache-'));
  cache = Cache.open(file());
});
afterEach(() => {
  cache.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('open and migrations', () => {
  it('opens in WAL mode at the latest schema version, and reopening applies nothing again', () => {
    expect(cache.db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(cache.db.pragma('synchronous', { simple: true })).toBe(1); // NORMAL
    expect(cache.db.pragma('page_size', { simple: true })).toBe(16384);
    expect(cache.stats().schemaVersion).toBe(5);
    cache.close();
    const db = new Database(file());
    expect(migrate(db)).toEqual({ from: 5, to: 5 });
    db.close();
    cache = Cache.open(file());
  });

  it('checkpoints the WAL when writes pause, not while storing', () => {
    vi.useFakeTimers();
    try {
      expect(cache.db.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
      const mainBefore = statSync(file()).size;
      for (let i = 0; i < 3; i++) {
        const fx = computeResponse(500, 60 + i);
        cache.storeCompute(meta({ query: 'q' }), fx.body, fx.raw);
      }
      expect(statSync(file() + '-wal').size).toBeGreaterThan(1_000_000);
      expect(statSync(file()).size).toBe(mainBefore);
      vi.advanceTimersByTime(1000);
      expect(statSync(file()).size).toBeGreaterThan(1_000_000);
    } finally {
      vi.useRealTimers();
    }
  });

  it('rolls back every pending migration when one fails', () => {
    const db = new Database(join(dir, 'm.db'));
    const list = [
      { version: 1, up: (d: Database.Database) => d.exec('CREATE TABLE a (x)') },
      { version: 2, up: (d: Database.Database) => d.exec('CREATE TABLE b (x); SELECT nonsense FROM nowhere') },
    ];
    expect(() => migrate(db, list)).toThrow();
    expect(db.pragma('user_version', { simple: true })).toBe(0);
    expect(db.prepare(`SELECT count(*) FROM sqlite_master WHERE name = 'a'`).pluck().get()).toBe(0);
    db.close();
  });
});

describe('compute responses', () => {
  it('keeps the raw body exactly as received, with request, answer, warnings and usage', () => {
    const fx = computeResponse(50, 3);
    // Unusual spacing and an unknown field must survive byte for byte.
    const raw = fx.raw.replace('{', '{ "extra_field": {"a": 1},  ');
    const id = cache.storeCompute(meta({ query: 'cafes in Paris', limit: 50 }), fx.body, raw);
    const rec = cache.get(id)!;
    expect(rec.raw).toBe(raw);
    expect(rec.request).toEqual({ query: 'cafes in Paris', limit: 50 });
    expect(rec).toMatchObject({
      kind: 'compute',
      outcome: 'ok',
      remoteId: fx.body.id,
      answerStatus: 'complete',
      answerContent: 'Found 50 places.',
      featureCount: 50,
      numberMatched: 50,
      numberReturned: 50,
      usageMeters: 0.5,
      durationMs: 250,
    });
    expect(rec.warnings).toEqual([]);
    expect(rec.usage).toEqual({ meters: 0.5 });
    expect(cache.get(id + 1)).toBeNull();
  });

  it('keeps a body received as bytes byte for byte', () => {
    const fx = computeResponse(5, 8);
    const bytes = Buffer.from(fx.raw.replace('"answer"', '  "answer"'));
    const id = cache.storeCompute(meta({ query: 'Gdańsk' }), fx.body, new Uint8Array(bytes));
    expect(cache.get(id)!.raw).toBe(bytes.toString('utf8'));
    const stored = cache.db.prepare('SELECT raw_response FROM queries WHERE id = ?').pluck().get(id) as Buffer;
    expect(Buffer.compare(stored, bytes)).toBe(0);
  });

  it('stores features in response order with their boxes and a query extent', () => {
    const fx = computeResponse(300, 4);
    const id = cache.storeCompute(meta({ query: 'q' }), fx.body, fx.raw);
    const feats = cache.features(id);
    expect(feats.map((f) => f.featureId)).toEqual(fx.body.results.features.map((f) => f.id));
    const first = fx.body.results.features[0]!;
    const [x, y] = (first.geometry as { coordinates: number[] }).coordinates;
    expect(feats[0]).toMatchObject({ name: first.properties.name, address: first.properties.address, bbox: [x, y, x, y] });
    const xs = feats.map((f) => f.bbox![0]);
    const ys = feats.map((f) => f.bbox![1]);
    expect(cache.get(id)!.bbox).toEqual([Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)]);
  });

  it('indexes non-point geometry by its box', () => {
    const fx = computeResponse(2, 5);
    fx.body.results.features[1]!.geometry = {
      type: 'Polygon',
      coordinates: [[[10, 50], [12, 50], [12, 52], [10, 52], [10, 50]]],
    };
    const id = cache.storeCompute(meta({ query: 'q' }), fx.body, JSON.stringify(fx.body));
    const hit = cache.searchFeatures({ bbox: [11.5, 51.5, 11.6, 51.6] });
    expect(hit.map((h) => [h.queryId, h.featureId])).toEqual([[id, fx.body.results.features[1]!.id]]);
    expect(hit[0]!.bbox).toEqual([10, 50, 12, 52]);
  });

  it('records failed answers and request errors', () => {
    const fx = computeResponse(3, 6);
    const failed: ComputeResponse = { ...fx.body, answer: { status: 'failed', content: null, error: { reason: 'llm' } } };
    const a = cache.storeCompute(meta({ query: 'q', search_id: fx.body.id }), failed, JSON.stringify(failed));
    expect(cache.get(a)).toMatchObject({ answerStatus: 'failed', answerError: { reason: 'llm' }, featureCount: 3, searchId: fx.body.id });
    const b = cache.storeError('stream', meta({ query: 'bridges' }), { code: 'HTTP', status: 500, message: 'boom' }, 'oops');
    expect(cache.get(b)).toMatchObject({
      kind: 'stream',
      outcome: 'error',
      httpStatus: 500,
      error: { code: 'HTTP', status: 500, message: 'boom' },
      raw: 'oops',
      featureCount: 0,
    });
  });
});

describe('stream and imagery responses', () => {
  it('stores observations and imagery records with their own columns', () => {
    const s = streamResponse(10, 2);
    const sid = cache.storeStream(meta({ query: 'crosswalks', limit: 10 }), s.body, s.raw);
    expect(cache.get(sid)).toMatchObject({ kind: 'stream', remoteId: 'res-2', featureCount: 10, serverDurationMs: 120 });
    const obs = cache.db.prepare('SELECT * FROM observations WHERE id BETWEEN ? AND ?').all(sid * FEATURE_ID_SPAN, (sid + 1) * FEATURE_ID_SPAN - 1);
    expect(obs).toHaveLength(10);
    expect(obs[0]).toMatchObject({ year: '2024', source: 'dashcam', is_video: 0, interactive: 0 });
    expect(cache.searchFeatures({ text: 'crosswalk' })).toHaveLength(5);

    const im = imageryResponse(4, 2, 3);
    const iid = cache.storeImagery(meta({ query: 'avenida', page: 2 }), im.body, im.raw);
    expect(cache.get(iid)).toMatchObject({ kind: 'imagery', page: 2, pageTotal: 3, region: 'Lisboa', featureCount: 4 });
    const imgs = cache.db.prepare('SELECT image, compass FROM imagery_records ORDER BY id').all();
    expect(imgs).toHaveLength(4);
    expect(imgs[0]).toMatchObject({ compass: 'North-East (NE)' });
  });

  it('stores an isSuccess:false body as a failed query without items', () => {
    const body = { isSuccess: false as const, message: 'region unknown' };
    const id = cache.storeStream(meta({ query: 'x' }), body, JSON.stringify(body));
    expect(cache.get(id)).toMatchObject({ outcome: 'failed', featureCount: 0, raw: JSON.stringify(body) });
  });
});

describe('history list', () => {
  let ids: { a: number; b: number; s: number; i: number };
  beforeEach(() => {
    const a = computeResponse(20, 11, { query: 'bakeries' });
    const b = computeResponse(20, 12, { query: 'schools' });
    const s = streamResponse(6, 3);
    const i = imageryResponse(3);
    ids = {
      a: cache.storeCompute(meta({ query: 'bakeries in Gdańsk' }, 1000), a.body, a.raw),
      b: cache.storeCompute(meta({ query: 'schools' }, 2000, { profileId: 'remote' }), b.body, b.raw),
      s: cache.storeStream(meta({ query: 'crosswalks' }, 3000), s.body, s.raw),
      i: cache.storeImagery(meta({ query: 'street views' }, 4000), i.body, i.raw),
    };
  });

  it('lists newest first with paging', () => {
    const page1 = cache.list({ limit: 3 });
    expect(page1.items.map((q) => q.id)).toEqual([ids.i, ids.s, ids.b]);
    expect(page1.hasMore).toBe(true);
    const page2 = cache.list({ limit: 3, offset: 3 });
    expect(page2.items.map((q) => q.id)).toEqual([ids.a]);
    expect(page2.hasMore).toBe(false);
  });

  it('filters by kind, profile and date range', () => {
    expect(cache.list({ kind: 'compute' }).items.map((q) => q.id)).toEqual([ids.b, ids.a]);
    expect(cache.list({ profileId: 'remote' }).items.map((q) => q.id)).toEqual([ids.b]);
    expect(cache.list({ from: 1500, to: 3000 }).items.map((q) => q.id)).toEqual([ids.s, ids.b]);
  });

  it('filters by words in the query text, feature names and addresses, ignoring case and accents', () => {
    expect(cache.list({ text: 'GDANSK baker*' }).items.map((q) => q.id)).toEqual([ids.a]);
    // Stream feature_name and imagery addresses.
    expect(cache.list({ text: 'traffic light' }).items.map((q) => q.id)).toEqual([ids.s]);
    // Matches only on items stored after the first one of a response still find the query.
    expect(cache.list({ text: 'crosswalk' }).items.map((q) => q.id)).toEqual([ids.s]);
    expect(cache.list({ text: 'augusta' }).items.map((q) => q.id)).toEqual([ids.i]);
    expect(cache.list({ text: 'nothing-like-this' }).items).toEqual([]);
    // FTS syntax in user text is treated as words.
    expect(() => cache.list({ text: '"AND OR (' })).not.toThrow();
  });

  it('filters by area through feature positions', () => {
    const box = cache.get(ids.i)!.bbox!;
    expect(cache.list({ bbox: [box[0] - 0.01, box[1] - 0.01, box[2] + 0.01, box[3] + 0.01] }).items.map((q) => q.id)).toEqual([ids.i]);
    expect(cache.list({ bbox: [170, -80, 171, -79] }).items).toEqual([]);
  });

  it('finds features by words and by box across queries', () => {
    const hits = cache.searchFeatures({ text: 'rivoli' });
    expect(hits).toHaveLength(6);
    expect(new Set(hits.map((h) => h.queryId))).toEqual(new Set([ids.s]));
    const f = cache.features(ids.a)[7]!;
    const [x, y] = f.bbox!;
    const inBox = cache.searchFeatures({ bbox: [x - 1e-7, y - 1e-7, x + 1e-7, y + 1e-7] });
    expect(inBox.map((h) => h.rowId)).toContain(f.rowId);
    for (const h of inBox) expect(h.bbox![0]).toBeCloseTo(x, 6);
  });
});

describe('thread, diff, delete', () => {
  it('builds the continuation tree from search_id links', () => {
    const root = computeResponse(2, 21);
    const c1 = computeResponse(2, 22);
    const c2 = computeResponse(2, 23);
    const c11 = computeResponse(2, 24);
    const r = cache.storeCompute(meta({ query: 'root' }, 1), root.body, root.raw);
    const a = cache.storeCompute(meta({ query: 'c1', search_id: root.body.id }, 2), c1.body, c1.raw);
    const b = cache.storeCompute(meta({ query: 'c2', search_id: root.body.id }, 3), c2.body, c2.raw);
    const d = cache.storeCompute(meta({ query: 'c11', search_id: c1.body.id }, 4), c11.body, c11.raw);
    const other = computeResponse(2, 25);
    cache.storeCompute(meta({ query: 'unrelated' }, 5), other.body, other.raw);
    const tree = cache.thread(d);
    expect(tree.map((n) => [n.query.id, n.parentId, n.depth])).toEqual([
      [r, null, 0],
      [a, r, 1],
      [b, r, 1],
      [d, a, 2],
    ]);
    expect(cache.thread(9999)).toEqual([]);
  });

  it('names the saved searches its queries refer to: their own ids and the ones they continued', () => {
    const root = computeResponse(2, 26);
    const child = computeResponse(2, 27);
    cache.storeCompute(meta({ query: 'root' }, 1), root.body, root.raw);
    cache.storeCompute(meta({ query: 'child', search_id: root.body.id }, 2), child.body, child.raw);
    // A follow-up of a search no longer in the cache still names it.
    cache.storeError('compute', meta({ query: 'lost', search_id: 'b3c1d2e4-0000-4000-8000-000000000001' }, 3), { code: 'HTTP', message: 'x' });
    expect(cache.serviceSearchIds().sort()).toEqual([root.body.id, child.body.id, 'b3c1d2e4-0000-4000-8000-000000000001'].sort());
  });

  it('diffs two responses by feature id', () => {
    const ids = ['x1', 'x2', 'x3', 'x4'];
    const before = computeResponse(4, 31, { ids });
    const after = computeResponse(4, 31, { ids: ['x1', 'x2', 'x3', 'x5'] });
    after.body.results.features[1]!.properties.name = 'Renamed';
    const a = cache.storeCompute(meta({ query: 'q' }), before.body, before.raw);
    const b = cache.storeCompute(meta({ query: 'q' }, 2, { rerunOf: a }), after.body, JSON.stringify(after.body));
    expect(cache.diff(a, b)).toEqual({ added: ['x5'], removed: ['x4'], changed: ['x2'], unchanged: 2 });
    expect(cache.get(b)!.rerunOf).toBe(a);
  });

  it('deletes a query with its features, index entries and orphaned uploads', () => {
    const fx = computeResponse(100, 41, { query: 'pharmacies' });
    const content = new TextEncoder().encode('name,lat,lon\nA,1,2\n');
    const up = { field: 'files' as const, name: 'points.csv', contentType: 'text/csv', content };
    const a = cache.storeCompute(meta({ query: 'pharmacies' }, 1, { uploads: [up] }), fx.body, fx.raw);
    const keep = computeResponse(10, 42);
    const b = cache.storeCompute(meta({ query: 'kept' }, 2, { uploads: [up] }), keep.body, keep.raw);
    expect(cache.get(a)!.uploads).toEqual([
      { field: 'files', name: 'points.csv', size: content.byteLength, sha256: createHash('sha256').update(content).digest('hex') },
    ]);
    expect(cache.stats().uploads.count).toBe(1); // same bytes stored once
    expect(Buffer.from(cache.uploadsOf(a)[0]!.content).toString()).toBe('name,lat,lon\nA,1,2\n');

    const box = cache.get(a)!.bbox!;
    expect(cache.delete(a)).toBe(true);
    expect(cache.delete(a)).toBe(false);
    expect(cache.get(a)).toBeNull();
    expect(cache.features(a)).toEqual([]);
    expect(cache.list({ text: 'pharmacies' }).items).toEqual([]);
    expect(cache.searchFeatures({ bbox: box, limit: 1000 }).filter((h) => h.queryId === a)).toEqual([]);
    expect(cache.db.prepare('SELECT count(*) FROM features_rtree').pluck().get()).toBe(1); // b's one run
    expect(cache.stats().uploads.count).toBe(1);
    cache.delete(b);
    expect(cache.stats().uploads.count).toBe(0);
    cache.db.exec(`INSERT INTO features_fts (features_fts) VALUES ('integrity-check')`);
    expect(cache.db.prepare(`SELECT rtreecheck('features_rtree')`).pluck().get()).toBe('ok');
  });
});

describe('words indexed after storing', () => {
  const pending = () => cache.db.prepare('SELECT query_id FROM words_pending').pluck().all();
  const ftsCount = (table: string, word: string) => cache.db.prepare(`SELECT count(*) FROM ${table} WHERE ${table} MATCH ?`).pluck().get(word);
  const intact = () => {
    for (const t of ['features_fts', 'queries_fts']) cache.db.exec(`INSERT INTO ${t} (${t}) VALUES ('integrity-check')`);
  };

  it('leaves the words of a stored response waiting, and indexes them when writes pause', () => {
    vi.useFakeTimers();
    try {
      const fx = computeResponse(50, 81);
      const id = cache.storeCompute(meta({ query: 'harbour cranes' }), fx.body, fx.raw);
      expect(pending()).toEqual([id]);
      expect(ftsCount('queries_fts', 'harbour')).toBe(0);
      vi.advanceTimersByTime(1000);
      expect(pending()).toEqual([]);
      expect(ftsCount('queries_fts', 'harbour')).toBe(1);
      expect(ftsCount('entry_words', 'cranes')).toBe(1);
      // The feature index finds every feature holding a word of the first name, counted by hand.
      const tokens = (t: unknown) => (typeof t === 'string' ? t.toLowerCase().split(/[^\p{L}\p{N}]+/u) : []);
      const word = tokens(fx.body.results.features[0]!.properties.name)[0]!;
      const holding = fx.body.results.features.filter((f) => [...tokens(f.properties.name), ...tokens(f.properties['address'])].includes(word));
      expect(holding.length).toBeGreaterThan(0);
      expect(ftsCount('features_fts', `"${word}"`)).toBe(holding.length);
      intact();
    } finally {
      vi.useRealTimers();
    }
  });

  it('indexes what waits before a word search, at open and at the end of a bulk load', () => {
    const fx = computeResponse(20, 82);
    const a = cache.storeCompute(meta({ query: 'lighthouse keepers' }), fx.body, fx.raw);
    expect(cache.list({ text: 'lighthouse' }).items.map((q) => q.id)).toEqual([a]);
    expect(pending()).toEqual([]);
    const b = cache.storeCompute(meta({ query: 'lighthouse cottages' }), fx.body, fx.raw);
    // Closed before writes paused: the next open indexes it.
    cache.db.close();
    cache = Cache.open(file());
    expect(pending()).toEqual([]);
    expect(ftsCount('queries_fts', 'cottages')).toBe(1);
    const c = cache.bulk(() => cache.storeCompute(meta({ query: 'lighthouse lamps' }), fx.body, fx.raw));
    expect(pending()).toEqual([]);
    expect(cache.list({ text: 'lighthouse' }).items.map((q) => q.id)).toEqual([c, b, a]);
    intact();
  });

  it('deletes an entry whose words wait and one whose words are indexed, leaving the indexes whole', () => {
    const fx = computeResponse(30, 83);
    const indexed = cache.storeCompute(meta({ query: 'ferry piers' }), fx.body, fx.raw);
    cache.indexWords();
    const waiting = cache.storeCompute(meta({ query: 'ferry slips' }), fx.body, fx.raw);
    expect(pending()).toEqual([waiting]);
    expect(cache.delete(waiting)).toBe(true);
    expect(pending()).toEqual([]);
    intact();
    expect(cache.list({ text: 'ferry' }).items.map((q) => q.id)).toEqual([indexed]);
    expect(cache.delete(indexed)).toBe(true);
    intact();
    expect(cache.list({ text: 'ferry' }).items).toEqual([]);
    expect(ftsCount('entry_words', 'piers')).toBe(0);
  });
});

describe('media, stats, vacuum', () => {
  it('puts and gets media bytes', () => {
    const bytes = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3]);
    cache.putMedia('https://img.example/a.jpg', 'image/jpeg', bytes, 42);
    const m = cache.getMedia('https://img.example/a.jpg')!;
    expect(m.contentType).toBe('image/jpeg');
    expect(new Uint8Array(m.bytes)).toEqual(bytes);
    expect(m.fetchedAt).toBe(42);
    expect(cache.getMedia('https://img.example/b.jpg')).toBeNull();
    expect(cache.stats().media).toEqual({ count: 1, bytes: 7 });
  });

  it('counts and compacts', () => {
    for (let i = 0; i < 5; i++) {
      const fx = computeResponse(200, 50 + i);
      cache.storeCompute(meta({ query: 'q' }, i), fx.body, fx.raw);
    }
    const s = streamResponse(4);
    cache.storeStream(meta({ query: 's' }), s.body, s.raw);
    const stats = cache.stats();
    expect(stats.queries).toEqual({ compute: 5, stream: 1, imagery: 0 });
    expect(stats.features).toBe(1004);
    for (const q of cache.list({ kind: 'compute', limit: 4 }).items) cache.delete(q.id);
    const v = cache.vacuum();
    expect(v.bytesAfter).toBeLessThan(v.bytesBefore);
    expect(cache.stats().features).toBe(204);
    expect(cache.db.pragma('integrity_check', { simple: true })).toBe('ok');
  });
});

describe('ftsExpression', () => {
  it('quotes every word, with prefix matching only where asked for', () => {
    expect(ftsExpression('  rue  "de" paix ')).toBe('"rue" "de" "paix"');
    expect(ftsExpression('Saint-Étienne 12b bak*')).toBe('"Saint" "Étienne" "12b" "bak"*');
    expect(ftsExpression('   ')).toBeNull();
  });
});
