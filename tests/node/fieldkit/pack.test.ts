import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { decodeWkb } from '../../../electron/ground/wkb';
import { RpcError } from '../../../shared/rpc/errors';
import { AREA, FETCHABLE, T0, UNFETCHABLE, computeBody, finished, fillSource, openSide, packService, type AppSide, type SourceIds } from '../../support/pack-fixture';

type Row = Record<string, unknown>;
const SPAN = 2 ** 20;

let root: string;
let src: AppSide;
let ids: SourceIds;
const sides: AppSide[] = [];

beforeEach(async () => {
  root = mkdtempSync(join(tmpdir(), 'fl-pack-'));
  src = openSide(join(root, 'source'));
  sides.push(src);
  ids = await fillSource(src);
});

afterEach(() => {
  for (const s of sides.splice(0)) s.close();
  rmSync(root, { recursive: true, force: true });
});

function freshSide(name: string): AppSide {
  const s = openSide(join(root, name));
  sides.push(s);
  return s;
}

/** Plain SQL over the source: the queries with an item whose box centre lies in AREA, in the date range. */
function expectedQueryIds(
  db: Database.Database,
  from = -Infinity,
  to = Infinity,
  within = (x: number, y: number) => x >= AREA[0] && x <= AREA[2] && y >= AREA[1] && y <= AREA[3],
): number[] {
  const out: number[] = [];
  for (const q of db.prepare('SELECT id, started_at FROM queries ORDER BY id').all() as { id: number; started_at: number }[]) {
    if (q.started_at < from || q.started_at > to) continue;
    const boxes = db.prepare('SELECT minx, miny, maxx, maxy FROM features WHERE query_id = ? AND minx IS NOT NULL').all(q.id) as Row[];
    const hit = boxes.some((b) => {
      const x = ((b['minx'] as number) + (b['maxx'] as number)) / 2;
      const y = ((b['miny'] as number) + (b['maxy'] as number)) / 2;
      return within(x, y);
    });
    if (hit) out.push(q.id);
  }
  return out;
}

const identity = (q: Row) => [q['kind'], q['profile_id'], q['started_at'], q['finished_at'], q['request_json']];

/** The target's id of a source query, found by what was asked and when (plain SQL). */
function matchId(srcDb: Database.Database, dstDb: Database.Database, id: number): number {
  const q = srcDb.prepare('SELECT * FROM queries WHERE id = ?').get(id) as Row;
  const rows = dstDb
    .prepare('SELECT id FROM queries WHERE kind = ? AND profile_id = ? AND started_at = ? AND finished_at = ? AND request_json = ?')
    .all(...identity(q)) as { id: number }[];
  expect(rows, `query ${id} once in the target`).toHaveLength(1);
  return rows[0]!.id;
}

const rangeRows = (db: Database.Database, table: string, id: number) =>
  (db.prepare(`SELECT * FROM ${table} WHERE id BETWEEN ? AND ? ORDER BY id`).all(id * SPAN, id * SPAN + SPAN - 1) as Row[]).map(
    ({ id: rowId, query_id: _q, ...rest }) => ({
      rank: (rowId as number) - id * SPAN,
      ...rest,
      // R*Tree entries name the last feature of their run by row id too.
      ...('last_id' in rest ? { last_id: (rest['last_id'] as number) - id * SPAN } : {}),
    }),
  );

async function pack(h: ReturnType<typeof packService>, sel: Parameters<typeof h.service.create>[0], path: string) {
  const { jobId } = await h.service.create(sel, path);
  return finished(h, jobId);
}

