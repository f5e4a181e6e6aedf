import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLayerImport, type ImportProgress } from '../../../electron/local-service/layers/import-job';
import { openSqliteLayerStore } from '../../../electron/local-service/layers/store/sqlite-layer-store';
import { ImportCancelledError } from '../../../electron/local-service/layers/types';
import { osmiumCat, writeGridTownXml, type GridTown } from '../../support/town/grid';
import { writeTownFiles, type TownFiles } from '../../support/town/files';

/** What the imports left in their scratch folder (made by the first OSM import). */
const scratchFiles = () => (existsSync(tempDir()) ? readdirSync(tempDir()) : []);

let dir: string;
let town: TownFiles;
let grid: GridTown;
let gridPbf: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'fieldlens-import-job-'));
  town = writeTownFiles(join(dir, 'town'));
  grid = writeGridTownXml(join(dir, 'grid.osm'), 200_000);
  gridPbf = join(dir, 'grid.osm.pbf');
  osmiumCat(join(dir, 'grid.osm'), gridPbf);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const tempDir = () => join(dir, 'tmp');

describe('layer import jobs', () => {
  it('report progress up to the whole file, then the layer', async () => {
    const store = openSqliteLayerStore({ dataDir: join(dir, 'progress') });
    const job = startLayerImport({ store, file: gridPbf, tempDir: tempDir(), batchSize: 2000 });
    const events: ImportProgress[] = [];
    job.events.on('progress', (p) => events.push(p));
    const info = await job.done;
    expect(info.featureCount).toBe(grid.taggedNodes + grid.ways);
    expect(info.geometryTypes).toEqual({ Point: grid.taggedNodes, LineString: grid.ways - grid.buildings, Polygon: grid.buildings });
    expect(events.length).toBeGreaterThan(1);
    const last = events[events.length - 1]!;
    expect(last).toMatchObject({ phase: 'indexing', unit: 'bytes', features: info.featureCount });
    expect(last.done).toBe(last.total);
    for (let i = 1; i < events.length; i++) expect(events[i]!.done).toBeGreaterThanOrEqual(events[i - 1]!.done);
    expect(scratchFiles()).toEqual([]);
    store.close();
  });

  it('cancelled, leaves no layer, no tables and no scratch files', async () => {
    const store = openSqliteLayerStore({ dataDir: join(dir, 'cancel') });
    const job = startLayerImport({ store, file: join(dir, 'grid.osm'), tempDir: tempDir(), batchSize: 500 });
    job.events.once('progress', () => job.cancel());
    await expect(job.done).rejects.toBeInstanceOf(ImportCancelledError);
    await expect(job.done).rejects.toThrow('grid.osm: import cancelled');
    expect(store.list()).toEqual([]);
    expect(scratchFiles()).toEqual([]);
    const other = await startLayerImport({ store, file: town.geojson, tempDir: tempDir() }).done;
    expect(store.list().map((l) => l.id)).toEqual([other.id]);
    store.close();
  });

  it('an AbortSignal cancels too', async () => {
    const store = openSqliteLayerStore({ dataDir: join(dir, 'signal') });
    const ac = new AbortController();
    ac.abort();
    await expect(startLayerImport({ store, file: gridPbf, tempDir: tempDir(), signal: ac.signal }).done).rejects.toBeInstanceOf(ImportCancelledError);
    expect(store.list()).toEqual([]);
    store.close();
  });

  it('keeps layers across a restart and removes them on request', async () => {
    const dataDir = join(dir, 'restart');
    let store = openSqliteLayerStore({ dataDir });
    const a = await startLayerImport({ store, file: town.pbf, tempDir: tempDir(), name: 'Lennbrück OSM' }).done;
    const b = await startLayerImport({ store, file: town.gpkg, tempDir: tempDir() }).done;
    store.close();
    store = openSqliteLayerStore({ dataDir });
    expect(store.list().map((l) => [l.name, l.featureCount, l.format])).toEqual([
      ['Lennbrück OSM', town.features.length, 'osm-pbf'],
      ['town', town.features.length, 'gpkg'],
    ]);
    expect(store.get(a.id)).toEqual(a);
    const station = town.features.find((f) => f.properties['railway'] === 'station')!.geometry as { coordinates: number[] };
    expect((await store.nearest(a.id, station.coordinates, 1))[0]!.tags['name']).toBe('Lennbrück Hauptbahnhof');
    expect(store.remove(a.id)).toBe(true);
    expect(store.remove(a.id)).toBe(false);
    await expect(store.nearest(a.id, station.coordinates, 1)).rejects.toThrow(/no layer/);
    expect(store.list().map((l) => l.id)).toEqual([b.id]);
    store.close();
  });

  it('an empty collection becomes an empty layer with a warning; an unawaited failure is no unhandled rejection', async () => {
    const store = openSqliteLayerStore({ dataDir: join(dir, 'empty') });
    const file = join(dir, 'nothing.geojson');
    writeFileSync(file, JSON.stringify({ type: 'FeatureCollection', features: [] }));
    const job = startLayerImport({ store, file, tempDir: tempDir() });
    const warned: string[] = [];
    job.events.on('warning', (w) => warned.push(w));
    const info = await job.done;
    expect([info.featureCount, info.bbox, info.warnings, warned]).toEqual([0, null, ['the file holds no features'], ['the file holds no features']]);
    expect(await store.nearest(info.id, [0, 0], 3)).toEqual([]);
    const ignored = startLayerImport({ store, file: join(dir, 'missing.gpkg'), tempDir: tempDir() });
    await new Promise((ok) => setTimeout(ok, 50));
    await expect(ignored.done).rejects.toThrow('missing.gpkg: file not found');
    store.close();
  });

  it('an import cut short by a crash is not listed after a restart', async () => {
    const dataDir = join(dir, 'crash');
    let store = openSqliteLayerStore({ dataDir });
    const writer = store.create({ name: 'half', sourceFile: '/x.geojson', format: 'geojson', licence: null, sourceText: 'x' });
    writer.add([{ sourceId: '1', geometry: { type: 'Point', coordinates: [1, 2] }, properties: {} }]);
    expect(store.list()).toEqual([]);
    store.close();
    store = openSqliteLayerStore({ dataDir });
    expect(store.list()).toEqual([]);
    const next = store.create({ name: 'whole', sourceFile: '/y.geojson', format: 'geojson', licence: null, sourceText: 'y' });
    next.add([{ sourceId: '1', geometry: { type: 'Point', coordinates: [1, 2] }, properties: { a: 1 } }]);
    const info = next.commit([]);
    expect(store.list()).toEqual([info]);
    expect(await store.feature(info.id, 1)).toMatchObject({ sourceId: '1', tags: { a: 1 }, geometry: { type: 'Point', coordinates: [1, 2] } });
    store.close();
  });
});
