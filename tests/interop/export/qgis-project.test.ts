import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { unzipSync, strFromU8 } from 'fflate';
import jpeg from 'jpeg-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startExport } from '../../../electron/export/job';
import { estimateProject, type ProjectOptions } from '../../../electron/export/project';
import type { ExportLayer, LayerProvenance } from '../../../electron/export/types';
import type { ComputeFeature } from '../../../shared/service/compute';
import { validateGpkg } from './tools';
import { fillSource, finished, openSide, packService, type AppSide } from '../../support/pack-fixture';

const here = dirname(fileURLToPath(import.meta.url));
const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'fieldlens-qgz-'));
const packPath = join(dir, 'area.gpkg');
const projectDir = join(dir, 'project');
const qgzPath = join(projectDir, 'fulda.qgz');
const zipPath = join(dir, 'fulda-qfield.zip');
const RENDER = process.env['FIELDLENS_QGIS_RENDER'] ?? join(dir, 'render.png');
const SIZE = 640;

// The basemap tiles of the area pack: one flat colour, so it can be told apart from every symbol.
const TILE_RGB = [214, 229, 200] as const;
function flatTile(): Buffer {
  const data = Buffer.alloc(256 * 256 * 4);
  for (let i = 0; i < data.length; i += 4) data.set([...TILE_RGB, 255], i);
  return Buffer.from(jpeg.encode({ data, width: 256, height: 256 }, 95).data);
}

const props = (id: string, name: string, attributes: Record<string, unknown>): ComputeFeature['properties'] => ({
  source_id: `test:${id}`,
  name,
  address: '',
  score: 1,
  distance_meters: 0,
  source: { name: 'test', url: '' },
  attributes,
});
const point = (id: string, lon: number, lat: number, name: string, attributes: Record<string, unknown>): ComputeFeature => ({
  type: 'Feature',
  id,
  geometry: { type: 'Point', coordinates: [lon, lat] },
  properties: props(id, name, attributes),
});
const cafes = Array.from({ length: 8 }, (_, i) =>
  point(`c${i}`, 10.3 + 0.13 * (i % 4), 50.4 + 0.12 * Math.floor(i / 4), `Café ${i}`, { kind: i % 2 ? 'bakery' : 'cafe', seats: 10 + i }),
);
const sites = [10.35, 10.5, 10.65].map((lon, i) => point(`s${i}`, lon, 50.65, `Site ${i}`, { owner: 'survey' }));
const zone: ComputeFeature = {
  type: 'Feature',
  id: 'z1',
  geometry: { type: 'Polygon', coordinates: [[[10.4, 50.22], [10.6, 50.22], [10.6, 50.3], [10.4, 50.3], [10.4, 50.22]]] },
  properties: props('z1', 'Survey zone', { landuse: 'meadow' }),
};

const provenance = (queryText: string, evidenceSha256: string | null): LayerProvenance => ({
  queryText,
  kind: 'compute',
  time: '2026-03-01T10:00:00.000Z',
  profileLabel: 'Local',
  baseUrl: 'http://127.0.0.1:8787/',
  searchBaseUrl: 'http://127.0.0.1:8787/',
  evidenceSha256,
});
const EVIDENCE = 'ab'.repeat(32);
const layers = (): ExportLayer[] => [
  { kind: 'compute', name: 'cafes in Fulda', features: cafes, count: cafes.length, provenance: provenance('cafes in Fulda', EVIDENCE) },
  { kind: 'compute', name: 'sites.csv', features: sites, count: sites.length, provenance: provenance('upload sites.csv', null) },
  { kind: 'compute', name: 'survey zone', features: [zone], count: 1 },
];
// How the map draws them: cafés coloured by their uploaded kind, the upload by rank (a colour
// for each of the three places), the zone in one colour.
const STYLE = {
  cafe: '#e8710a',
  bakery: '#7b3fb5',
  sites: '#8c564b',
  ranks: ['#8c2d04', '#d94801', '#f16913'],
  zone: '#0f8b6e',
};
const MAP_EXTENT: [number, number, number, number] = [10.25, 50.25, 10.75, 50.75];
const options = (basemap: ProjectOptions['basemap'], editable = false, bakeriesShown = true): ProjectOptions => ({
  basemap,
  extent: MAP_EXTENT,
  editable,
  styles: [
    {
      by: 'column',
      colour: STYLE.cafe,
      column: 'attributes.kind',
      classes: [
        { value: 'cafe', colour: STYLE.cafe, shown: true },
        { value: 'bakery', colour: STYLE.bakery, shown: bakeriesShown },
      ],
      other: null,
    },
    { by: 'rank', colour: STYLE.sites, classes: STYLE.ranks.map((colour, i) => ({ first: i + 1, last: i + 1, colour, shown: true })) },
    { by: 'layer', colour: STYLE.zone },
  ],
});