describe('offline area pack', () => {
  it('estimates what the area holds, counted with plain SQL', async () => {
    const h = packService(src);
    const est = await h.service.estimate({ area: { bbox: AREA }, maxTileZoom: 3 });
    const db = src.cache.db;
    const expected = expectedQueryIds(db);
    expect(expected.sort()).toEqual([ids.inside, ids.mixed, ids.rerun, ids.imagery, ids.stream, ids.early].sort());
    expect(est.queries).toBe(expected.length);
    const features = expected.reduce((a, id) => a + (db.prepare('SELECT count(*) FROM features WHERE query_id = ?').pluck().get(id) as number), 0);
    expect(est.features).toBe(features);
    const media = db.prepare('SELECT count(*) AS n, sum(size) AS b FROM media WHERE url != ?').get(ids.mediaElsewhere) as { n: number; b: number };
    // Six imagery records and three observations show nine images; five were viewed.
    expect(est.media).toEqual({ count: media.n, bytes: media.b, missing: 9 - media.n });
    expect(est.uploads.count).toBe(1);
    expect(est.layers).toEqual([{ name: 'roads', features: 3 }]);
    // Slippy-map tile numbers of the corners, per zoom (OSM wiki formula).
    let tiles = 0;
    for (let z = 0; z <= 3; z++) {
      const n = 2 ** z;
      const tx = (lon: number) => Math.floor(((lon + 180) / 360) * n);
      const ty = (lat: number) => Math.floor(((1 - Math.asinh(Math.tan((lat * Math.PI) / 180)) / Math.PI) / 2) * n);
      tiles += (tx(AREA[2]) - tx(AREA[0]) + 1) * (ty(AREA[1]) - ty(AREA[3]) + 1);
    }
    expect(est.tiles).toEqual({ count: tiles, online: true, tooMany: false });
    expect(est.bytes).toBeGreaterThan(media.b);
  });

  it('a pack opened on an empty data folder holds every row of the area, as the source has it', async () => {
    const path = join(root, 'out', 'fulda.gpkg');
    const h = packService(src);
    const end = await pack(h, { area: { bbox: AREA }, maxTileZoom: 2 }, path);
    expect(end.state, JSON.stringify(end.error)).toBe('done');
    expect(end.bytes).toBe(readFileSync(path).length);
    // Images never viewed were fetched while packing; the two the service does not serve are named.
    expect(h.fetchedMedia.sort()).toEqual([...FETCHABLE, ...UNFETCHABLE].sort());
    expect(end.mediaMissing).toBe(UNFETCHABLE.length);
    for (const url of FETCHABLE) expect(src.cache.getMedia(url)?.contentType).toBe('image/jpeg');
    expect(h.tiles.length).toBe(end.contents!.tiles);

    const dst = freshSide('laptop-2');
    const opened = await packService(dst).service.open(path);
    const s = src.cache.db;
    const d = dst.cache.db;
    const expected = expectedQueryIds(s);
    expect(opened.added.queries).toBe(expected.length);
    expect(d.prepare('SELECT count(*) FROM queries').pluck().get()).toBe(expected.length);

    const map = new Map(expected.map((id) => [id, matchId(s, d, id)]));
    for (const [sid, did] of map) {
      const a = s.prepare('SELECT * FROM queries WHERE id = ?').get(sid) as Row;
      const b = d.prepare('SELECT * FROM queries WHERE id = ?').get(did) as Row;
      const { id: _a, rerun_of: ra, ...restA } = a;
      const { id: _b, rerun_of: rb, ...restB } = b;
      expect(restB).toEqual(restA);
      expect(rb).toBe(ra === null ? null : map.get(ra as number));
      for (const t of ['features', 'observations', 'imagery_records', 'features_rtree']) expect(rangeRows(d, t, did), `${t} of ${sid}`).toEqual(rangeRows(s, t, sid));
      const up = `SELECT qu.field, qu.position, qu.name, u.sha256, u.name AS un, u.size, u.content_type, u.content, u.created_at
                  FROM query_uploads qu JOIN uploads u ON u.id = qu.upload_id WHERE qu.query_id = ? ORDER BY qu.field, qu.position`;
      expect(d.prepare(up).all(did)).toEqual(s.prepare(up).all(sid));
    }
    // The full-text index answers on the target as on the source.
    const fts = (db: Database.Database, word: string) => db.prepare('SELECT count(*) FROM features_fts WHERE features_fts MATCH ?').pluck().get(word);
    expect(fts(d, 'cafes')).toBe(
      (s.prepare('SELECT count(*) FROM features WHERE name LIKE ? AND query_id IN (SELECT value FROM json_each(?))').pluck().get('cafes%', JSON.stringify(expected))),
    );
    // Media shown by the area's items, every column; none other.
    const urls = s
      .prepare(
        `SELECT url FROM media WHERE url IN (SELECT image_url FROM observations WHERE id / ${SPAN} IN (SELECT value FROM json_each(?))
           UNION SELECT image FROM imagery_records WHERE id / ${SPAN} IN (SELECT value FROM json_each(?))) ORDER BY url`,
      )
      .pluck()
      .all(JSON.stringify(expected), JSON.stringify(expected)) as string[];
    expect(urls.sort()).toEqual([...ids.mediaInside, ...FETCHABLE].sort());
    expect(d.prepare('SELECT * FROM media ORDER BY url').all()).toEqual(s.prepare(`SELECT * FROM media WHERE url IN (SELECT value FROM json_each(?)) ORDER BY url`).all(JSON.stringify(urls)));

    // Through the app's reading side: History by area, answers and raw responses.
    const listed = dst.cache.list({ bbox: AREA, limit: 100 }).items.map((q) => q.queryText).sort();
    expect(listed).toEqual(src.cache.list({ bbox: AREA, limit: 100 }).items.map((q) => q.queryText).sort());
    // History by words: a query's own text, and an item's address, which only its items hold.
    for (const text of ['fulda', 'Hauptstraße'])
      expect(dst.cache.list({ text, limit: 100 }).items.map((q) => q.queryText).sort()).toEqual(
        src.cache.list({ text, limit: 100 }).items.filter((q) => listed.includes(q.queryText)).map((q) => q.queryText).sort(),
      );
    expect(dst.cache.list({ text: 'Hauptstraße', limit: 100 }).items.length).toBeGreaterThan(0);
    expect(dst.cache.rawResponse(map.get(ids.inside)!)).toEqual(src.cache.rawResponse(ids.inside));
    expect(dst.cache.get(map.get(ids.rerun)!)!.rerunOf).toBe(map.get(ids.inside));

    // The data layer, clipped to the area (clipped shapes worked out here by hand).
    const [layer] = dst.store.list();
    const [orig] = src.store.list();
    expect(layer).toMatchObject({ name: orig!.name, sourceFile: orig!.sourceFile, format: orig!.format, licence: orig!.licence, sourceText: orig!.sourceText, featureCount: 3 });
    const feats = (await dst.store.scan(layer!.id)).map((f) => ({ id: f.sourceId, g: f.geometry, t: f.tags }));
    expect(feats.find((f) => f.id === 'r1')).toEqual({ id: 'r1', g: { type: 'Point', coordinates: [10.5, 50.5] }, t: { highway: 'bus_stop', name: 'Dom' } });
    expect(feats.find((f) => f.id === 'r2')).toBeUndefined();
    expect(feats.find((f) => f.id === 'r3')).toEqual({ id: 'r3', g: { type: 'LineString', coordinates: [[10.5, 50.5], [11, 50.5]] }, t: { highway: 'primary', lanes: 2 } });
    const forest = feats.find((f) => f.id === 'r4')!;
    expect(forest.t).toEqual({ landuse: 'forest' });
    const ring = (forest.g as { coordinates: number[][][] }).coordinates[0]!;
    const xs = ring.map((p) => p[0]!);
    const ys = ring.map((p) => p[1]!);
    expect([Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)]).toEqual([10.8, 50.8, 11, 51]);
  });

  it('packing again updates the same file and opening twice adds nothing twice', async () => {
    const path = join(root, 'again.gpkg');
    const h = packService(src);
    expect((await pack(h, { area: { bbox: AREA } }, path)).state).toBe('done');
    const tables = ['fieldlens_pack_queries', 'fieldlens_pack_features', 'fieldlens_pack_media', 'fieldlens_pack_uploads', 'fieldlens_pack_query_uploads', 'fieldlens_pack_layer_features', 'fieldlens_pack_layers'];
    const snapshot = () => {
      const db = new Database(path, { readonly: true });
      try {
        return Object.fromEntries(tables.map((t) => [t, (db.prepare(`SELECT * FROM ${t}`).all() as Row[]).map(({ id: _i, ...r }) => r).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)))]));
      } finally {
        db.close();
      }
    };
    const first = snapshot();
    expect((await pack(h, { area: { bbox: AREA } }, path)).state).toBe('done');
    expect(snapshot()).toEqual(first);

    // A new question in the area joins; the rest stay once.
    const body = computeBody('bakeries', [[10.4, 50.4]]);
    src.cache.storeCompute({ profileId: 'local', request: { query: 'bakeries' }, startedAt: T0 + 9e6, finishedAt: T0 + 9e6 + 10 }, body, JSON.stringify(body));
    const third = await pack(h, { area: { bbox: AREA } }, path);
    expect(third.contents!.queries).toBe(first['fieldlens_pack_queries']!.length + 1);
    const after = snapshot();
    for (const t of tables) expect(new Set(after[t]!.map((r) => JSON.stringify(r))).size, t).toBe(after[t]!.length);

    // Another area packed into the same file: both areas are in it.
    const prague = await pack(h, { area: { bbox: [14, 49.5, 15, 50.5] } }, path);
    expect(prague.contents!.queries).toBe(third.contents!.queries + 1);

    const dst = freshSide('laptop-3');
    const svc = packService(dst).service;
    const once = await svc.open(path);
    expect(once.added.queries).toBe(prague.contents!.queries);
    expect(once.added.layers).toBe(1);
    const counts = () => ['queries', 'features', 'observations', 'imagery_records', 'features_rtree', 'media', 'uploads', 'query_uploads'].map((t) => dst.cache.db.prepare(`SELECT count(*) FROM ${t}`).pluck().get());
    const before = counts();
    const twice = await svc.open(path);
    expect(twice.added).toEqual({ queries: 0, features: 0, media: 0, uploads: 0, layers: 0, layerFeatures: 0, tiles: 0 });
    expect(twice.updated.queries).toBe(prague.contents!.queries);
    expect(twice.updated.layers).toBe(1);
    expect(counts()).toEqual(before);
    expect(dst.store.list()).toHaveLength(1);
  });

  it('keeps the date range', async () => {
    const h = packService(src);
    const est = await h.service.estimate({ area: { bbox: AREA }, from: T0 - 86_400_000 });
    expect(est.queries).toBe(expectedQueryIds(src.cache.db, T0 - 86_400_000).length);
    expect(est.queries).toBe(5); // the question asked 40 days before is left out
    const poly = await h.service.estimate({ area: { polygon: [[10, 50], [11, 50], [10, 51]] } });
    // The lower-left half of the square: x + y <= 61 (on the edge counts).
    const half = expectedQueryIds(src.cache.db, -Infinity, Infinity, (x, y) => x >= 10 && y >= 50 && x - 10 + (y - 50) <= 1);
    expect(half.length).toBeGreaterThan(0);
    expect(half.length).toBeLessThan(expectedQueryIds(src.cache.db).length);
    expect(poly.queries).toBe(half.length);
    expect(poly.layers).toEqual([{ name: 'roads', features: 2 }]);
  });

  it('a cancelled pack leaves nothing under the final name, and an older pack there as it was', async () => {
    const path = join(root, 'cancel.gpkg');
    let calls = 0;
    const h = packService(src, {
      fetchTile: (_z, _x, _y, signal) =>
        new Promise((_res, rej) => {
          calls++;
          signal.addEventListener('abort', () => rej(new Error('aborted')));
        }),
    });
    const { jobId } = await h.service.create({ area: { bbox: AREA }, maxTileZoom: 3 }, path);
    while (calls === 0) await new Promise((r) => setTimeout(r, 5));
    expect(h.service.cancel(jobId)).toEqual({ cancelled: true });
    expect((await finished(h, jobId)).state).toBe('cancelled');
    expect(existsSync(path)).toBe(false);
    expect(readdirSync(root).filter((f) => f.startsWith('cancel'))).toEqual([]);

    const ok = packService(src);
    expect((await pack(ok, { area: { bbox: AREA } }, path)).state).toBe('done');
    const bytes = readFileSync(path);
    calls = 0;
    const again = await h.service.create({ area: { bbox: AREA }, maxTileZoom: 3 }, path);
    while (calls === 0) await new Promise((r) => setTimeout(r, 5));
    h.service.cancel(again.jobId);
    expect((await finished(h, again.jobId)).state).toBe('cancelled');
    expect(readFileSync(path).equals(bytes)).toBe(true);
    expect(readdirSync(root).filter((f) => f.startsWith('cancel'))).toEqual(['cancel.gpkg']);
  });

  it('offline, the pack is written without tiles and says so', async () => {
    const path = join(root, 'offline.gpkg');
    const h = packService(src);
    h.online.value = false;
    expect((await h.service.estimate({ area: { bbox: AREA }, maxTileZoom: 4 })).tiles.online).toBe(false);
    const end = await pack(h, { area: { bbox: AREA }, maxTileZoom: 4 }, path);
    expect(end.state).toBe('done');
    expect(end.contents!.tiles).toBe(0);
    expect(h.tiles).toEqual([]);
    const db = new Database(path, { readonly: true });
    expect(db.prepare(`SELECT value FROM fieldlens_pack_meta WHERE key = 'tiles_skipped'`).pluck().get()).toBe('offline when packed');
    // Offline, images never viewed cannot be fetched: the pack names them.
    const missing = JSON.parse(db.prepare(`SELECT value FROM fieldlens_pack_meta WHERE key = 'media_missing'`).pluck().get() as string) as string[];
    expect(missing.sort()).toEqual([...FETCHABLE, ...UNFETCHABLE].sort());
    expect(h.fetchedMedia).toEqual([]);
    expect(end.mediaMissing).toBe(4);
    db.close();
  });

  it('refuses what it cannot do, plainly', async () => {
    const h = packService(src);
    await expect(h.service.create({ area: { bbox: AREA } }, 'relative.gpkg')).rejects.toThrow(/absolute/);
    await expect(h.service.create({ area: { bbox: AREA }, maxTileZoom: 16 }, join(root, 'big.gpkg'))).rejects.toMatchObject({ code: 'VALIDATION' });
    const notPack = join(root, 'other.gpkg');
    writeFileSync(notPack, 'plain text');
    const { jobId } = await h.service.create({ area: { bbox: AREA } }, notPack);
    const end = await finished(h, jobId);
    expect(end.state).toBe('failed');
    expect(end.error?.code).toBe('CONFLICT');
    expect(readFileSync(notPack, 'utf8')).toBe('plain text');
    await expect(h.service.open(notPack)).rejects.toBeInstanceOf(RpcError);
    await expect(h.service.open(join(root, 'none.gpkg'))).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('stores data layer geometries as WKB the codec reads back', async () => {
    const path = join(root, 'wkb.gpkg');
    const h = packService(src);
    await pack(h, { area: { bbox: AREA } }, path);
    const db = new Database(path, { readonly: true });
    const rows = db.prepare('SELECT source_id, geometry FROM fieldlens_pack_layer_features ORDER BY n').all() as { source_id: string; geometry: Buffer }[];
    db.close();
    expect(rows.map((r) => [r.source_id, decodeWkb(r.geometry).type])).toEqual([
      ['r1', 'Point'],
      ['r3', 'LineString'],
      ['r4', 'Polygon'],
    ]);
  });
});

