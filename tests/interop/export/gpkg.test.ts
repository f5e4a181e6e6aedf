import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gpkgGeometry } from '../../../electron/export/geometry';
import { ExportCancelledError, startExport } from '../../../electron/export/job';
import type { ExportLayer, ExportProgress, ExportSummary, LayerProvenance } from '../../../electron/export/types';
import { CATEGORY_COLOURS } from '../../../shared/map/symbology';
import type { ComputeFeature } from '../../../shared/service/compute';
import { expectComputeRow, expectImageryRow, expectObservationRow, expectSameGeometry } from './expect';
import { imagery, mixedFeatures, observations, pointFeatures } from './features';
import { loadInQgis, ogrinfo, parseOgrinfo, readWithOgr, validateGpkg, type OgrLayer } from './tools';

const dir = mkdtempSync(join(tmpdir(), 'fieldlens-gpkg-'));
const path = join(dir, 'export.gpkg');

const points = pointFeatures(3000, 7);
const mixed = mixedFeatures();
const obs = observations(40);
const img = imagery(25);

const provenance = (queryText: string, kind: LayerProvenance['kind']): LayerProvenance => ({
  queryText,
  kind,
  remoteId: '7f1c2a8e-0000-4000-8000-000000000001',
  resultId: 'res-42',
  searchId: null,
  time: '2026-03-01T10:00:00.000Z',
  profileLabel: 'Remote (staging)',
  // Credentials in a URL must never reach the file.
  baseUrl: 'https://analyst:SECRETPASS@api.example.com/base?api_key=SECRETKEY&region=eu',
  searchBaseUrl: 'https://search.example.com/',
});

async function* slowly<T>(items: T[]): AsyncGenerator<T> {
  for (const x of items) yield await Promise.resolve(x);
}

const layers: ExportLayer[] = [
  { name: 'Cafés near Zürich?', kind: 'compute', features: points, count: points.length, provenance: provenance('Cafés near Zürich?', 'compute') },
  { name: 'Mixed shapes', kind: 'compute', features: slowly(mixed), provenance: provenance('mixed shapes', 'compute') },
  { name: 'Mixed shapes', kind: 'compute', features: [] },
  { name: 'gpkg_contents', kind: 'stream', features: obs, provenance: provenance('crosswalks', 'stream') },
  { name: 'Street imagery', kind: 'imagery', features: img, provenance: provenance('street views', 'imagery') },
];

let summary: ExportSummary;
const progress: ExportProgress[] = [];
let read: Record<string, OgrLayer>;

