import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { strFromU8, unzipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startExport } from '../../../electron/export/job';
import type { ProjectOptions } from '../../../electron/export/project';
import type { ExportLayer } from '../../../electron/export/types';
import { RpcError } from '../../../shared/rpc/errors';
import { BASEMAP_PALETTES, STREET_PALETTES } from '../../../shared/basemap/palettes';
import type { ComputeFeature } from '../../../shared/service/compute';
import { fillSource, finished, openSide, packService, type AppSide } from '../../support/pack-fixture';
import { loadInQgis, validateGpkg } from './tools';

/**
 * Every kind of QGIS project the app writes, opened and drawn by headless QGIS with no network
 * (its own network namespace when the tests run as root, else proxies pointing nowhere): the
 * offline basemap draws, the answers in their classes' colours, the data layer's river as a line,
 * each name once.
 */

const here = dirname(fileURLToPath(import.meta.url));
const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'fieldlens-qgis-offline-'));
const OUT = process.env['FIELDLENS_QGIS_RENDER_DIR'] ?? dir;
const SIZE = 480;
const isRoot = process.getuid?.() === 0;

interface Sample {
  id: string | null;
  value: Record<string, string | null>;
  pixel: [number, number];
  colour: [number, number, number, number] | null;
}
interface Seen {
  read: boolean;
  title: string;
  view: [number, number, number, number];
  order: string[];
  background: string;
  renderMs: number;
  labels: { layer: string; text: string }[];
  basemapCorners: ([number, number, number, number] | null)[];
  layers: {
    id: string;
    name: string;
    valid: boolean;
    type: string;
    provider: string;
    source: string;
    shownInPanel: boolean;
    basemap: boolean;
    count?: number;
    labels?: boolean;
    renderer?: string;
    colours?: Record<string, string>;
    shown?: Record<string, boolean>;
    samples?: Sample[];
  }[];
}

/** Opens and draws a project in QGIS with the network out of reach. */
async function drawOffline(project: string, png: string): Promise<Seen> {
  const script = [join(here, 'py/qgis_project.py'), project, png, String(SIZE), String(SIZE)];
  const dead = 'http://127.0.0.1:9';
  const env = {
    ...process.env,
    QT_QPA_PLATFORM: 'offscreen',
    XDG_RUNTIME_DIR: process.env['XDG_RUNTIME_DIR'] ?? '/tmp',
    http_proxy: dead,
    https_proxy: dead,
    HTTP_PROXY: dead,
    HTTPS_PROXY: dead,
  };
  const [cmd, args] = isRoot ? ['unshare', ['-n', '/usr/bin/python3', ...script]] : ['/usr/bin/python3', script];
  const { stdout } = await run(cmd, args, { maxBuffer: 64 * 1024 * 1024, env });
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as Seen;
}

const rgb = (hex: string) => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
const near = (got: readonly number[] | null | undefined, want: readonly number[], tol: number) =>
  !!got && want.every((v, i) => Math.abs(got[i]! - v) <= tol);

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

// The answers sit in the north of a 0.1-degree square near Fulda; the river crosses its south.
const cafes = Array.from({ length: 6 }, (_, i) =>
  point(`c${i}`, 9.66 + 0.016 * (i % 3), 50.565 + 0.012 * Math.floor(i / 3), `Café ${i}`, { kind: i % 2 ? 'bakery' : 'cafe' }),
);
const schools = [9.655, 9.71].map((lon, i) => point(`s${i}`, lon, 50.595, `School ${i}`, {}));
const RIVER: [number, number][] = [
  [9.64, 50.52],
  [9.67, 50.525],
  [9.7, 50.522],
  [9.73, 50.53],
];
const town = [
  { type: 'Feature', id: 'w1', geometry: { type: 'LineString', coordinates: RIVER }, properties: { name: 'Fulda river', attributes: { waterway: 'river', name: 'Fulda river' } } },
  {
    type: 'Feature',
    id: 'r1',
    geometry: { type: 'LineString', coordinates: [[9.64, 50.55], [9.74, 50.552]] },
    properties: { name: 'Main road', attributes: { highway: 'primary', name: 'Main road' } },
  },
  {
    type: 'Feature',
    id: 'p1',
    geometry: { type: 'Polygon', coordinates: [[[9.715, 50.535], [9.735, 50.535], [9.735, 50.545], [9.715, 50.545], [9.715, 50.535]]] },
    properties: { name: 'Town park', attributes: { leisure: 'park', name: 'Town park' } },
  },
  { type: 'Feature', id: 'b1', geometry: { type: 'Point', coordinates: [9.645, 50.54] }, properties: { name: 'Stop', attributes: { highway: 'bus_stop', name: 'Stop' } } },
  { type: 'Feature', id: 'b2', geometry: { type: 'Point', coordinates: [9.73, 50.56] }, properties: { name: 'Stop 2', attributes: { highway: 'bus_stop', name: 'Stop 2' } } },
];

