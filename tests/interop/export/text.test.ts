import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { check } from '@placemarkio/check-geojson';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExportCancelledError, startExport } from '../../../electron/export/job';
import type { ExportLayer } from '../../../electron/export/types';
import type { ComputeFeature } from '../../../shared/service/compute';
import { expectComputeRow, expectImageryRow, expectObservationRow, expectSameGeometry } from './expect';
import { imagery, mixedFeatures, observations, pointFeatures } from './features';
import { loadInQgis, ogrinfo, parseOgrinfo, readWithOgr, type OgrFeature } from './tools';

const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'fieldlens-text-'));
const points = pointFeatures(1500, 11);
const mixed = mixedFeatures();
const obs = observations(30);
const img = imagery(12);

const layers = (): ExportLayer[] => [
  { name: 'Cafés near Zürich?', kind: 'compute', features: points, count: points.length },
  { name: 'Mixed shapes', kind: 'compute', features: mixed, count: mixed.length },
  { name: 'Crosswalks', kind: 'stream', features: obs, count: obs.length },
  { name: 'Street imagery', kind: 'imagery', features: img, count: img.length },
];
const total = points.length + mixed.length + obs.length + img.length;

const files = { geojson: join(dir, 'all.geojson'), ndjson: join(dir, 'all.geojsonl'), csv: join(dir, 'all.csv') };

