import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AREA, fillSource, finished, openSide, packService, type AppSide } from '../../support/pack-fixture';
import { loadInQgis, ogrinfo, parseOgrinfo, readWithOgr, validateGpkg } from '../export/tools';

const run = async (cmd: string, args: string[]) => (await promisify(execFile)(cmd, args)).stdout;
const dir = mkdtempSync(join(tmpdir(), 'fieldlens-pack-interop-'));
const path = join(dir, 'fulda.gpkg');
let side: AppSide;

beforeAll(async () => {
  side = openSide(join(dir, 'data'));
  await fillSource(side);
  const h = packService(side);
  const { jobId } = await h.service.create({ area: { bbox: AREA }, maxTileZoom: 3 }, path);
  const end = await finished(h, jobId);
  if (end.state !== 'done') throw new Error(`pack ${end.state}: ${end.error?.message}`);
});

afterAll(() => {
  side.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('an area pack read by GDAL and QGIS', () => {
  it('passes validate_gpkg.py with warnings as errors', async () => {
    const r = await validateGpkg(path);
    expect(r.output).toBe('');
    expect(r.code).toBe(0);
  });

  it('lists the result layers, the clipped data layer, the pack tables and the basemap tiles', async () => {
    const layers = parseOgrinfo(await ogrinfo(['-so', '-al', '-ro', path]));
    const byName = Object.fromEntries(layers.map((l) => [l.name, l]));
    // One layer per question in the area, named with the time it was asked (three ask "cafes in Fulda").
    const counts = (prefix: string) => layers.filter((l) => l.name.startsWith(prefix)).map((l) => l.count).sort((a, b) => a - b);
    expect(counts('cafes_in_Fulda_')).toEqual([3, 20, 22]);
    expect(counts('rivers_')).toEqual([10]);
    expect(counts('market_square_')).toEqual([6]);
    expect(counts('crosswalks_')).toEqual([3]);
    expect(counts('schools')).toEqual([]);
    expect(byName['cafes_in_Fulda_2026_03_01_01_00']?.count).toBe(20);
    expect(byName['Layer_roads']).toMatchObject({ count: 3, geometry: 'Unknown (any)' });
    expect(byName['fieldlens_pack_queries']?.geometry).toBe('None');
    expect(byName['fieldlens_pack_media']?.count).toBe(7); // five viewed, two fetched while packing
    const tiles = await run('gdalinfo', [path]);
    expect(tiles).toContain('Driver: GPKG');
    // The raster spans the tiles of the deepest zoom: at zoom 3 the one-degree area lies in one tile.
    expect(tiles).toMatch(/Size is 256, 256/);
    expect(tiles).toContain('Pseudo-Mercator');
    expect(tiles).toMatch(/Overviews: 128x128/);
  });

  it('reads the data layer clipped to the area, with its tags as fields', async () => {
    const read = await readWithOgr(path);
    const roads = read['Layer_roads']!;
    const xs = roads.features.flatMap((f) => JSON.stringify(f.geometry).match(/-?\d+\.?\d*(?=,)/g)!.map(Number));
    expect(Math.max(...xs)).toBeLessThanOrEqual(AREA[2]);
    expect(roads.features.map((f) => f.properties['feature_id']).sort()).toEqual(['r1', 'r3', 'r4']);
    expect(roads.fields.map((f) => f.name)).toEqual(expect.arrayContaining(['highway', 'landuse']));
  });

  it('opens in headless QGIS', async () => {
    const q = await loadInQgis(path, ['cafes_in_Fulda_2026_03_01_01_00', 'Layer_roads']);
    expect(q.map((l) => [l.name, l.valid, l.count, l.crs])).toEqual([
      ['cafes_in_Fulda_2026_03_01_01_00', true, 20, 'EPSG:4326'],
      ['Layer_roads', true, 3, 'EPSG:4326'],
    ]);
  });
});
