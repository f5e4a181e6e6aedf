/**
 * Cache benchmark: ingest of a 2,000-feature compute response (against a raw better-sqlite3
 * insert of the same rows in the same run, one statement per row and 64 to a statement; its
 * words, which the cache indexes once writes pause, timed apart), reopen + read, and text / box
 * search over 1M
 * cached features, each search's hit count checked against a plain scan. Last line of output:
 * one JSON object with the figures.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Cache, FEATURE_ID_SPAN, type QueryMeta } from '../../electron/cache';
import { createQueryHandlers } from '../../electron/client/query-handlers';
import { createMemoryLogger } from '../../electron/ground/logger';
import { createRouter, type Handlers } from '../../electron/rpc/router';
import { computeResponse, rng } from '../node/cache/fixtures';

const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 31);
const BIG = Number(process.env['BENCH_FEATURES'] ?? 1_000_000);
const dir = mkdtempSync(join(tmpdir(), 'fieldlens-cache-bench-'));

const p50 = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
};
const round = (x: number, d = 3) => Math.round(x * 10 ** d) / 10 ** d;
const meta = (query: string): QueryMeta => ({
  profileId: 'bench',
  request: { query, limit: 2000 },
  startedAt: Date.now(),
  finishedAt: Date.now() + 5,
});

function rawDb(file: string) {
  const db = new Database(file);
  // Same storage settings as the cache, so the ratio measures what the cache adds (indexes):
  // its page size, journal, sync level and page cache, and no checkpoint while writing (the
  // cache checkpoints when writes pause, which the rounds below never do), so neither side's
  // time includes copying its WAL back.
  db.pragma('page_size = 16384');
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('cache_size = -16384');
  db.pragma('wal_autocheckpoint = 0');
  // The same rows the cache writes (the query row with its body, one row per feature), with no indexes.
  db.exec(`CREATE TABLE queries (id INTEGER PRIMARY KEY, kind TEXT, profile_id TEXT, query_text TEXT,
      request_json TEXT, remote_id TEXT, started_at INTEGER, raw_response TEXT);
    CREATE TABLE features (id INTEGER PRIMARY KEY, query_id INTEGER, seq INTEGER, feature_id TEXT, name TEXT,
      address TEXT, minx REAL, miny REAL, maxx REAL, maxy REAL, score REAL);`);
  const q = db.prepare(
    'INSERT INTO queries (kind, profile_id, query_text, request_json, remote_id, started_at, raw_response) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  const row = '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)';
  const f = db.prepare(`INSERT INTO features VALUES ${row}`);
  // The same rows 64 to a statement, as the cache writes them: what is left of the ratio then is
  // what its indexes cost.
  const BULK = 64;
  const fBulk = db.prepare(`INSERT INTO features VALUES ${Array.from({ length: BULK }, () => row).join(', ')}`);
  const chunk = new Array<unknown>(BULK * 11);
  const insert = db.transaction((fx: Fixture, withQueryRow: boolean, bulk = false) => {
    const qid = Number(
      q.run('compute', 'bench', fx.body.query, '{}', fx.body.id, Date.now(), withQueryRow ? fx.bytes : null).lastInsertRowid,
    );
    const base = qid * FEATURE_ID_SPAN;
    const features = fx.body.results.features;
    let i = 0;
    if (bulk)
      for (; i + BULK <= features.length; i += BULK) {
        for (let k = i, v = 0; k < i + BULK; k++) {
          const ft = features[k]!;
          const p = ft.properties;
          const c = (ft.geometry as { coordinates: number[] }).coordinates;
          chunk[v++] = base + k;
          chunk[v++] = qid;
          chunk[v++] = k;
          chunk[v++] = ft.id;
          chunk[v++] = p.name;
          chunk[v++] = p.address;
          chunk[v++] = c[0];
          chunk[v++] = c[1];
          chunk[v++] = c[0];
          chunk[v++] = c[1];
          chunk[v++] = p.score;
        }
        fBulk.run(...chunk);
      }
    for (; i < features.length; i++) {
      const ft = features[i]!;
      const p = ft.properties;
      const c = (ft.geometry as { coordinates: number[] }).coordinates;
      f.run(base + i, qid, i, ft.id, p.name, p.address, c[0], c[1], c[0], c[1], p.score);
    }
  });
  return { db, insert };
}

// Bodies arrive as bytes (the client stores them exactly as received), so both sides bind bytes.
type Fixture = ReturnType<typeof computeResponse> & { bytes: Buffer };
const fixture = (n: number, seed: number): Fixture => {
  const fx = computeResponse(n, seed);
  return { ...fx, bytes: Buffer.from(fx.raw) };
};

function benchIngest() {
  const fixtures = Array.from({ length: 8 }, (_, i) => fixture(2000, 100 + i));
  const cache = Cache.open(join(dir, 'ingest.db'));
  const raw = rawDb(join(dir, 'raw.db'));
  const tCache: number[] = [];
  const tWords: number[] = [];
  const tRaw: number[] = [];
  const tRawFeatures: number[] = [];
  const tRawBulk: number[] = [];
  const cpuCache: number[] = [];
  const cpuRaw: number[] = [];
  // This process's CPU time (the writes run on its main thread), which other processes' load
  // on the machine stretches far less than wall time.
  const cpu = () => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  };
  // Interleaved so both see the same machine load.
  for (let i = 0; i < ROUNDS + 3; i++) {
    const fx = fixtures[i % fixtures.length]!;
    let u = cpu();
    let t = performance.now();
    cache.storeCompute(meta(fx.body.query), fx.body, fx.bytes);
    const c = performance.now() - t;
    const cc = cpu() - u;
    // The same response's words, indexed as the cache does once writes pause.
    t = performance.now();
    if (cache.indexWords() !== 1) throw new Error('the stored response left no words to index');
    const w = performance.now() - t;
    u = cpu();
    t = performance.now();
    raw.insert(fx, true);
    const r = performance.now() - t;
    const cr = cpu() - u;
    t = performance.now();
    raw.insert(fx, false);
    const rf = performance.now() - t;
    t = performance.now();
    raw.insert(fx, true, true);
    const rb = performance.now() - t;
    if (i >= 3) {
      tCache.push(c);
      tWords.push(w);
      tRaw.push(r);
      tRawFeatures.push(rf);
      tRawBulk.push(rb);
      cpuCache.push(cc);
      cpuRaw.push(cr);
    }
  }
  raw.db.close();
  const lastId = cache.list({ limit: 1 }).items[0]!.id;
  cache.close();
  return { cache: p50(tCache), words: p50(tWords), raw: p50(tRaw), rawFeatures: p50(tRawFeatures), rawBulk: p50(tRawBulk), cpuCache: p50(cpuCache), cpuRaw: p50(cpuRaw), lastId };
}

function benchReopen(lastId: number) {
  const times: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const t = performance.now();
    const cache = Cache.open(join(dir, 'ingest.db'));
    const rec = cache.get(lastId);
    times.push(performance.now() - t);
    if (rec?.raw?.length === undefined || rec.featureCount !== 2000) throw new Error('reopen read back the wrong query');
    cache.close();
  }
  return p50(times);
}

async function benchBig() {
  const file = join(dir, 'big.db');
  const cache = Cache.open(file);
  const perResponse = 2000;
  const responses = Math.ceil(BIG / perResponse);
  const t0 = performance.now();
  // Bulk path: many responses per transaction, FTS segments merged once at the end.
  const batch = 25;
  for (let b = 0; b < responses; b += batch) {
    const fxs = Array.from({ length: Math.min(batch, responses - b) }, (_, i) => fixture(perResponse, 1000 + b + i));
    cache.bulk(() => {
      for (const fx of fxs) cache.storeCompute(meta(fx.body.query), fx.body, fx.bytes);
    });
  }
  cache.db.exec(`INSERT INTO features_fts (features_fts) VALUES ('optimize')`);
  const buildMs = performance.now() - t0;
  const total = cache.stats().features;

  const r = rng(7);
  const words = ['bakery', 'cafe hauptstrasse', 'library', 'rue paix', 'museum 1999', 'gdansk', 'station road', 'zurich park'];
  // What each search must find, counted apart from the indexes it times: the words by a plain
  // pass over every feature's name and address, the boxes by a scan of the feature table.
  const wordsOf = (s: string) => s.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean);
  const expectedText = new Map<string, number>();
  const rows = cache.db.prepare('SELECT name, address FROM features').iterate() as IterableIterator<{ name: string | null; address: string | null }>;
  const wanted = words.map((w) => [w, wordsOf(w)] as const);
  for (const row of rows) {
    const have = new Set(wordsOf(`${row.name ?? ''} ${row.address ?? ''}`));
    for (const [w, ws] of wanted) if (ws.every((x) => have.has(x))) expectedText.set(w, (expectedText.get(w) ?? 0) + 1);
  }
  const scanBox = cache.db.prepare('SELECT count(*) FROM features NOT INDEXED WHERE maxx >= ? AND minx <= ? AND maxy >= ? AND miny <= ?').pluck();
  const check = (what: string, got: number, want: number) => {
    if (got !== want) throw new Error(`${what}: ${got} hits, a plain scan finds ${want}`);
  };
  const fts: number[] = [];
  let ftsHits = 0;
  for (let i = 0; i < ROUNDS; i++) {
    const w = words[i % words.length]!;
    const t = performance.now();
    const hits = cache.searchFeatures({ text: w, limit: 100 });
    fts.push(performance.now() - t);
    ftsHits += hits.length;
    check(`words "${w}"`, hits.length, Math.min(100, expectedText.get(w) ?? 0));
  }
  const box: number[] = [];
  let boxHits = 0;
  for (let i = 0; i < ROUNDS; i++) {
    const x = -8 + r() * 32;
    const y = 38 + r() * 20;
    const t = performance.now();
    const hits = cache.searchFeatures({ bbox: [x, y, x + 1, y + 1], limit: 1000 });
    box.push(performance.now() - t);
    boxHits += hits.length;
    check(`box ${x.toFixed(3)},${y.toFixed(3)}`, hits.length, Math.min(1000, scanBox.get(x, x + 1, y, y + 1) as number));
  }
  // History filters over the same data (queries whose features match), for the record.
  const listText: number[] = [];
  const listBox: number[] = [];
  for (let i = 0; i < 9; i++) {
    let t = performance.now();
    cache.list({ text: words[i % words.length]!, limit: 50 });
    listText.push(performance.now() - t);
    const x = -8 + r() * 32;
    const y = 38 + r() * 20;
    t = performance.now();
    cache.list({ bbox: [x, y, x + 1, y + 1], limit: 50 });
    listBox.push(performance.now() - t);
  }
  // The History search as the app runs it: through the RPC router (input and output validated),
  // words, a 2°x2° map extent, a drawn triangle inside it and a date range together.
  const logger = createMemoryLogger();
  const handlers = createQueryHandlers({
    client: {} as never, // history.list reads the cache only
    cache,
    connection: () => ({ profileId: 'bench', label: 'bench', kind: 'local', baseUrl: 'http://x', searchBaseUrl: 'http://x' }),
    logger,
  });
  const router = createRouter(handlers as unknown as Handlers, logger);
  const rpc: number[] = [];
  let rpcHits = 0;
  const now = Date.now();
  for (let i = 0; i < ROUNDS; i++) {
    // Around a cached feature, so every search has candidates to test.
    const some = cache.features(1 + Math.floor(r() * responses))[0]!.bbox!;
    const x = some[0] - 1;
    const y = some[1] - 0.5;
    const input = {
      text: words[i % words.length]!.split(' ')[0]!,
      bbox: [x, y, x + 2, y + 2],
      polygon: [[x, y], [x + 2, y], [x + 1, y + 2]],
      from: now - 3_600_000,
      to: now + 3_600_000,
      limit: 50,
    };
    const t = performance.now();
    const res = await router.dispatch('history.list', JSON.parse(JSON.stringify(input)));
    rpc.push(performance.now() - t);
    if (!res.ok) throw new Error(res.error.message);
    rpcHits += (res.value as { items: unknown[] }).items.length;
  }
  cache.close();
  return {
    total, buildMs, fts: p50(fts), box: p50(box), ftsHits: ftsHits / ROUNDS, boxHits: boxHits / ROUNDS,
    listText: p50(listText), listBox: p50(listBox), rpc: p50(rpc), rpcHits: rpcHits / ROUNDS,
  };
}

try {
  const ingest = benchIngest();
  console.log(
    `ingest 2000: cache ${ingest.cache.toFixed(2)} ms (its words indexed afterwards: ${ingest.words.toFixed(2)} ms), raw rows ${ingest.raw.toFixed(2)} ms ` +
      `(feature rows only ${ingest.rawFeatures.toFixed(2)} ms, 64 rows to a statement ${ingest.rawBulk.toFixed(2)} ms); CPU time: cache ${ingest.cpuCache.toFixed(2)} ms, raw rows ${ingest.cpuRaw.toFixed(2)} ms`,
  );
  const reopen = benchReopen(ingest.lastId);
  console.log(`reopen + get (metadata and raw body) of a 2000-feature query: ${reopen.toFixed(2)} ms`);
  const big = await benchBig();
  console.log(
    `built ${big.total} features in ${(big.buildMs / 1000).toFixed(1)} s; ` +
      `fts ${big.fts.toFixed(3)} ms (avg ${big.ftsHits} hits, limit 100); ` +
      `1°x1° box ${big.box.toFixed(3)} ms (avg ${big.boxHits} hits, limit 1000)`,
  );
  console.log(`history.list over the same data: by words ${big.listText.toFixed(2)} ms, by 1°x1° box ${big.listBox.toFixed(2)} ms`);
  console.log(`history.list through the RPC router (words + extent + drawn area + dates): ${big.rpc.toFixed(2)} ms (avg ${big.rpcHits} entries)`);
  console.log(
    JSON.stringify({
      ingest_2000_ms_p50: round(ingest.cache),
      ingest_ratio_vs_raw: round(ingest.cache / ingest.raw),
      ingest_cpu_ratio_vs_raw: round(ingest.cpuCache / ingest.cpuRaw),
      ingest_ratio_vs_raw_bulk: round(ingest.cache / ingest.rawBulk),
      ingest_words_ms_p50: round(ingest.words),
      ingest_with_words_ratio_vs_raw: round((ingest.cache + ingest.words) / ingest.raw),
      reopen_2000_ms_p50: round(reopen),
      fts_1m_ms_p50: round(big.fts),
      bbox_1m_ms_p50: round(big.box),
      history_rpc_1m_ms_p50: round(big.rpc),
    }),
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
