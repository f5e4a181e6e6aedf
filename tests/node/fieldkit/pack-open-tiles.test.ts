import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../../../electron/ground/logger';
import { createMemorySecretStore } from '../../../electron/keys/memory-store';
import { createAppServices } from '../../../electron/root/app-services';
import { createMemoryTransport } from '../../../electron/rpc/memory-transport';
import { createRpcClient } from '../../../shared/rpc/client';
import { AREA, fillSource, finished, openSide, packService, type AppSide } from '../../support/pack-fixture';

type TileRow = { z: number; x: number; y: number; data: Buffer };
const key = (t: TileRow) => `${t.z}/${t.x}/${t.y}`;
const byKey = (rows: TileRow[]) => new Map(rows.map((t) => [key(t), t.data]));

let root: string;
const sides: AppSide[] = [];

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'fl-pack-tiles-'));
});
afterEach(() => {
  for (const s of sides.splice(0)) s.close();
  rmSync(root, { recursive: true, force: true });
});

/** Packs AREA with tiles up to zoom 3 and returns the pack's tiles, read with plain SQL from the file. */
async function tilePack(): Promise<{ path: string; packed: TileRow[] }> {
  const src = openSide(join(root, 'source'));
  sides.push(src);
  await fillSource(src);
  const path = join(root, 'area.gpkg');
  const h = packService(src);
  const end = await finished(h, (await h.service.create({ area: { bbox: AREA }, maxTileZoom: 3 }, path)).jobId);
  expect(end.state, JSON.stringify(end.error)).toBe('done');
  const db = new Database(path, { readonly: true });
  try {
    const packed = db.prepare('SELECT zoom_level AS z, tile_column AS x, tile_row AS y, tile_data AS data FROM basemap_tiles').all() as TileRow[];
    return { path, packed };
  } finally {
    db.close();
  }
}

describe("opening a pack brings its basemap tiles into the app's cache", () => {
  it('puts exactly the pack tiles in the cache, and a second open adds none', async () => {
    const { path, packed } = await tilePack();
    expect(packed.length).toBeGreaterThan(3);
    const dst = openSide(join(root, 'laptop-2'));
    sides.push(dst);
    const svc = packService(dst).service;
    const readCache = () => dst.cache.db.prepare('SELECT z, x, y, data FROM basemap_tiles').all() as TileRow[];

    const once = await svc.open(path);
    expect(once.added.tiles).toBe(packed.length);
    expect(once.updated.tiles).toBe(0);
    expect(byKey(readCache())).toEqual(byKey(packed));
    expect(dst.cache.tileCount()).toEqual({ count: packed.length, maxZoom: Math.max(...packed.map((t) => t.z)) });

    const twice = await svc.open(path);
    expect(twice.added.tiles).toBe(0);
    expect(twice.updated.tiles).toBe(packed.length);
    expect(readCache()).toHaveLength(packed.length);
    expect(byKey(readCache())).toEqual(byKey(packed));
  });

  it('a pack without tiles leaves the tile cache empty', async () => {
    const src = openSide(join(root, 'source'));
    sides.push(src);
    await fillSource(src);
    const path = join(root, 'plain.gpkg');
    const h = packService(src);
    expect((await finished(h, (await h.service.create({ area: { bbox: AREA } }, path)).jobId)).state).toBe('done');
    const dst = openSide(join(root, 'laptop-2'));
    sides.push(dst);
    expect((await packService(dst).service.open(path)).added.tiles).toBe(0);
    expect(dst.cache.tileCount()).toEqual({ count: 0, maxZoom: null });
  });

  it('cache.tile answers over RPC with the bytes the pack holds, null for a tile it lacks, and refuses numbers off the grid', async () => {
    const { path, packed } = await tilePack();
    const dataDir = join(root, 'laptop-3');
    const dst = openSide(dataDir);
    await packService(dst).service.open(path);
    dst.close();

    const app = await createAppServices({
      dataDir,
      logger: createMemoryLogger(),
      shell: 'test',
      version: '0.0.0',
      clock: () => new Date(),
      secretStore: createMemorySecretStore(),
      client: { retry: { max: 1, baseDelayMs: 5 }, probeIntervalMs: 0 },
      startLocalService: false,
    });
    try {
      const rpc = createRpcClient(createMemoryTransport(app.router, app.bus));
      expect(await rpc.call('cache.tileCount', {})).toEqual({ ok: true, value: { count: packed.length, maxZoom: Math.max(...packed.map((t) => t.z)) } });
      for (const t of packed) {
        const r = await rpc.call('cache.tile', { z: t.z, x: t.x, y: t.y });
        if (!r.ok) throw new Error(r.error.message);
        expect(Buffer.from(r.value.dataBase64!, 'base64').equals(t.data), key(t)).toBe(true);
      }
      // A tile of the grid the pack does not cover (zoom 3 has 64; the area needs far fewer).
      const held = new Set(packed.map(key));
      const missing = [...Array(64).keys()].map((i) => ({ z: 3, x: i % 8, y: Math.floor(i / 8) })).find((t) => !held.has(`3/${t.x}/${t.y}`))!;
      expect(await rpc.call('cache.tile', missing)).toEqual({ ok: true, value: { dataBase64: null } });
      const off = await rpc.call('cache.tile', { z: 2, x: 4, y: 0 });
      expect(off.ok).toBe(false);
      if (!off.ok) expect(off.error.code).toBe('VALIDATION');
    } finally {
      await app.close();
    }
  });
});
