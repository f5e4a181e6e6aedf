import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { strFromU8, unzipSync } from 'fflate';
import { afterEach, describe, expect, it } from 'vitest';
import { createAppServices, type AppServices } from '../../../electron/root/app-services';
import { createMemoryLogger } from '../../../electron/ground/logger';
import type { LoadLayers } from '../../../electron/export/service';
import { startBrowserHost } from '../../../electron/host/browser-host';
import { RpcError } from '../../../shared/rpc/errors';
import type { ExportProgressEvent } from '../../../shared/rpc/methods/export';
import type { PackProgressEvent } from '../../../shared/rpc/methods/pack';
import { addPackTiles } from '../../support/pack-tiles';
import { pointFeatures } from '../../interop/export/features';

const dirs: string[] = [];
const open: AppServices[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function setup(shell: 'browser-host' | 'test', loadExportLayers?: LoadLayers) {
  const dataDir = mkdtempSync(join(tmpdir(), 'fieldlens-exp-'));
  dirs.push(dataDir);
  const services = await createAppServices({
    dataDir,
    logger: createMemoryLogger(),
    shell,
    version: '0.0.0',
    clock: () => new Date('2026-01-01T00:00:00Z'),
    loadExportLayers,
  });
  open.push(services);
  const events: ExportProgressEvent[] = [];
  services.bus.subscribe((name, payload) => {
    if (name === 'export.progress') events.push(payload as ExportProgressEvent);
  });
  const finished = (jobId: string) =>
    new Promise<ExportProgressEvent>((resolve) => {
      const check = () => {
        const e = events.find((x) => x.jobId === jobId && x.state !== 'running');
        if (e) resolve(e);
        else setTimeout(check, 5);
      };
      check();
    });
  return { services, dataDir, events, finished };
}

const loadPoints =
  (n: number): LoadLayers =>
  async ({ queryIds }) =>
    queryIds.map((id) => {
      if (id === 'missing') throw new RpcError('NOT_FOUND', `No query ${id}`);
      return { name: `Query ${id}`, kind: 'compute' as const, features: pointFeatures(n), count: n };
    });

describe('export RPC', () => {
  it('runs a download export as a job with progress events, then serves it through the host', async () => {
    const { services, dataDir, events, finished } = await setup('browser-host', loadPoints(3000));
    const r = await services.router.dispatch('export.start', { selection: { queryIds: ['a'] }, format: 'geojson' });
    expect(r.ok).toBe(true);
    const { jobId, fileName, downloadPath } = (r as { value: { jobId: string; fileName: string; downloadPath: string } }).value;
    expect(fileName).toBe('Query a.geojson');
    expect(downloadPath).toBe(`/exports/${jobId}`);
    const done = await finished(jobId);
    expect(done).toMatchObject({ state: 'done', written: 3000, total: 3000, downloadPath, error: null });
    expect(events.filter((e) => e.state === 'running').every((e) => e.total === 3000)).toBe(true);
    const file = join(dataDir, 'exports', `${jobId}.geojson`);
    expect(done.bytes).toBe(readFileSync(file).length);

    const host = await startBrowserHost({ router: services.router, bus: services.bus, logger: createMemoryLogger(), downloads: services.exports });
    try {
      const url = `${host.url.replace(/\/$/, '')}${downloadPath}`;
      expect((await fetch(url)).status).toBe(401);
      const res = await fetch(url, { headers: { cookie: `fieldlens_token=${host.token}` } });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/geo+json');
      expect(res.headers.get('content-disposition')).toBe(`attachment; filename="Query a.geojson"; filename*=UTF-8''Query%20a.geojson`);
      expect(Buffer.from(await res.arrayBuffer()).equals(readFileSync(file))).toBe(true);
      const other = await fetch(`${host.url}exports/nope`, { headers: { cookie: `fieldlens_token=${host.token}` } });
      expect(other.status).toBe(404);
    } finally {
      await host.close();
    }
    await services.close();
    open.length = 0;
    // Download files last only as long as the session.
    expect(existsSync(file)).toBe(false);
  });

  it('writes to a chosen destination on the desktop and refuses one in the browser host', async () => {
    const desk = await setup('test', loadPoints(10));
    const dest = join(desk.dataDir, 'out.gpkg');
    const r = await desk.services.router.dispatch('export.start', { selection: { queryIds: ['a', 'b'] }, format: 'gpkg', destination: dest });
    expect(r).toMatchObject({ ok: true, value: { fileName: 'out.gpkg', downloadPath: null } });
    const done = await desk.finished((r as { value: { jobId: string } }).value.jobId);
    expect(done).toMatchObject({ state: 'done', written: 20 });
    expect(existsSync(dest)).toBe(true);
    const bad = await desk.services.router.dispatch('export.start', { selection: { queryIds: ['a'] }, format: 'gpkg', destination: join(desk.dataDir, 'x.zip') });
    expect(bad).toMatchObject({ ok: false, error: { code: 'VALIDATION' } });

    const web = await setup('browser-host', loadPoints(10));
    const refused = await web.services.router.dispatch('export.start', { selection: { queryIds: ['a'] }, format: 'csv', destination: '/tmp/x.csv' });
    expect(refused).toMatchObject({ ok: false, error: { code: 'VALIDATION' } });
  });

  it('passes NOT_FOUND through, validates input, and cancels a running job', async () => {
    const { services, dataDir, finished } = await setup('browser-host', loadPoints(300_000));
    expect(await services.router.dispatch('export.start', { selection: { queryIds: ['missing'] }, format: 'csv' })).toMatchObject({
      ok: false,
      error: { code: 'NOT_FOUND' },
    });
    expect(await services.router.dispatch('export.start', { selection: { queryIds: [] }, format: 'csv' })).toMatchObject({
      ok: false,
      error: { code: 'VALIDATION' },
    });
    expect(await services.router.dispatch('export.cancel', { jobId: 'nope' })).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
    const r = await services.router.dispatch('export.start', { selection: { queryIds: ['a'] }, format: 'gpkg' });
    const { jobId } = (r as { value: { jobId: string } }).value;
    expect(await services.router.dispatch('export.cancel', { jobId })).toEqual({ ok: true, value: { cancelled: true } });
    const end = await finished(jobId);
    expect(end).toMatchObject({ state: 'cancelled', error: { code: 'CANCELLED' } });
    expect(end.written).toBeLessThan(300_000);
    expect(readdirSync(join(dataDir, 'exports'))).toEqual([]);
    expect(services.exports.download(jobId)).toBeUndefined();
  });

  it('says so when no cache is wired', async () => {
    const { services } = await setup('test');
    expect(await services.router.dispatch('export.start', { selection: { queryIds: ['a'] }, format: 'csv' })).toMatchObject({
      ok: false,
      error: { code: 'NOT_FOUND' },
    });
  });
});

describe('export RPC: QGIS projects', () => {
  const qgsOf = (zip: Uint8Array, name: string) => strFromU8(unzipSync(zip)[name]!);

  it('writes a .qgz beside its GeoPackage on the desktop, in the selection order, the offline basemap alone by default', async () => {
    const desk = await setup('test', loadPoints(5));
    const dest = join(desk.dataDir, 'site survey.qgz');
    const r = await desk.services.router.dispatch('export.start', { selection: { queryIds: ['b', 'a'] }, format: 'qgz', destination: dest });
    expect(r).toMatchObject({ ok: true, value: { fileName: 'site survey.qgz', downloadPath: null } });
    expect(await desk.finished((r as { value: { jobId: string } }).value.jobId)).toMatchObject({ state: 'done', written: 10 });
    expect(readdirSync(desk.dataDir).filter((f) => f.startsWith('site survey')).sort()).toEqual(['site survey.gpkg', 'site survey.qgz']);
    const xml = qgsOf(readFileSync(dest), 'site survey.qgs');
    const sources = [...xml.matchAll(/<datasource>([^<]*)<\/datasource>/g)].map((m) => m[1]);
    expect(sources.slice(0, 2)).toEqual(['./site survey.gpkg|layername=Query_b', './site survey.gpkg|layername=Query_a']);
    // Below them the offline basemap's tables in the same GeoPackage; no online tiles unless asked.
    expect(sources.slice(2).every((s) => s!.startsWith('./site survey.gpkg|layername=basemap_'))).toBe(true);
    expect(sources.slice(2)).toContain('./site survey.gpkg|layername=basemap_land');
    expect(xml).not.toContain('type=xyz');
    const wrongName = await desk.services.router.dispatch('export.start', { selection: { queryIds: ['a'] }, format: 'qgz', destination: join(desk.dataDir, 'x.gpkg') });
    expect(wrongName).toMatchObject({ ok: false, error: { code: 'VALIDATION' } });
  });

  it('leaves neither project nor GeoPackage behind when cancelled', async () => {
    const desk = await setup('test', loadPoints(300_000));
    const out = join(desk.dataDir, 'out');
    mkdirSync(out);
    const r = await desk.services.router.dispatch('export.start', { selection: { queryIds: ['a'] }, format: 'qgz', destination: join(out, 'big.qgz') });
    const { jobId } = (r as { value: { jobId: string } }).value;
    expect(await desk.services.router.dispatch('export.cancel', { jobId })).toEqual({ ok: true, value: { cancelled: true } });
    expect(await desk.finished(jobId)).toMatchObject({ state: 'cancelled' });
    expect(readdirSync(out)).toEqual([]);
  });

  it('offers a QField ZIP as a download in the browser host, and refuses what it cannot do there', async () => {
    const web = await setup('browser-host', loadPoints(5));
    const r = await web.services.router.dispatch('export.start', {
      selection: { queryIds: ['a'] },
      format: 'qfield',
      project: { basemap: { kind: 'none' }, styles: [{ by: 'layer', colour: '#7b3fb5' }], editable: true },
    });
    expect(r).toMatchObject({ ok: true, value: { fileName: 'Query a.zip' } });
    const { jobId } = (r as { value: { jobId: string } }).value;
    expect(await web.finished(jobId)).toMatchObject({ state: 'done', written: 5 });
    const zip = readFileSync(web.services.exports.download(jobId)!.path);
    expect(Object.keys(unzipSync(zip)).sort()).toEqual(['Query a.gpkg', 'Query a.qgz']);
    const xml = qgsOf(unzipSync(zip)['Query a.qgz']!, 'Query a.qgs');
    expect(xml).toContain('readOnly="0"');
    expect(xml).toContain('value="123,63,181,255"');
    expect(xml).not.toContain('type=xyz');

    // A .qgz downloads too: the project, and its GeoPackage as a second file of the same name.
    const q = await web.services.router.dispatch('export.start', { selection: { queryIds: ['a'] }, format: 'qgz' });
    expect(q).toMatchObject({ ok: true, value: { fileName: 'Query a.qgz' } });
    const qJob = (q as { value: { jobId: string } }).value.jobId;
    expect(await web.finished(qJob)).toMatchObject({ state: 'done', written: 5, dataDownloadPath: `/exports/${qJob}/data` });
    const project = web.services.exports.download(qJob)!;
    const data = web.services.exports.download(qJob, 'data')!;
    expect([project.fileName, data.fileName]).toEqual(['Query a.qgz', 'Query a.gpkg']);
    expect(qgsOf(readFileSync(project.path), 'Query a.qgs')).toContain('<datasource>./Query a.gpkg|layername=Query_a</datasource>');
    expect(readFileSync(data.path).subarray(0, 16).toString()).toBe('SQLite format 3\0');
    expect(web.services.exports.download(jobId, 'data')).toBeUndefined();

    const est = await web.services.router.dispatch('export.estimate', { selection: { queryIds: ['a', 'b'] }, format: 'qfield' });
    expect(est).toMatchObject({ ok: true, value: { features: 10, layers: [{ name: 'Query a', features: 5 }, { name: 'Query b', features: 5 }] } });
    // The offline basemap: Natural Earth around the data, some hundreds of kilobytes, as the ZIP holds it.
    const basemapBytes = (est as { value: { basemapBytes: number } }).value.basemapBytes;
    expect(basemapBytes).toBeGreaterThan(20_000);
    expect((est as { value: { bytes: number } }).value.bytes).toBeGreaterThan(zip.length);
    expect(
      await web.services.router.dispatch('export.estimate', { selection: { queryIds: ['a'] }, format: 'qfield', project: { basemap: { kind: 'pack', path: '/tmp/a.gpkg' } } }),
    ).toMatchObject({ ok: false, error: { code: 'VALIDATION' } });

    const cases: unknown[] = [
      { selection: { queryIds: ['a'] }, format: 'qfield', project: { basemap: { kind: 'pack', path: '/tmp/area.gpkg' } } },
      { selection: { queryIds: ['a'] }, format: 'qfield', project: { basemap: { kind: 'online' }, styles: [{ by: 'layer', colour: 'orange' }] } },
      { selection: { queryIds: ['a'] }, format: 'qfield', project: { basemap: { kind: 'online' }, styles: [{ colour: '#7b3fb5' }] } },
      ...[
        [{ first: 3, last: 2 }],
        [
          { first: 1, last: 2 },
          { first: 2, last: 3 },
        ],
      ].map((ranks) => ({
        selection: { queryIds: ['a'] },
        format: 'qfield',
        project: { basemap: { kind: 'online' }, styles: [{ by: 'rank', colour: '#7b3fb5', classes: ranks.map((r) => ({ ...r, colour: '#000000', shown: true })) }] },
      })),
      { selection: { queryIds: ['a'] }, format: 'qfield', project: { basemap: { kind: 'online' }, extent: [11, 50, 10, 51] } },
    ];
    for (const input of cases)
      expect(await web.services.router.dispatch('export.start', input as never), JSON.stringify(input)).toMatchObject({
        ok: false,
        error: { code: 'VALIDATION' },
      });
  });

  it('in the browser host, a pack this host wrote is the basemap of a QField download; no other file is read', async () => {
    const web = await setup('browser-host', loadPoints(4));
    const packDone = new Promise<PackProgressEvent>((resolve) =>
      web.services.bus.subscribe((name, payload) => {
        const p = payload as PackProgressEvent;
        if (name === 'pack.progress' && p.state !== 'running') resolve(p);
      }),
    );
    const made = await web.services.router.dispatch('pack.create', { selection: { area: { bbox: [4.3, 45.2, 5.5, 46.2] } } });
    expect(made.ok).toBe(true);
    const packPath = (made as { value: { path: string } }).value.path;
    expect(await packDone).toMatchObject({ state: 'done', path: packPath });
    const tiles = addPackTiles(packPath, { west: 4.3, south: 45.2, east: 5.5, north: 46.2 }, [0, 1, 2, 3], [235, 95, 25]);
    const project = { basemap: { kind: 'pack', path: packPath }, extent: [4.3, 45.2, 5.5, 46.2] };

    const est = await web.services.router.dispatch('export.estimate', { selection: { queryIds: ['a'] }, format: 'qfield', project });
    expect(est).toMatchObject({ ok: true, value: { features: 4 } });
    expect((est as { value: { basemapBytes: number } }).value.basemapBytes).toBeGreaterThan(0);
    const r = await web.services.router.dispatch('export.start', { selection: { queryIds: ['a'] }, format: 'qfield', project });
    expect(r).toMatchObject({ ok: true, value: { fileName: 'Query a.zip', downloadPath: expect.stringMatching(/^\/exports\//) } });
    const { jobId } = (r as { value: { jobId: string } }).value;
    expect(await web.finished(jobId)).toMatchObject({ state: 'done', written: 4 });
    const files = unzipSync(readFileSync(web.services.exports.download(jobId)!.path));
    const gpkg = join(web.dataDir, 'check.gpkg');
    writeFileSync(gpkg, files['Query a.gpkg']!);
    const db = new Database(gpkg, { readonly: true });
    try {
      const table = db.prepare("SELECT table_name FROM gpkg_contents WHERE data_type = 'tiles'").pluck().get() as string;
      expect(db.prepare(`SELECT count(*) FROM "${table}"`).pluck().get()).toBe(tiles.length);
    } finally {
      db.close();
    }

    // Any other file as a basemap is refused by name, before anything is read or written.
    const other = join(web.dataDir, 'elsewhere.gpkg');
    copyFileSync(packPath, other);
    for (const method of ['export.estimate', 'export.start'] as const) {
      const refused = await web.services.router.dispatch(method, { selection: { queryIds: ['a'] }, format: 'qfield', project: { basemap: { kind: 'pack', path: other } } });
      expect(refused).toMatchObject({ ok: false, error: { code: 'VALIDATION', message: expect.stringContaining('only the area packs it wrote') } });
    }
    // Nothing is left in the exports folder but the one ZIP: the refused basemaps wrote nothing.
    expect(readdirSync(join(web.dataDir, 'exports'))).toEqual([`${jobId}.zip`]);
  });
});