const STYLE = { cafe: '#e8710a', bakery: '#7b3fb5' };
const DATA_COLOUR = '#5b6770';
const layers = (): ExportLayer[] => [
  { kind: 'compute', name: 'cafes in Fulda', features: cafes, count: cafes.length },
  { kind: 'compute', name: 'schools in Fulda', features: schools, count: schools.length },
  // The file the first question was asked with: the answer's own places again.
  { kind: 'compute', name: 'cafes.csv', role: 'upload', colour: '#8c564b', features: cafes.map((f) => ({ ...f, id: `u${f.id}` })), count: cafes.length },
  { kind: 'compute', name: 'Layer town', role: 'data', streetBasemap: true, colour: DATA_COLOUR, features: town as never[], count: town.length },
];
const options = (basemap: ProjectOptions['basemap'], bakeriesShown = true): ProjectOptions => ({
  basemap,
  // The map shows the whole world: the project opens on the data instead.
  extent: [-180, -80, 180, 80],
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
  ],
});

const basemapColours = [BASEMAP_PALETTES.light.land, STREET_PALETTES.light.water, ...Object.values(STREET_PALETTES.light)].map(rgb);

let side: AppSide;
const packPath = join(dir, 'area.gpkg');
const seen: Record<'qgz' | 'qfield' | 'online' | 'heatmap' | 'dark', Seen> = {} as never;

// A heatmap answer: 2,000 results, most around one spot (a fixed pseudo-random spread).
const HOT: [number, number] = [9.68, 50.56];
let seed = 7;
const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) - 0.5;
const crowd = Array.from({ length: 2000 }, (_, i) =>
  point(`h${i}`, HOT[0] + (i % 4 ? 0.01 : 0.08) * (rand() + rand()), HOT[1] + (i % 4 ? 0.006 : 0.05) * (rand() + rand()), `Point ${i}`, {}),
);
const png = (name: string) => join(OUT, `qgis-${name}.png`);