interface Sample {
  id: string | null;
  value: Record<string, string | null>;
  pixel: [number, number];
  colour: [number, number, number, number] | null;
}
interface Seen {
  read: boolean;
  crs: string;
  view: [number, number, number, number];
  order: string[];
  title: string;
  abstract: string;
  layers: {
    name: string;
    valid: boolean;
    type: string;
    source: string;
    provider: string;
    abstract: string;
    readOnly: boolean;
    count?: number;
    fields?: string[];
    renderer?: string;
    attr?: string;
    colours?: Record<string, string>;
    shown?: Record<string, boolean>;
    ranges?: [number, number, string, boolean][];
    labels?: boolean;
    labelField?: string | null;
    extent: [number, number, number, number];
    samples?: Sample[];
  }[];
  basemapCorners: ([number, number, number, number] | null)[];
}

async function openInQgis(project: string, png: string): Promise<Seen> {
  const { stdout } = await run('/usr/bin/python3', [join(here, 'py/qgis_project.py'), project, png, String(SIZE), String(SIZE)], {
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, QT_QPA_PLATFORM: 'offscreen', XDG_RUNTIME_DIR: process.env['XDG_RUNTIME_DIR'] ?? '/tmp' },
  });
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as Seen;
}

const rgb = (hex: string) => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
const near = (got: readonly number[] | null, want: readonly number[], tol: number) =>
  got !== null && want.every((v, i) => Math.abs(got[i]! - v) <= tol);

let side: AppSide;
let seen: Seen;

beforeAll(async () => {
  side = openSide(join(dir, 'data'));
  await fillSource(side);
  const h = packService(side, { fetchTile: async () => flatTile() });
  const { jobId } = await h.service.create({ area: { bbox: [10, 50, 11, 51] }, maxTileZoom: 8 }, packPath);
  const end = await finished(h, jobId);
  if (end.state !== 'done') throw new Error(`pack ${end.state}: ${end.error?.message}`);
  mkdirSync(projectDir);
  await startExport({ layers: layers(), format: 'qgz', destination: qgzPath, project: options({ kind: 'pack', path: packPath }) });
  seen = await openInQgis(qgzPath, RENDER);
}, 120_000);

