import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { writeGeoPackage } from '../../../electron/export/gpkg';
import { pointFeatures } from '../../interop/export/features';

/**
 * The GeoPackage's tables read back with plain SQL, apart from the writer: every feature written
 * is a row (the last one too), with its id and its box in the spatial index.
 */
const dir = mkdtempSync(join(tmpdir(), 'fieldlens-gpkg-rows-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('GeoPackage rows', () => {
  it.each([1, 2, 1000])('%i features become as many rows, ids in order, each in the R-tree', async (n) => {
    const path = join(dir, `points-${n}.gpkg`);
    const features = pointFeatures(n, 5);
    const sync = await writeGeoPackage(path, [{ name: 'Points', kind: 'compute', features, count: n }], { tick: () => undefined });
    // An async source goes through the other loop of the writer.
    const asyncPath = join(dir, `points-${n}-async.gpkg`);
    async function* stream() {
      yield* features;
    }
    await writeGeoPackage(asyncPath, [{ name: 'Points', kind: 'compute', features: stream() }], { tick: () => undefined });
    expect(sync).toHaveLength(1);
    for (const p of [path, asyncPath]) {
      const db = new Database(p, { readonly: true });
      try {
        const tables = db.prepare(`SELECT table_name FROM gpkg_contents WHERE data_type = 'features'`).pluck().all() as string[];
        expect(tables).toHaveLength(1);
        const t = `"${tables[0]!.replace(/"/g, '""')}"`;
        expect(db.prepare(`SELECT count(*) FROM ${t}`).pluck().get()).toBe(n);
        expect(db.prepare(`SELECT feature_id FROM ${t} ORDER BY fid`).pluck().all()).toEqual(features.map((f) => f.id));
        const rtree = `"rtree_${tables[0]!.replace(/"/g, '""')}_geom"`;
        expect(db.prepare(`SELECT count(*) FROM ${rtree}`).pluck().get()).toBe(n);
        const last = features[n - 1]!.geometry as unknown as { coordinates: [number, number] };
        const box = db.prepare(`SELECT minx, miny FROM ${rtree} WHERE id = (SELECT max(fid) FROM ${t})`).get() as { minx: number; miny: number };
        // The R-tree keeps 32-bit floats, rounded outwards.
        expect(box.minx).toBeCloseTo(last.coordinates[0], 4);
        expect(box.miny).toBeCloseTo(last.coordinates[1], 4);
      } finally {
        db.close();
      }
    }
    expect(sync[0]!.count).toBe(n);
  });
});