beforeAll(async () => {
  summary = await startExport({ layers, format: 'gpkg', destination: path }, { onProgress: (p) => progress.push(p), progressIntervalMs: 0 });
  read = await readWithOgr(path);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('GeoPackage export', () => {
  it('reports sanitized, unique table names and counts', () => {
    expect(summary.layers.map((l) => [l.table, l.name, l.count, l.geometryType])).toEqual([
      ['Cafés_near_Zürich', 'Cafés near Zürich?', 3000, 'POINT'],
      ['Mixed_shapes', 'Mixed shapes', 6, 'GEOMETRY'],
      ['Mixed_shapes_2', 'Mixed shapes (2)', 0, 'GEOMETRY'],
      ['layer_gpkg_contents', 'gpkg_contents', 40, 'POINT'],
      ['Street_imagery', 'Street imagery', 25, 'POINT'],
    ]);
    expect(summary.features).toBe(3071);
    expect(readdirSync(dir)).toEqual(['export.gpkg']);
    expect(summary.bytes).toBeGreaterThan(0);
  });

  it('reports progress up to the total', () => {
    expect(progress.length).toBeGreaterThan(2);
    expect(progress.at(-1)).toMatchObject({ written: 3071 });
    // One layer has no count, so no total is promised.
    expect(progress.every((p) => p.total === null)).toBe(true);
    const written = progress.map((p) => p.written);
    expect([...written].sort((a, b) => a - b)).toEqual(written);
  });

  it("passes GDAL's validate_gpkg.py with extra checks and warnings as errors", async () => {
    const r = await validateGpkg(path);
    expect(r.output).toBe('');
    expect(r.code).toBe(0);
  });

  it('has the GeoPackage header, SRS rows, real bounds and R-tree indexes', () => {
    const db = new Database(path, { readonly: true });
    try {
      expect(db.pragma('application_id', { simple: true })).toBe(0x47504b47);
      expect(db.pragma('user_version', { simple: true })).toBe(10300);
      expect(db.prepare('SELECT srs_id FROM gpkg_spatial_ref_sys ORDER BY srs_id').pluck().all()).toEqual([-1, 0, 4326]);
      const c = db.prepare("SELECT * FROM gpkg_contents WHERE table_name = 'Cafés_near_Zürich'").get() as Record<string, number>;
      const xs = points.map((f) => (f.geometry as { coordinates: number[] }).coordinates[0]!);
      const ys = points.map((f) => (f.geometry as { coordinates: number[] }).coordinates[1]!);
      expect([c['min_x'], c['min_y'], c['max_x'], c['max_y']]).toEqual([Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)]);
      const inBox = db
        .prepare('SELECT count(*) FROM "rtree_Cafés_near_Zürich_geom" WHERE minx >= 0 AND maxx <= 10 AND miny >= 40 AND maxy <= 50')
        .pluck()
        .get();
      const expected = xs.filter((x, i) => x >= 0 && x <= 10 && ys[i]! >= 40 && ys[i]! <= 50).length;
      // R-tree boxes are float32, rounded outwards: allow the few points on the edge.
      expect(Math.abs((inBox as number) - expected)).toBeLessThanOrEqual(2);
      expect(db.prepare("SELECT count(*) FROM gpkg_extensions WHERE extension_name = 'gpkg_rtree_index'").pluck().get()).toBe(5);
      for (const l of summary.layers)
        expect(db.prepare('SELECT rtreecheck(?)').pluck().get(`rtree_${l.table}_geom`), l.table).toBe('ok');
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    } finally {
      db.close();
    }
  });

  it('keeps the R-tree in step when GDAL edits fire the standard triggers', async () => {
    const copy = join(dir, 'edit.gpkg');
    copyFileSync(path, copy);
    const hex = gpkgGeometry({ type: 'Point', coordinates: [100.5, 10.25] }).blob.toString('hex');
    await ogrinfo([copy, '-sql', `UPDATE "Street_imagery" SET geom = X'${hex}' WHERE fid = 1`]);
    await ogrinfo([copy, '-sql', 'DELETE FROM "Street_imagery" WHERE fid = 2']);
    const db = new Database(copy, { readonly: true });
    try {
      const rows = db.prepare('SELECT id, minx, maxx, miny, maxy FROM "rtree_Street_imagery_geom" WHERE id IN (1, 2)').all();
      expect(rows).toEqual([{ id: 1, minx: 100.5, maxx: 100.5, miny: 10.25, maxy: 10.25 }]);
      expect(db.prepare('SELECT count(*) FROM "rtree_Street_imagery_geom"').pluck().get()).toBe(24);
    } finally {
      db.close();
      rmSync(copy);
    }
  });

  it('answers spatial filters through the R-tree in GDAL', async () => {
    const out = await ogrinfo(['-so', '-spat', '0', '40', '10', '50', path, 'Cafés_near_Zürich']);
    const xy = points.map((f) => (f.geometry as { coordinates: number[] }).coordinates);
    const want = xy.filter(([x, y]) => x! >= 0 && x! <= 10 && y! >= 40 && y! <= 50).length;
    expect(Number(/Feature Count: (\d+)/.exec(out)?.[1])).toBe(want);
  });

  it('ogrinfo lists the expected layers, counts and field types', async () => {
    const info = parseOgrinfo(await ogrinfo(['-so', '-al', path]));
    expect(info.map((l) => [l.name, l.count, l.geometry])).toEqual([
      ['Cafés_near_Zürich', 3000, 'Point'],
      ['Mixed_shapes', 6, 'Unknown (any)'],
      ['Mixed_shapes_2', 0, 'Unknown (any)'],
      ['layer_gpkg_contents', 40, 'Point'],
      ['Street_imagery', 25, 'Point'],
      ['layer_styles', 5, 'None'],
      ['fieldlens_provenance', 5, 'None'],
    ]);
    expect(info[0]!.fields).toEqual({
      feature_id: 'String',
      source_id: 'String',
      name: 'String',
      address: 'String',
      score: 'Real',
      distance_meters: 'Real',
      source_name: 'String',
      source_url: 'String',
      rank: 'Integer64',
      height: 'Real',
      kind: 'String',
    });
    expect(info[1]!.fields).toMatchObject({ count: 'Integer64', ratio: 'Real', level: 'Real', label: 'String', open: 'Integer(Boolean)', sparse: 'String' });
    expect(info[1]!.fields).toMatchObject({ 'a.b': 'Integer64', "it's": 'String', 'höhe über NN': 'Integer64', attr_Name: 'String', attr_GEOM: 'Integer64' });
    // Text in some rows and numbers in others, or nested objects: TEXT columns.
    expect(info[1]!.fields).toMatchObject({ mixed: 'String', nested: 'String' });
    expect(info[1]!.fields).not.toHaveProperty('attributes');
    expect(info[3]!.fields).toMatchObject({ is_video: 'Integer(Boolean)', interactive: 'Integer(Boolean)', duration: 'Real', owner: 'String' });
    expect(info[4]!.fields).toEqual({
      feature_id: 'String',
      address: 'String',
      date: 'String',
      capture_date: 'Date',
      compass: 'String',
      compass_degrees: 'Real',
      interactive: 'Integer(Boolean)',
      image_url: 'String',
    });
  });

  it('round-trips features through GDAL: ids, coordinates within 1e-9 degrees, attributes', () => {
    const check = (table: string, input: ComputeFeature[], columns: Record<string, string>, text: string[] = []) => {
      const layer = read[table]!;
      expect(layer.features.length).toBe(input.length);
      layer.features.forEach((f, i) => {
        const want = input[i]!;
        expect(f.fid).toBe(i + 1);
        expectSameGeometry(f.geometry, want.geometry, `${table}/${want.id}`);
        expectComputeRow(f.properties, want, columns, text);
      });
    };
    check('Cafés_near_Zürich', points, { rank: 'rank', height: 'height', kind: 'kind' });
    const same = ['count', 'ratio', 'level', 'label', 'open', 'mixed', 'nested', 'sparse', 'a.b', "it's", 'höhe über NN'];
    check('Mixed_shapes', mixed, { ...Object.fromEntries(same.map((k) => [k, k])), Name: 'attr_Name', GEOM: 'attr_GEOM' }, ['mixed']);
    read['layer_gpkg_contents']!.features.forEach((f, i) => {
      expectSameGeometry(f.geometry, obs[i]!.geometry, obs[i]!.id);
      expectObservationRow(f.properties, obs[i]!);
    });
    read['Street_imagery']!.features.forEach((f, i) => {
      const r = img[i]!;
      expectSameGeometry(f.geometry, r.geometry, r.id);
      expectImageryRow(f.properties, r);
      const day = String((i % 28) + 1).padStart(2, '0');
      expect(String(f.properties['capture_date']).replace(/\//g, '-')).toBe(`2023-03-${day}`);
      expect(f.properties['compass_degrees']).toBe([0, 45, 202.5, 270][i % 4]);
    });
  });

  it('writes provenance without credentials, and a default style per layer', () => {
    const prov = read['fieldlens_provenance']!.features.map((f) => f.properties);
    expect(prov.map((p) => [p['table_name'], p['query_text'], p['kind'], p['feature_count']])).toEqual([
      ['Cafés_near_Zürich', 'Cafés near Zürich?', 'compute', 3000],
      ['Mixed_shapes', 'mixed shapes', 'compute', 6],
      ['Mixed_shapes_2', null, 'compute', 0],
      ['layer_gpkg_contents', 'crosswalks', 'stream', 40],
      ['Street_imagery', 'street views', 'imagery', 25],
    ]);
    expect(prov[0]).toMatchObject({
      remote_id: '7f1c2a8e-0000-4000-8000-000000000001',
      result_id: 'res-42',
      profile_label: 'Remote (staging)',
      base_url: 'https://api.example.com/base?region=eu',
      search_base_url: 'https://search.example.com/',
    });
    expect(String(prov[0]!['query_time'])).toMatch(/^2026\/03\/01 10:00:00/);
    const bytes = readFileSync(path).toString('latin1');
    expect(bytes).not.toContain('SECRET');
    const styles = read['layer_styles']!.features.map((f) => [f.properties['f_table_name'], f.properties['f_geometry_column'], f.properties['useAsDefault']]);
    expect(styles).toEqual(summary.layers.map((l) => [l.table, 'geom', 1]));
  });

  it('loads in headless QGIS with the right counts, fields, extents and default styles', async () => {
    const tables = ['Cafés_near_Zürich', 'layer_gpkg_contents', 'Street_imagery', 'Mixed_shapes'];
    const q = await loadInQgis(path, tables);
    expect(q.map((l) => [l.name, l.valid, l.count, l.crs])).toEqual([
      ['Cafés_near_Zürich', true, 3000, 'EPSG:4326'],
      ['layer_gpkg_contents', true, 40, 'EPSG:4326'],
      ['Street_imagery', true, 25, 'EPSG:4326'],
      ['Mixed_shapes', true, 6, 'EPSG:4326'],
    ]);
    for (const l of q.slice(0, 3)) {
      const layer = read[l.name]!;
      expect(l.fields).toEqual(['fid', ...layer.fields.map((f) => f.name)]);
      const [minX, maxX, minY, maxY] = layer.extent!;
      l.extent.forEach((v, i) => expect(Math.abs(v - [minX, minY, maxX, maxY][i]!)).toBeLessThan(1e-9));
    }
    // The stored QML was applied: with no style from the map, each answer (five, in order) in a colour of the app's palette of its own, named.
    expect(q.slice(0, 3).map((l) => l.color)).toEqual([0, 3, 4].map((i) => CATEGORY_COLOURS[i]));
    expect(q.slice(0, 3).map((l) => [l.labels, l.labelField])).toEqual([
      [true, 'name'],
      [true, 'feature_name'],
      [true, 'address'],
    ]);
    expect(q[3]!.fields).toContain('label');
  }, 60_000);
});

describe('GeoPackage export cancellation', () => {
  it('stops on abort and leaves no partial file', async () => {
    const cdir = mkdtempSync(join(tmpdir(), 'fieldlens-cancel-'));
    const controller = new AbortController();
    async function* endless(): AsyncGenerator<ComputeFeature> {
      for (let i = 0; ; i++) yield pointFeatures(1, i)[0]!;
    }
    const run = startExport(
      { layers: [{ name: 'endless', kind: 'compute', features: endless() }], format: 'gpkg', destination: join(cdir, 'x.gpkg') },
      {
        signal: controller.signal,
        progressIntervalMs: 0,
        onProgress: (p) => {
          if (p.written >= 5000) controller.abort();
        },
      },
    );
    await expect(run).rejects.toBeInstanceOf(ExportCancelledError);
    expect(readdirSync(cdir)).toEqual([]);
    rmSync(cdir, { recursive: true, force: true });
  });
});