describe('faces in an area pack', () => {
  // A stand-in for the face detector: every JPEG has one face, and its copy is marked, so the test
  // sees which bytes went into the pack (the real detector is tested in evidence-faces.test.ts).
  const MARK = Uint8Array.from([0xff, 0xd8, 0xff, 0x42, 0xff, 0xd9]);
  // Each asked for vehicles counts two.
  const faceBlur = {
    model: 'stub-faces@1',
    vehicles: 'stub-vehicles@1',
    blur: async (_: Uint8Array, o?: { vehicles?: boolean }) => ({ bytes: MARK, faces: 1, vehicles: o?.vehicles ? 2 : 0 }),
  };
  const packed = (path: string) => {
    const db = new Database(path, { readonly: true });
    try {
      return {
        media: db.prepare('SELECT bytes FROM fieldlens_pack_media').all() as { bytes: Buffer }[],
        faces: JSON.parse(db.prepare(`SELECT value FROM fieldlens_pack_meta WHERE key = 'faces'`).pluck().get() as string),
      };
    } finally {
      db.close();
    }
  };

  it('are hidden in every image by default, and the pack says so; the cache keeps the originals', async () => {
    const path = join(root, 'blurred.gpkg');
    await pack(packService(src, { faceBlur }), { area: { bbox: AREA } }, path);
    const p = packed(path);
    expect(p.media.length).toBeGreaterThan(0);
    expect(p.media.every((m) => Buffer.from(m.bytes).equals(Buffer.from(MARK)))).toBe(true);
    expect(p.faces).toMatchObject({ facesBlurred: true, detector: 'stub-faces@1', faces: p.media.length, notChecked: [] });
    expect(p.faces).toMatchObject({ vehiclesBlurred: false, vehicleDetector: null, vehicles: 0 });
    const cached = src.cache.db.prepare('SELECT bytes FROM media').all() as { bytes: Buffer }[];
    expect(cached.some((m) => Buffer.from(m.bytes).equals(Buffer.from(MARK)))).toBe(false);
  });

  it('vehicles are blurred too when the pack asks for it, and the pack says so', async () => {
    const path = join(root, 'vehicles.gpkg');
    await pack(packService(src, { faceBlur }), { area: { bbox: AREA }, blurVehicles: true }, path);
    const p = packed(path);
    expect(p.media.length).toBeGreaterThan(0);
    expect(p.faces).toMatchObject({ facesBlurred: true, vehiclesBlurred: true, vehicleDetector: 'stub-vehicles@1', vehicles: 2 * p.media.length });
    expect(p.faces.note).toMatch(/number plates/);
  });

  it('vehicles are not blurred in a pack made with face blurring off', async () => {
    const path = join(root, 'plain-vehicles.gpkg');
    await pack(packService(src, { faceBlur }), { area: { bbox: AREA }, blurFaces: false, blurVehicles: true }, path);
    const p = packed(path);
    expect(p.media.some((m) => Buffer.from(m.bytes).equals(Buffer.from(MARK)))).toBe(false);
    expect(p.faces).toMatchObject({ facesBlurred: false, vehiclesBlurred: false, vehicles: 0 });
  });

  it('a pack made with the switch off keeps its images as cached, and says faces were not hidden', async () => {
    const path = join(root, 'plain.gpkg');
    await pack(packService(src, { faceBlur }), { area: { bbox: AREA }, blurFaces: false }, path);
    const p = packed(path);
    expect(p.media.some((m) => Buffer.from(m.bytes).equals(Buffer.from(MARK)))).toBe(false);
    expect(p.faces).toMatchObject({ facesBlurred: false, faces: 0, checked: [] });
    expect(p.faces.note).toMatch(/turned off/);
  });
});