beforeAll(async () => {
  for (const format of ['geojson', 'ndjson', 'csv'] as const) {
    const s = await startExport({ layers: layers(), format, destination: files[format] });
    expect(s.features).toBe(total);
  }
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Input features in file order, tagged with their layer. */
const inputs: { layer: string; kind: ExportLayer['kind']; item: ComputeFeature | (typeof obs)[number] | (typeof img)[number] }[] = [
  ...points.map((item) => ({ layer: 'Cafés near Zürich?', kind: 'compute' as const, item })),
  ...mixed.map((item) => ({ layer: 'Mixed shapes', kind: 'compute' as const, item })),
  ...obs.map((item) => ({ layer: 'Crosswalks', kind: 'stream' as const, item })),
  ...img.map((item) => ({ layer: 'Street imagery', kind: 'imagery' as const, item })),
];

/** Uploaded columns of one type in every feature that has them: GDAL reads each back as it was. */
const FLAT_KEYS = ['rank', 'height', 'kind', 'count', 'label'];

function expectRoundTrip(features: OgrFeature[], fromJson: boolean) {
  expect(features.length).toBe(total);
  features.forEach((f, i) => {
    const { layer, kind, item } = inputs[i]!;
    expect(f.properties['layer']).toBe(layer);
    if (kind === 'compute') {
      const c = item as ComputeFeature;
      expectSameGeometry(f.geometry, c.geometry, c.id);
      if (fromJson) {
        // GeoJSON keeps the service's nested members as they were (GDAL reads them back as JSON
        // strings) and the uploaded columns flat.
        expect(f.properties['id']).toBe(c.id);
        expect(f.properties['attributes']).toBeUndefined();
        for (const k of FLAT_KEYS) if (k in c.properties.attributes) expect(f.properties[k], `${c.id} ${k}`).toBe(c.properties.attributes[k]);
        expect(JSON.parse(String(f.properties['source']))).toEqual(c.properties.source);
        expect(f.properties['name']).toBe(c.properties.name);
        expect(f.properties['score']).toBe(c.properties.score);
      } else expectComputeRow(f.properties, c, Object.fromEntries(Object.keys(c.properties.attributes).map((k) => [k, k])));
    } else if (kind === 'stream') {
      const o = item as (typeof obs)[number];
      expectSameGeometry(f.geometry, o.geometry, o.id);
      if (fromJson) {
        expect(f.properties['id']).toBe(o.id);
        expect(f.properties['feature_name']).toBe(o.properties.feature_name);
        expect(f.properties['duration']).toBe(o.properties.duration);
      } else expectObservationRow(f.properties, o);
    } else {
      const r = item as (typeof img)[number];
      expectSameGeometry(f.geometry, r.geometry, r.id);
      if (fromJson) {
        expect(f.properties['id']).toBe(r.id);
        expect(f.properties['image']).toBe(r.image);
        expect(f.properties['compass']).toBe(r.compass);
      } else expectImageryRow(f.properties, r);
    }
  });
}

describe('GeoJSON export', () => {
  it('is an RFC 7946 FeatureCollection that passes check-geojson, without a crs member', () => {
    const text = readFileSync(files.geojson, 'utf8');
    const gj = check(text) as { type: string; features: { id: unknown; properties: Record<string, unknown> }[] };
    expect(gj.type).toBe('FeatureCollection');
    expect(gj.features.length).toBe(total);
    expect(text).not.toMatch(/"crs"/);
    expect(gj.features[0]!.id).toBe('f-0');
    expect(gj.features.at(-1)!.properties).toMatchObject({ layer: 'Street imagery', compass_degrees: expect.any(Number) });
  });

  it('ogrinfo reads every feature and field', async () => {
    const [layer] = parseOgrinfo(await ogrinfo(['-so', '-al', files.geojson]));
    expect(layer).toMatchObject({ name: 'all', count: total });
    expect(layer!.fields).toMatchObject({ layer: 'String', name: 'String', score: 'Real', rank: 'Integer', label: 'String' });
    expect(layer!.fields['attributes']).toBeUndefined();
  });

  it('round-trips through GDAL (ogr2ogr to GeoJSON on stdout)', async () => {
    const { stdout } = await run('ogr2ogr', ['-f', 'GeoJSON', '/vsistdout/', files.geojson, '-lco', 'SIGNIFICANT_FIGURES=17'], {
      maxBuffer: 128 * 1024 * 1024,
    });
    const back = JSON.parse(stdout) as { features: { geometry: OgrFeature['geometry']; properties: Record<string, unknown> }[] };
    // ogr2ogr keeps nested objects as objects in GeoJSON output: compare those directly.
    back.features.forEach((f, i) => {
      const { item, layer, kind } = inputs[i]!;
      expect(f.properties['layer']).toBe(layer);
      expectSameGeometry(f.geometry, item.geometry, `${i}`);
      if (kind === 'compute') {
        const attributes = (item as ComputeFeature).properties.attributes;
        for (const k of FLAT_KEYS) if (k in attributes) expect(f.properties[k]).toEqual(attributes[k]);
      }
    });
    expectRoundTrip((await readWithOgr(files.geojson))['all']!.features, true);
  });

  it('loads in headless QGIS', async () => {
    const [q] = await loadInQgis(files.geojson, ['']);
    expect(q).toMatchObject({ valid: true, crs: 'EPSG:4326' });
    // A mixed-geometry file: QGIS takes the first geometry type's features on a plain load.
    expect(q!.count).toBeGreaterThan(0);
    expect(q!.fields).toEqual(expect.arrayContaining(['layer', 'id', 'name', 'score', 'rank']));
  }, 60_000);
});

describe('newline-delimited GeoJSON export', () => {
  it('holds one valid Feature per line and reads back through GDAL', async () => {
    const lines = readFileSync(files.ndjson, 'utf8').trimEnd().split('\n');
    expect(lines.length).toBe(total);
    for (const line of lines.slice(0, 50)) expect((check(line) as { type: string }).type).toBe('Feature');
    const [layer] = parseOgrinfo(await ogrinfo(['-so', '-al', files.ndjson]));
    expect(layer!.count).toBe(total);
    expectRoundTrip(Object.values(await readWithOgr(files.ndjson))[0]!.features, true);
  });
});

describe('CSV export', () => {
  it('has lon/lat for points and WKT for other geometries, read by GDAL', async () => {
    const byXY = Object.values(await readWithOgr(files.csv, ['X_POSSIBLE_NAMES=lon', 'Y_POSSIBLE_NAMES=lat', 'AUTODETECT_TYPE=YES']))[0]!;
    expect(byXY.count).toBe(total);
    expect(byXY.fields.map((f) => f.name).slice(0, 6)).toEqual(['layer', 'layer_kind', 'feature_id', 'lon', 'lat', 'wkt']);
    // Uploaded attributes are columns of their own (the names GeoPackage gives them), not one JSON column.
    expect(byXY.fields.map((f) => f.name)).toEqual(expect.arrayContaining(['rank', 'height', 'kind', 'mixed', 'nested', 'attr_Name', 'attr_GEOM']));
    expect(byXY.fields.map((f) => f.name)).not.toContain('attributes');
    const byWkt = Object.values(await readWithOgr(files.csv, ['GEOM_POSSIBLE_NAMES=wkt', 'KEEP_GEOM_COLUMNS=NO']))[0]!;
    byXY.features.forEach((f, i) => {
      const { item, kind } = inputs[i]!;
      const g = item.geometry;
      if (g.type === 'Point') expectSameGeometry(f.geometry, g, `${i}`);
      else expectSameGeometry(byWkt.features[i]!.geometry, g, `${i}`);
      if (kind === 'compute') {
        const c = item as ComputeFeature;
        expect(f.properties['feature_id']).toBe(c.id);
        expect(f.properties['name']).toBe(c.properties.name);
        expect(Number(f.properties['score'])).toBe(c.properties.score);
        // Read without type detection: every cell as the text the file holds.
        const row = byWkt.features[i]!.properties;
        for (const [k, v] of Object.entries(c.properties.attributes)) {
          const got = row[k === 'Name' || k === 'GEOM' ? `attr_${k}` : k];
          const where = `${c.id}.${k}`;
          // CSV has no null: an empty cell.
          if (v === null) expect(got ?? '', where).toBe('');
          else if (typeof v === 'object') expect(JSON.parse(String(got)), where).toEqual(v);
          else if (typeof v === 'number') expect(Number(got), where).toBe(v);
          else if (typeof v === 'boolean') expect(got, where).toBe(v ? '1' : '0');
          else expect(got, where).toBe(v);
        }
      } else expect(f.properties['feature_id']).toBe(String(item.id));
    });
  });
});

describe('text export cancellation', () => {
  it('removes the partial file', async () => {
    const cdir = mkdtempSync(join(tmpdir(), 'fieldlens-cancel-'));
    const controller = new AbortController();
    const big = pointFeatures(100_000, 5);
    const p = startExport(
      { layers: [{ name: 'big', kind: 'compute', features: big, count: big.length }], format: 'geojson', destination: join(cdir, 'big.geojson') },
      { signal: controller.signal, progressIntervalMs: 0, onProgress: (x) => x.written > 10_000 && controller.abort() },
    );
    await expect(p).rejects.toBeInstanceOf(ExportCancelledError);
    expect(readdirSync(cdir)).toEqual([]);
    rmSync(cdir, { recursive: true, force: true });
  });
});
