import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Position } from 'geojson';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RpcClient } from '../../../shared/rpc/client';
import type { LayerImportDone, LayerImportProgress, LayerInfo } from '../../../shared/rpc/methods/layers';
import type { AppServices } from '../../../electron/root/app-services';
import { bootTestApp, value } from '../../support/app';
import { writeTownFiles, type TownFiles } from '../../support/town/files';
import { osmiumCat, writeGridTownXml } from '../../support/town/grid';

let dir: string;
let town: TownFiles;
let gridPbf: string;
let services: AppServices;
let rpc: RpcClient;
const progress: LayerImportProgress[] = [];
const done: LayerImportDone[] = [];
const changed: LayerInfo[][] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fl-layers-rpc-'));
  town = writeTownFiles(join(dir, 'town'));
  writeGridTownXml(join(dir, 'grid.osm'), 200_000);
  gridPbf = join(dir, 'grid.osm.pbf');
  osmiumCat(join(dir, 'grid.osm'), gridPbf);
  ({ services, rpc } = await bootTestApp(join(dir, 'app')));
  rpc.on('layers.progress', (p) => progress.push(p));
  rpc.on('layers.done', (d) => done.push(d));
  rpc.on('layers.changed', (c) => changed.push(c.layers));
});
afterAll(async () => {
  await services.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The end event of a job, once it came. */
async function endOf(jobId: string): Promise<LayerImportDone> {
  await expect.poll(() => done.some((d) => d.jobId === jobId), { timeout: 60_000 }).toBe(true);
  return done.find((d) => d.jobId === jobId)!;
}

/** [west, south, east, north] of the generator's own coordinates. */
function townBBox(): number[] {
  const all: Position[] = [];
  const walk = (c: unknown): void => {
    if (Array.isArray(c) && typeof c[0] === 'number') all.push(c as Position);
    else if (Array.isArray(c)) c.forEach(walk);
  };
  for (const f of town.features) walk((f.geometry as { coordinates: unknown }).coordinates);
  const lons = all.map((p) => p[0]!);
  const lats = all.map((p) => p[1]!);
  return [Math.min(...lons), Math.min(...lats), Math.max(...lons), Math.max(...lats)];
}

function townTypes(): Record<string, number> {
  const out: Record<string, number> = {};
  for (const f of town.features) out[f.geometry.type] = (out[f.geometry.type] ?? 0) + 1;
  return out;
}

/** Sends a file as the browser host's page does, in chunks of `chunk` bytes. */
async function upload(file: string, name: string, chunk: number): Promise<string> {
  const bytes = readFileSync(file);
  const { uploadId } = value(await rpc.call('layers.uploadStart', { name, size: bytes.length }));
  for (let offset = 0; offset < bytes.length; offset += chunk) {
    const part = bytes.subarray(offset, offset + chunk);
    const r = value(await rpc.call('layers.uploadChunk', { uploadId, offset, dataBase64: part.toString('base64') }));
    expect(r.received).toBe(offset + part.length);
  }
  return uploadId;
}

/** A street basemap tile the extract filled, asked again once the extract is removed. */
let street: { z: number; x: number; y: number } | null = null;

const uploadsLeft = () => (existsSync(join(dir, 'app', 'layer-uploads')) ? readdirSync(join(dir, 'app', 'layer-uploads')) : []);

describe('data layers over RPC (in-memory transport)', () => {
  let pbfLayer: LayerInfo;

  it('imports the town PBF from a path: progress in order, then the layer with its count, bbox and licence', async () => {
    const started = value(await rpc.call('layers.import', { path: town.pbf, name: 'Lennbrück OSM' }));
    expect(started.file).toBe('town.osm.pbf');
    const end = await endOf(started.jobId);
    expect(end).toMatchObject({ state: 'done', file: 'town.osm.pbf', error: null });
    pbfLayer = end.layer!;

    const mine = progress.filter((p) => p.jobId === started.jobId);
    expect(mine.length).toBeGreaterThanOrEqual(2);
    const phases = mine.map((p) => p.phase);
    // Reading first, indexing last; never back to reading once indexing began.
    expect(phases.at(-1)).toBe('indexing');
    expect(phases.slice(phases.indexOf('indexing'))).not.toContain('reading');
    for (let i = 1; i < mine.length; i++) expect(mine[i]!.done).toBeGreaterThanOrEqual(mine[i - 1]!.done);
    const last = mine.at(-1)!;
    expect([last.done, last.total, last.unit]).toEqual([readFileSync(town.pbf).length, readFileSync(town.pbf).length, 'bytes']);
    expect(last.features).toBe(town.features.length);

    const { layers } = value(await rpc.call('layers.list', {}));
    expect(layers).toHaveLength(1);
    const l = layers[0]!;
    expect(l).toMatchObject({ name: 'Lennbrück OSM', sourceFile: town.pbf, format: 'osm-pbf', featureCount: town.features.length });
    expect(l.geometryTypes).toEqual(townTypes());
    const expected = townBBox();
    l.bbox!.forEach((v, i) => expect(v).toBeCloseTo(expected[i]!, 6));
    expect(l.licence).toMatch(/ODbL/);
    expect(l.sourceText).toContain('town.osm.pbf');
    expect(l.sizeBytes).toBeGreaterThan(0);
    expect(changed.at(-1)?.map((x) => x.id)).toEqual([l.id]);
  });

  it('imports the town GeoPackage sent in chunks, as the browser host does, and removes the staged copy', async () => {
    const uploadId = await upload(town.gpkg, 'town.gpkg', 16 * 1024);
    const uploading = progress.filter((p) => p.jobId === uploadId);
    expect(uploading.at(-1)).toMatchObject({ phase: 'uploading', done: readFileSync(town.gpkg).length, total: readFileSync(town.gpkg).length });
    const started = value(await rpc.call('layers.import', { uploadId }));
    expect(started.jobId).toBe(uploadId);
    const end = await endOf(uploadId);
    expect(end.state).toBe('done');
    expect(end.layer).toMatchObject({ name: 'town', sourceFile: 'town.gpkg', format: 'gpkg', featureCount: town.features.length, licence: null });
    const expected = townBBox();
    end.layer!.bbox!.forEach((v, i) => expect(v).toBeCloseTo(expected[i]!, 6));
    expect(uploadsLeft()).toEqual([]);
    expect(value(await rpc.call('layers.list', {})).layers.map((l) => l.format)).toEqual(['osm-pbf', 'gpkg']);
  });

  it('draws a layer: its features for the map, limited when asked', async () => {
    const all = value(await rpc.call('layers.features', { id: pbfLayer.id }));
    expect(all.truncated).toBe(false);
    expect(all.features.features).toHaveLength(town.features.length);
    const names = all.features.features.map((f) => f.properties['name']).sort();
    expect(names).toEqual(town.features.map((f) => f.properties['name']).sort());
    const few = value(await rpc.call('layers.features', { id: pbfLayer.id, limit: 5 }));
    expect([few.truncated, few.features.features.length]).toEqual([true, 5]);
  });

  it('makes street basemap tiles of the extract: the town hall in its zoom-16 tile, nothing below zoom 12', async () => {
    const [lon, lat] = (town.features.find((f) => f.properties['name'] === 'Rathaus')!.geometry as { coordinates: Position[][] }).coordinates[0]![0]!;
    const r = (lat! * Math.PI) / 180;
    const tile = (z: number) => ({
      z,
      x: Math.floor(((lon! + 180) / 360) * 2 ** z),
      y: Math.floor(((1 - Math.log(Math.tan(r) + 1 / Math.cos(r)) / Math.PI) / 2) * 2 ** z),
    });
    const { dataBase64 } = value(await rpc.call('layers.basemapTile', tile(16)));
    // The tile holds its layers' and values' names as plain bytes (protobuf strings).
    const bytes = Buffer.from(dataBase64!, 'base64').toString('latin1');
    for (const word of ['buildings', 'Rathaus']) expect(bytes).toContain(word);
    expect(value(await rpc.call('layers.basemapTile', tile(11)))).toEqual({ dataBase64: null });
    expect(await rpc.call('layers.basemapTile', { z: 3, x: 8, y: 0 })).toMatchObject({ ok: false, error: { code: 'VALIDATION' } });
    street = tile(16);
  });

  it('a cancelled import ends as cancelled and lists nothing new', async () => {
    const before = value(await rpc.call('layers.list', {})).layers;
    const changes = changed.length;
    const started = value(await rpc.call('layers.import', { path: gridPbf }));
    await expect.poll(() => progress.some((p) => p.jobId === started.jobId)).toBe(true);
    expect(value(await rpc.call('layers.cancel', { jobId: started.jobId }))).toEqual({ cancelled: true });
    const end = await endOf(started.jobId);
    expect(end).toMatchObject({ state: 'cancelled', layer: null, error: { code: 'CANCELLED', message: 'grid.osm.pbf: import cancelled' } });
    expect(value(await rpc.call('layers.list', {})).layers).toEqual(before);
    expect(changed.length).toBe(changes);
    expect(value(await rpc.call('layers.cancel', { jobId: started.jobId }))).toEqual({ cancelled: false });
  });

  it('one import at a time: a second one while the first runs is refused, naming the first', async () => {
    const first = value(await rpc.call('layers.import', { path: gridPbf }));
    const second = await rpc.call('layers.import', { path: town.geojson });
    expect(second).toEqual({ ok: false, error: { code: 'CONFLICT', message: 'An import is running (grid.osm.pbf); wait for it to finish or cancel it first' } });
    value(await rpc.call('layers.cancel', { jobId: first.jobId }));
    expect((await endOf(first.jobId)).state).toBe('cancelled');
  });

  it('a 0-byte file is refused at once, naming the file and the reason, by path and by upload', async () => {
    const empty = join(dir, 'empty.gpkg');
    writeFileSync(empty, '');
    const r = await rpc.call('layers.import', { path: empty });
    expect(r).toEqual({
      ok: false,
      error: { code: 'VALIDATION', message: 'empty.gpkg: the file is empty (0 bytes)', details: { file: 'empty.gpkg', reason: 'the file is empty (0 bytes)' } },
    });
    const uploadId = await upload(empty, 'nothing.fgb', 1024);
    const u = await rpc.call('layers.import', { uploadId });
    expect(u.ok ? null : u.error.message).toBe('nothing.fgb: the file is empty (0 bytes)');
    expect(uploadsLeft()).toEqual([]);
  });

  it('a truncated PBF fails in its job with the file and the reason, and lists nothing', async () => {
    const whole = readFileSync(town.pbf);
    const cut = join(dir, 'cut.osm.pbf');
    writeFileSync(cut, whole.subarray(0, Math.floor(whole.length * 0.7)));
    const before = value(await rpc.call('layers.list', {})).layers;
    const started = value(await rpc.call('layers.import', { path: cut }));
    const end = await endOf(started.jobId);
    expect(end.state).toBe('failed');
    expect(end.layer).toBeNull();
    expect(end.error?.code).toBe('VALIDATION');
    expect(end.error?.message).toMatch(/^cut\.osm\.pbf: truncated OSM PBF/);
    expect(end.error?.details).toMatchObject({ file: 'cut.osm.pbf', reason: expect.stringMatching(/^truncated OSM PBF/) });
    expect(value(await rpc.call('layers.list', {})).layers).toEqual(before);
  });

  it('refuses what cannot be a layer file: a relative path, an unknown type, a missing file', async () => {
    expect(await rpc.call('layers.import', { path: 'town.gpkg' })).toMatchObject({ ok: false, error: { code: 'VALIDATION', message: 'town.gpkg: give the full path of the file' } });
    const txt = join(dir, 'notes.txt');
    writeFileSync(txt, 'hello');
    const r = await rpc.call('layers.import', { path: txt });
    expect(r.ok ? '' : r.error.message).toMatch(/^notes\.txt: unsupported file type; layers can be \.osm\.pbf/);
    const missing = await rpc.call('layers.import', { path: join(dir, 'gone.gpkg') });
    expect(missing.ok ? '' : missing.error.message).toBe('gone.gpkg: file not found');
  });

  it('keeps uploads in order and drops a cancelled one', async () => {
    const { uploadId } = value(await rpc.call('layers.uploadStart', { name: 'town.geojson', size: 100 }));
    const skip = await rpc.call('layers.uploadChunk', { uploadId, offset: 10, dataBase64: Buffer.from('x').toString('base64') });
    expect(skip).toMatchObject({ ok: false, error: { code: 'CONFLICT', message: 'town.geojson: chunk at byte 10, expected byte 0' } });
    value(await rpc.call('layers.uploadChunk', { uploadId, offset: 0, dataBase64: Buffer.from('{"type":').toString('base64') }));
    expect(await rpc.call('layers.import', { uploadId })).toMatchObject({ ok: false, error: { code: 'CONFLICT', message: 'town.geojson: the upload is incomplete (8 of 100 bytes)' } });
    expect(uploadsLeft()).toEqual([uploadId]);
    expect(value(await rpc.call('layers.cancel', { jobId: uploadId }))).toEqual({ cancelled: true });
    expect(uploadsLeft()).toEqual([]);
    expect(await rpc.call('layers.import', { uploadId })).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
  });

  it('stages an upload under its own name only, whatever path the name carries', async () => {
    for (const [name, staged] of [['../../escape.geojson', 'escape.geojson'], ['C:\\Users\\me\\sites.gpkg', 'sites.gpkg'], ['..', 'layer']]) {
      const { uploadId } = value(await rpc.call('layers.uploadStart', { name: name!, size: 1 }));
      expect(readdirSync(join(dir, 'app', 'layer-uploads', uploadId))).toEqual([staged]);
      value(await rpc.call('layers.cancel', { jobId: uploadId }));
    }
    expect(readdirSync(join(dir, 'app'))).not.toContain('escape.geojson');
    // A name past what file systems take keeps its type and loses the end of its stem.
    const long = `${'Straße '.repeat(30)}.osm.pbf`;
    const { uploadId } = value(await rpc.call('layers.uploadStart', { name: long, size: 1 }));
    const [staged] = readdirSync(join(dir, 'app', 'layer-uploads', uploadId));
    expect(Buffer.byteLength(staged!)).toBeLessThanOrEqual(200);
    expect(staged).toMatch(/^Straße Straße .*\.osm\.pbf$/);
    value(await rpc.call('layers.cancel', { jobId: uploadId }));
    expect(uploadsLeft()).toEqual([]);
  });

  it('removes a layer; a second remove finds nothing', async () => {
    const changes = changed.length;
    expect(value(await rpc.call('layers.remove', { id: pbfLayer.id }))).toEqual({ removed: true });
    const left = value(await rpc.call('layers.list', {})).layers;
    expect(left.map((l) => l.format)).toEqual(['gpkg']);
    await expect.poll(() => changed.length).toBe(changes + 1);
    expect(changed.at(-1)!.map((l) => l.id)).toEqual(left.map((l) => l.id));
    expect(await rpc.call('layers.remove', { id: pbfLayer.id })).toEqual({ ok: false, error: { code: 'NOT_FOUND', message: `No layer ${pbfLayer.id}` } });
    expect(await rpc.call('layers.features', { id: pbfLayer.id })).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
    // The extract gone, its street tiles go with it (the GeoPackage left is no extract).
    expect(value(await rpc.call('layers.basemapTile', street!))).toEqual({ dataBase64: null });
  });

  it('the browser host has no file dialog: layers.pick says to upload instead', async () => {
    expect(await rpc.call('layers.pick', {})).toEqual({ ok: false, error: { code: 'NOT_FOUND', message: 'No file dialog here: the browser host uploads the chosen file instead' } });
  });

  it('a remote connection has no layers: each method says they belong to the bundled service', async () => {
    const remote = value(await rpc.call('profiles.save', { label: 'Field office', baseUrl: 'https://compute.example.org/', searchBaseUrl: 'https://search.example.org' }));
    value(await rpc.call('profiles.select', { id: remote.id }));
    try {
      for (const r of [await rpc.call('layers.list', {}), await rpc.call('layers.import', { path: town.gpkg }), await rpc.call('layers.remove', { id: '1' })]) {
        expect(r.ok).toBe(false);
        if (!r.ok) {
          expect(r.error.code).toBe('CONFLICT');
          expect(r.error.message).toContain('Data layers belong to the bundled local service; the active connection "Field office" is a remote service');
        }
      }
    } finally {
      value(await rpc.call('profiles.select', { id: 'local' }));
    }
    expect(value(await rpc.call('layers.list', {})).layers).toHaveLength(1);
  });
});