beforeAll(async () => {
  // An area pack asked for tiles to zoom 10 while the tile server cannot be reached.
  side = openSide(join(dir, 'data'));
  await fillSource(side);
  const h = packService(side, {
    fetchTile: async (z, x, y) => {
      throw new RpcError('NETWORK', `Basemap tile ${z}/${x}/${y} could not be fetched: getaddrinfo ENOTFOUND`);
    },
  });
  const { jobId } = await h.service.create({ area: { bbox: [9.6, 50.5, 9.8, 50.6] }, maxTileZoom: 10 }, packPath);
  const end = await finished(h, jobId);
  if (end.state !== 'done') throw new Error(`pack ${end.state}: ${end.error?.message}`);

  mkdirSync(join(dir, 'qgz'));
  await startExport({ layers: layers(), format: 'qgz', destination: join(dir, 'qgz', 'cafes in Fulda.qgz'), project: options({ kind: 'none' }) });
  // A GeoPackage alone, with a class switched off on the map.
  await startExport({ layers: layers(), format: 'gpkg', destination: join(dir, 'alone.gpkg'), project: options({ kind: 'none' }, false) });
  await startExport({ layers: layers(), format: 'qfield', destination: join(dir, 'cafes-qfield.zip'), project: options({ kind: 'pack', path: packPath }, false) });
  await startExport({
    layers: layers(),
    format: 'qfield',
    destination: join(dir, 'online.zip'),
    project: options({ kind: 'online', url: 'https://tile.openstreetmap.org/{z}/{x}/{y}.png' }),
  });
  await startExport({
    layers: [{ kind: 'compute', name: 'crowded places', features: crowd, count: crowd.length }],
    format: 'qfield',
    destination: join(dir, 'heatmap.zip'),
    project: { basemap: { kind: 'none' }, styles: [{ by: 'heatmap', colour: STYLE.cafe }] },
  });
  for (const [name, zip] of [['qfield', 'cafes-qfield.zip'], ['online', 'online.zip'], ['heatmap', 'heatmap.zip']] as const) {
    const out = join(dir, name);
    mkdirSync(out);
    for (const [f, bytes] of Object.entries(unzipSync(readFileSync(join(dir, zip))))) writeFileSync(join(out, f), bytes);
  }
  [seen.qgz, seen.qfield] = await Promise.all([
    drawOffline(join(dir, 'qgz', 'cafes in Fulda.qgz'), png('qgz')),
    drawOffline(join(dir, 'qfield', 'cafes-qfield.qgz'), png('qfield')),
  ]);
  [seen.online, seen.heatmap] = await Promise.all([
    drawOffline(join(dir, 'online', 'online.qgz'), png('online')),
    drawOffline(join(dir, 'heatmap', 'heatmap.qgz'), png('heatmap')),
  ]);
  // The map in its dark theme.
  mkdirSync(join(dir, 'dark'));
  await startExport({ layers: layers(), format: 'qgz', destination: join(dir, 'dark', 'dark.qgz'), project: { ...options({ kind: 'none' }), theme: 'dark' } });
  seen.dark = await drawOffline(join(dir, 'dark', 'dark.qgz'), png('dark'));
}, 180_000);

afterAll(() => {
  side?.close();
  if (OUT === dir) rmSync(dir, { recursive: true, force: true });
});

const layer = (s: Seen, name: string) => s.layers.find((l) => l.name === name)!;