afterAll(() => {
  side?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('a QGIS project export opened in headless QGIS', () => {
  it('is a .qgz beside one GeoPackage, with relative sources', () => {
    expect(readdirSync(projectDir).sort()).toEqual(['fulda.gpkg', 'fulda.qgz']);
    const inside = unzipSync(readFileSync(qgzPath));
    expect(Object.keys(inside)).toEqual(['fulda.qgs']);
    const xml = strFromU8(inside['fulda.qgs']!);
    expect(xml).toContain('<datasource>./fulda.gpkg|layername=cafes_in_Fulda</datasource>');
    expect(xml).not.toContain(dir);
    expect(seen.read).toBe(true);
  });

  it("keeps a GeoPackage that passes GDAL's validate_gpkg.py with the basemap tiles in it", async () => {
    const r = await validateGpkg(join(projectDir, 'fulda.gpkg'));
    expect(r.output).toBe('');
    expect(r.code).toBe(0);
  });

  it('has every layer valid, in the map order, with the input counts and fields', () => {
    // Then the basemap group: place names, the pack's tiles, the offline tables.
    expect(seen.order.slice(0, 3)).toEqual(['cafes in Fulda', 'sites.csv', 'survey zone']);
    expect(seen.order.slice(3).filter((n) => n === 'Basemap')).toEqual(['Basemap']);
    expect(seen.order.at(-1)).toBe('Natural Earth land');
    const [c, s, z] = seen.layers;
    expect([c, s, z].map((l) => [l!.valid, l!.count, l!.type, l!.readOnly])).toEqual([
      [true, cafes.length, 'vector', true],
      [true, sites.length, 'vector', true],
      [true, 1, 'vector', true],
    ]);
    expect(c!.fields).toEqual(expect.arrayContaining(['feature_id', 'name', ...Object.keys(cafes[0]!.properties!['attributes'] as object)]));
    expect(s!.fields).toEqual(expect.arrayContaining(['name', 'owner']));
    expect(z!.fields).toEqual(expect.arrayContaining(['name', 'landuse']));
    for (const l of [c, s, z]) expect(l!.source).toMatch(new RegExp(`${projectDir}/fulda\\.gpkg\\|layername=`));
  });

  it('styles each layer as the map does, with labels by name', () => {
    const [c, s, z] = seen.layers;
    expect(c!.renderer).toBe('categorizedSymbol');
    expect(c!.attr).toBe('kind');
    // The uploaded attribute as its GeoPackage column; values it has no category for in the layer's colour.
    expect(c!.colours).toEqual({ cafe: STYLE.cafe, bakery: STYLE.bakery, '': STYLE.cafe });
    expect(c!.shown).toEqual({ cafe: true, bakery: true, '': true });
    // Ranks as ranges of the GeoPackage's feature ids, numbered in the service's order.
    expect([s!.renderer, s!.attr, s!.ranges]).toEqual([
      'graduatedSymbol',
      'fid',
      [
        [1, 1, STYLE.ranks[0], true],
        [2, 2, STYLE.ranks[1], true],
        [3, 3, STYLE.ranks[2], true],
      ],
    ]);
    expect([z!.renderer, z!.colours]).toEqual(['singleSymbol', { '': STYLE.zone }]);
    for (const l of [c, s, z]) expect([l!.labels, l!.labelField]).toEqual([true, 'name']);
  });

  it('keeps provenance in the layer abstracts, the project metadata and the GeoPackage', () => {
    const c = seen.layers[0]!;
    expect(c.abstract).toContain('Question: cafes in Fulda');
    expect(c.abstract).toContain('Asked: 2026-03-01T10:00:00.000Z');
    expect(c.abstract).toContain('Connection: Local (http://127.0.0.1:8787/)');
    expect(c.abstract).toContain(`Evidence SHA-256: ${EVIDENCE}`);
    expect(seen.layers[1]!.abstract).not.toContain('Evidence');
    expect(seen.abstract).toContain('upload sites.csv');
    const db = new Database(join(projectDir, 'fulda.gpkg'), { readonly: true });
    try {
      const rows = db.prepare('SELECT layer_name, query_text, evidence_sha256, feature_count FROM fieldlens_provenance ORDER BY id').raw().all();
      expect(rows).toEqual([
        ['cafes in Fulda', 'cafes in Fulda', EVIDENCE, 8],
        ['sites.csv', 'upload sites.csv', null, 3],
        ['survey zone', null, null, 1],
      ]);
    } finally {
      db.close();
    }
  });

  it('opens in EPSG:3857 on an extent fitted to the features', () => {
    expect(seen.crs).toBe('EPSG:3857');
    const [x0, y0, x1, y1] = seen.view;
    const merc = (lon: number, lat: number) => [(6378137 * lon * Math.PI) / 180, 6378137 * Math.log(Math.tan(Math.PI / 4 + (lat * Math.PI) / 360))];
    // The features span 10.3-10.69 E, 50.22-50.65 N: the view holds them with a margin, not the map's wider extent.
    const [fx0, fy0] = merc(10.3, 50.22);
    const [fx1, fy1] = merc(10.69, 50.65);
    expect(x1 - x0).toBeLessThan((fx1! - fx0!) * 1.3);
    expect(y1 - y0).toBeLessThan((fy1! - fy0!) * 1.3);
    for (const f of [...cafes, ...sites, zone]) {
      const ring = f.geometry!.type === 'Point' ? [f.geometry!.coordinates as number[]] : (f.geometry!.coordinates as number[][][])[0]!;
      for (const [lon, lat] of ring) {
        const [x, y] = merc(lon!, lat!);
        expect(x! > x0 && x! < x1 && y! > y0 && y! < y1, `${f.id} inside the project extent`).toBe(true);
      }
    }
  });

  it('draws the offline basemap from the area pack and each feature in its colour', () => {
    const base = seen.layers.find((l) => l.name === 'Basemap')!;
    expect([base.valid, base.type, base.provider]).toEqual([true, 'raster', 'gdal']);
    expect(base.source).toContain(`${projectDir}/fulda.gpkg`);
    for (const corner of seen.basemapCorners) expect(near(corner, TILE_RGB, 6), `basemap pixel ${corner}`).toBe(true);
    const [c, s, z] = seen.layers;
    for (const p of c!.samples!) {
      const want = rgb(p.value['kind'] === 'bakery' ? STYLE.bakery : STYLE.cafe);
      expect(near(p.colour, want, 10), `${p.id} at ${p.pixel}: ${p.colour} for ${want}`).toBe(true);
    }
    // Site s<i> is the (i+1)-th result: the rank colour of its place.
    expect(s!.samples!.map((p) => p.id)).toEqual(sites.map((f) => f.id));
    for (const p of s!.samples!) expect(near(p.colour, rgb(STYLE.ranks[Number(p.id!.slice(1))]!), 10), `${p.id}: ${p.colour}`).toBe(true);
    // A fill of 20 % opacity over the basemap.
    const blend = rgb(STYLE.zone).map((v, i) => 0.2 * v + 0.8 * TILE_RGB[i]!);
    expect(near(z!.samples![0]!.colour, blend, 8), `zone: ${z!.samples![0]!.colour} for ${blend}`).toBe(true);
    expect(readFileSync(RENDER).subarray(1, 4).toString()).toBe('PNG');
  });
});

describe('a QField package', () => {
  it('holds project, data and basemap in one ZIP that opens in QGIS, editable when asked, a class turned off in the legend off', async () => {
    await startExport({ layers: layers(), format: 'qfield', destination: zipPath, project: options({ kind: 'pack', path: packPath }, true, false) });
    const files = unzipSync(readFileSync(zipPath));
    expect(Object.keys(files).sort()).toEqual(['fulda-qfield.gpkg', 'fulda-qfield.qgz']);
    const out = join(dir, 'qfield');
    mkdirSync(out);
    for (const [name, bytes] of Object.entries(files)) writeFileSync(join(out, name), bytes);
    const q = await openInQgis(join(out, 'fulda-qfield.qgz'), join(dir, 'qfield.png'));
    expect(q.layers.filter((l) => !l.name.startsWith('Natural Earth') && l.name !== 'Places').map((l) => [l.name, l.valid, l.count ?? null, l.readOnly])).toEqual([
      ['cafes in Fulda', true, 8, false],
      ['sites.csv', true, 3, false],
      ['survey zone', true, 1, false],
      // Raster layers are never editable.
      ['Basemap', true, null, true],
    ]);
    // The offline basemap is drawn, never edited.
    expect(q.layers.filter((l) => l.name.startsWith('Natural Earth')).map((l) => [l.valid, l.readOnly])).toEqual([
      [true, true],
      [true, true],
    ]);
    for (const corner of q.basemapCorners) expect(near(corner, TILE_RGB, 6)).toBe(true);
    expect(q.layers[0]!.shown).toEqual({ cafe: true, bakery: false, '': true });
    const bakeries = q.layers[0]!.samples!.filter((p) => p.value['kind'] === 'bakery');
    expect(bakeries).toHaveLength(4);
    for (const p of bakeries) expect(near(p.colour, rgb(STYLE.bakery), 40), `${p.id} drawn while turned off`).toBe(false);
  }, 120_000);

  it('estimates its size from the inputs and the pack', () => {
    const est = estimateProject(layers(), packPath);
    expect(est.features).toBe(cafes.length + sites.length + 1);
    const tiles = new Database(packPath, { readonly: true });
    const tileBytes = tiles.prepare('SELECT sum(length(tile_data)) FROM basemap_tiles').pluck().get() as number;
    tiles.close();
    // The tiles themselves and the pages of the table holding them, and the offline tables as written.
    const gpkg = new Database(join(projectDir, 'fulda.gpkg'), { readonly: true });
    const tables = gpkg.prepare("SELECT table_name FROM gpkg_contents WHERE table_name LIKE 'basemap_%' AND data_type = 'features'").pluck().all() as string[];
    const offline = tables.reduce((sum, t) => sum + (gpkg.prepare(`SELECT sum(pgsize) FROM dbstat WHERE name = ? OR name LIKE ?`).pluck().get(t, `rtree_${t}_%`) as number), 0);
    gpkg.close();
    console.log(JSON.stringify({ basemap_estimate: est.basemapBytes, tiles: tileBytes, offline_tables: offline }));
    expect(est.basemapBytes).toBeGreaterThanOrEqual(tileBytes + 0.75 * offline);
    expect(est.basemapBytes).toBeLessThan(tileBytes + 64 * 1024 + 1.33 * offline);
    const actual = readFileSync(join(projectDir, 'fulda.gpkg')).length + readFileSync(qgzPath).length;
    const zip = readFileSync(zipPath).length;
    console.log(JSON.stringify({ estimate_bytes: est.bytes, project_folder_bytes: actual, qfield_zip_bytes: zip, ratio: +(est.bytes / actual).toFixed(3) }));
    expect(est.bytes / actual).toBeGreaterThan(0.75);
    expect(est.bytes / actual).toBeLessThan(1.33);
  });

  it('names the online OpenStreetMap tiles when online is chosen', async () => {
    const dest = join(dir, 'online.zip');
    await startExport({
      layers: layers(),
      format: 'qfield',
      destination: dest,
      project: options({ kind: 'online', url: 'https://tile.openstreetmap.org/{z}/{x}/{y}.png' }),
    });
    const qgz = unzipSync(unzipSync(readFileSync(dest))['online.qgz']!);
    const xml = strFromU8(qgz['online.qgs']!);
    expect(xml).toContain('type=xyz&amp;url=https://tile.openstreetmap.org/%7Bz%7D/%7Bx%7D/%7By%7D.png');
    expect(xml).toContain('<provider>wms</provider>');
  });
});