describe('a QGIS project drawn with no network', () => {
  it('packs an area at zoom 10 with the tile server out of reach, and the project of it draws', async () => {
    const db = new Database(packPath, { readonly: true });
    expect(db.prepare(`SELECT value FROM fieldlens_pack_meta WHERE key = 'tiles_skipped'`).pluck().get()).toBe('tile server unreachable');
    db.close();
    expect(seen.qfield.read).toBe(true);
    // No raster from the pack: it holds no tile.
    expect(seen.qfield.layers.filter((l) => l.type === 'raster')).toEqual([]);
  });

  it.each(['qgz', 'qfield', 'online', 'heatmap'] as const)('%s: every layer valid, the offline basemap drawn at every corner, no online layer switched on', (kind) => {
    const s = seen[kind];
    for (const l of s.layers) expect([l.name, l.valid]).toEqual([l.name, true]);
    expect(s.background).toBe(STREET_PALETTES.light.water);
    for (const corner of s.basemapCorners)
      expect(basemapColours.some((c) => near(corner, c, 6)), `basemap pixel ${corner}`).toBe(true);
    const online = s.layers.filter((l) => l.type === 'raster' && /xyz|http/.test(l.source));
    expect(online.map((l) => l.shownInPanel)).toEqual(kind === 'online' ? [false] : []);
    expect(s.layers.filter((l) => l.basemap).map((l) => l.name)).toEqual(
      expect.arrayContaining(['Places', 'Natural Earth land', 'Natural Earth borders', ...(kind === 'heatmap' ? [] : ['Street basemap: roads and water', 'Street basemap: areas'])]),
    );
    expect(readFileSync(png(kind)).subarray(1, 4).toString()).toBe('PNG');
  });

  it('draws each answer in its classes’ colours, several answers in colours of their own', () => {
    const s = seen.qgz;
    const c = layer(s, 'cafes in Fulda');
    for (const p of c.samples!) {
      const want = rgb(p.value['kind'] === 'bakery' ? STYLE.bakery : STYLE.cafe);
      expect(near(p.colour, want, 12), `${p.id} at ${p.pixel}: ${p.colour} for ${want}`).toBe(true);
    }
    const sc = layer(s, 'schools in Fulda');
    expect(sc.colours!['']).not.toBe(STYLE.cafe);
    for (const p of sc.samples!) expect(near(p.colour, rgb(sc.colours!['']!), 12), `${p.id}: ${p.colour}`).toBe(true);
  });

  it('splits the data layer by geometry and draws its river as a line', () => {
    const s = seen.qgz;
    const names = s.layers.filter((l) => l.name.startsWith('Layer town')).map((l) => [l.name, l.count]);
    expect(names).toEqual([
      ['Layer town (points)', 2],
      ['Layer town (lines)', 2],
      ['Layer town (areas)', 1],
    ]);
    const lines = layer(s, 'Layer town (lines)');
    for (const p of lines.samples!) expect(near(p.colour, rgb(DATA_COLOUR), 12), `line ${p.id} at ${p.pixel}: ${p.colour}`).toBe(true);
  });

  it('names each answer feature once, and nothing of the upload or data layer', () => {
    for (const s of [seen.qgz, seen.qfield]) {
      const upload = layer(s, 'cafes.csv');
      expect([upload.shownInPanel, upload.labels]).toEqual([false, false]);
      const ids = new Map(s.layers.map((l) => [l.id, l.name]));
      const labelled = s.labels.map((l) => [ids.get(l.layer), l.text] as const);
      const texts = labelled.filter(([n]) => !s.layers.find((l) => l.name === n)?.basemap).map(([, t]) => t);
      expect(new Set(texts).size, `labels ${texts}`).toBe(texts.length);
      expect(labelled.filter(([n]) => n === 'cafes.csv' || n?.startsWith('Layer town'))).toEqual([]);
      for (const f of [...cafes, ...schools]) expect(texts.filter((t) => t === f.properties!.name).length).toBeLessThanOrEqual(1);
    }
    // In the qgz every answer place has its name (nothing covers them there).
    const qgzTexts = seen.qgz.labels.map((l) => l.text);
    expect(schools.every((f) => qgzTexts.includes(f.properties!.name as string))).toBe(true);
  });

  it('keeps a class switched off in the app off, with nothing of it showing through', () => {
    const c = layer(seen.qfield, 'cafes in Fulda');
    expect(c.shown).toEqual({ cafe: true, bakery: false, '': true });
    const bakeries = c.samples!.filter((p) => p.value['kind'] === 'bakery');
    expect(bakeries).toHaveLength(3);
    for (const p of bakeries) {
      expect(near(p.colour, rgb(STYLE.bakery), 40), `${p.id} drawn while off`).toBe(false);
      expect(near(p.colour, rgb('#8c564b'), 40), `${p.id}: the upload shows through`).toBe(false);
    }
  });

  it('is named after the question and opens on the data, not the world', async () => {
    expect(seen.qgz.title).toBe('cafes in Fulda');
    const [x0, y0, x1, y1] = seen.qgz.view;
    // About 0.1 degrees of longitude is 11 km: the view spans kilometres, not the globe.
    expect(x1 - x0).toBeLessThan(30_000);
    expect(y1 - y0).toBeLessThan(30_000);
    expect((await validateGpkg(join(dir, 'qgz', 'cafes in Fulda.gpkg'))).code).toBe(0);
    const xml = strFromU8(unzipSync(readFileSync(join(dir, 'qgz', 'cafes in Fulda.qgz')))['cafes in Fulda.qgs']!);
    expect(xml).not.toContain('tile.openstreetmap.org');
  });

  it("stores the map's style as each table's default, so the GeoPackage alone draws as the map", async () => {
    const [qgz] = await loadInQgis(join(dir, 'qgz', 'cafes in Fulda.gpkg'), ['cafes_in_Fulda']);
    expect([qgz!.renderer, qgz!.labels, qgz!.labelField]).toEqual(['categorizedSymbol', true, 'name']);
    expect(qgz!.categories).toEqual({ cafe: [STYLE.cafe, true], bakery: [STYLE.bakery, true], '': [STYLE.cafe, true] });
    const [off, upload, land] = await loadInQgis(join(dir, 'qfield', 'cafes-qfield.gpkg'), ['cafes_in_Fulda', 'cafes_csv', 'basemap_land']);
    expect(off!.categories!['bakery']).toEqual([STYLE.bakery, false]);
    expect([upload!.labels, upload!.color]).toEqual([false, '#8c564b']);
    expect([land!.renderer, land!.color]).toEqual(['singleSymbol', BASEMAP_PALETTES.light.land]);
  });

  it("gives a GeoPackage exported alone the map's look as each table's default: classes, a class off, names on the answer only", async () => {
    const [answer, other, upload, data] = await loadInQgis(join(dir, 'alone.gpkg'), ['cafes_in_Fulda', 'schools_in_Fulda', 'cafes_csv', 'Layer_town']);
    expect([answer!.renderer, answer!.labels, answer!.labelField]).toEqual(['categorizedSymbol', true, 'name']);
    expect(answer!.categories).toEqual({ cafe: [STYLE.cafe, true], bakery: [STYLE.bakery, false], '': [STYLE.cafe, true] });
    // The second answer in a colour of its own, named; the file and the data layer in theirs, unnamed.
    expect([other!.renderer, other!.labels]).toEqual(['singleSymbol', true]);
    expect(other!.color).not.toBe(STYLE.cafe);
    expect([upload!.labels, upload!.color]).toEqual([false, '#8c564b']);
    // The data layer holds points, lines and an area in one table: the plain default, which draws each kind.
    expect(data!.labels).toBe(false);
    expect((await validateGpkg(join(dir, 'alone.gpkg'))).code).toBe(0);
  });

  it("draws the basemap in the dark theme's colours when the map shows it dark", () => {
    const s = seen.dark;
    for (const l of s.layers) expect([l.name, l.valid]).toEqual([l.name, true]);
    expect(s.background).toBe(STREET_PALETTES.dark.water);
    const dark = [BASEMAP_PALETTES.dark.land, ...Object.values(STREET_PALETTES.dark)].map(rgb);
    // The light theme's land, water and areas (its label colour is a dark grey, like dark land).
    const L = STREET_PALETTES.light;
    const lightFills = [BASEMAP_PALETTES.light.land, L.water, L.park, L.wood, L.grass, L.residential, L.industrial, L.building].map(rgb);
    for (const corner of s.basemapCorners) {
      expect(dark.some((c) => near(corner, c, 6)), `dark basemap pixel ${corner}`).toBe(true);
      expect(lightFills.some((c) => near(corner, c, 6)), `light basemap pixel ${corner} in the dark project`).toBe(false);
    }
  });

  it('draws a heatmap answer with QGIS heatmap renderer: hot where the results crowd, no dot or name per result', () => {
    const s = seen.heatmap;
    const h = layer(s, 'crowded places');
    expect([h.renderer, h.labels, h.count]).toEqual(['heatmapRenderer', false, crowd.length]);
    expect(s.labels.filter((l) => l.layer === h.id)).toEqual([]);
    // The pixel at the crowd's middle is at the warm end of the ramp; one at the view's corner is the basemap's.
    const centre = h.samples!.reduce((best, p) => {
      const d = (q: Sample) => Math.hypot(q.pixel[0] - SIZE / 2, q.pixel[1] - SIZE / 2);
      return d(p) < d(best) ? p : best;
    });
    const [r, , b] = centre.colour!;
    expect(r! > 200 && b! < 80, `centre ${centre.colour}`).toBe(true);
    console.log(JSON.stringify({ heatmap_points: crowd.length, heatmap_render_ms: s.renderMs, qgz_render_ms: seen.qgz.renderMs }));
  });
});
