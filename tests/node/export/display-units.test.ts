import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import Papa from 'papaparse';
import { afterEach, describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../../../electron/ground/logger';
import { createAppServices, type AppServices } from '../../../electron/root/app-services';
import type { ExportProgressEvent } from '../../../shared/rpc/methods/export';
import type { ComputeFeature } from '../../../shared/service/compute';

/** Settings' units reach the exported display field; `distance_meters` stays in metres. */
const dirs: string[] = [];
const open: AppServices[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const feature = (i: number, props: Partial<ComputeFeature['properties']> & Record<string, unknown>): ComputeFeature => ({
  type: 'Feature',
  id: `f-${i}`,
  geometry: { type: 'Point', coordinates: [4.8 + i / 100, 45.7] },
  properties: { source_id: `s-${i}`, name: `Place ${i}`, address: '', score: 1, distance_meters: 0, source: { name: 'test', url: 'test:' }, attributes: {}, ...props },
});
// Far (21.7 km), short (120 m), measured at 0 m, and none measured.
const FEATURES = [
  feature(0, { distance_meters: 21_700, distance_km: 21.7 }),
  feature(1, { distance_meters: 120, distance_km: 0.12 }),
  feature(2, { distance_meters: 0, distance_km: 0 }),
  feature(3, {}),
];
// Worked by hand: 21,700 / 1,609.344 = 13.48 mi; 120 / 0.3048 = 393.7 ft; 21,700 / 1,852 = 11.72 nmi.
const WANT = {
  'mi,ft': ['13.5 mi', '394 ft', '0 ft', null],
  'nmi,m': ['11.7 nmi', '120 m', '0 m', null],
  default: ['21.7 km', '120 m', '0 m', null],
};

async function exported(format: 'csv' | 'gpkg', units?: { distance: 'km' | 'mi' | 'nmi'; short: 'm' | 'ft' }): Promise<string> {
  const dataDir = mkdtempSync(join(tmpdir(), 'fieldlens-units-'));
  dirs.push(dataDir);
  const services = await createAppServices({
    dataDir,
    logger: createMemoryLogger(),
    shell: 'test',
    version: '0.0.0',
    clock: () => new Date('2026-01-01T00:00:00Z'),
    loadExportLayers: async () => [{ name: 'results', kind: 'compute', features: FEATURES, count: FEATURES.length }],
  });
  open.push(services);
  const events: ExportProgressEvent[] = [];
  services.bus.subscribe((name, payload) => {
    if (name === 'export.progress') events.push(payload as ExportProgressEvent);
  });
  const destination = join(dataDir, `out.${format}`);
  const r = await services.router.dispatch('export.start', { selection: { queryIds: ['a'] }, format, destination, ...(units ? { units } : {}) });
  expect(r.ok).toBe(true);
  const jobId = (r as { value: { jobId: string } }).value.jobId;
  for (let t = 0; t < 2000 && !events.some((e) => e.jobId === jobId && e.state !== 'running'); t++) await new Promise((res) => setTimeout(res, 5));
  expect(events.find((e) => e.jobId === jobId && e.state !== 'running')).toMatchObject({ state: 'done' });
  return destination;
}

function csvColumns(path: string): { meters: unknown[]; display: unknown[] } {
  const [header, ...rows] = Papa.parse<string[]>(readFileSync(path, 'utf8'), { skipEmptyLines: true }).data;
  const at = (name: string) => rows.map((row) => row[header!.indexOf(name)]);
  expect(header).toContain('distance_display');
  return { meters: at('distance_meters'), display: at('distance_display').map((v) => (v === '' ? null : v)) };
}

function gpkgColumns(path: string): { meters: unknown[]; display: unknown[] } {
  const db = new Database(path, { readonly: true });
  try {
    const table = db.prepare("SELECT table_name FROM gpkg_contents WHERE data_type = 'features'").pluck().get() as string;
    const rows = db.prepare(`SELECT distance_meters, distance_display FROM "${table}" ORDER BY fid`).all() as { distance_meters: number; distance_display: string | null }[];
    return { meters: rows.map((r) => r.distance_meters), display: rows.map((r) => r.distance_display) };
  } finally {
    db.close();
  }
}

describe('units of exported distances', () => {
  for (const [key, units] of [
    ['mi,ft', { distance: 'mi', short: 'ft' }],
    ['nmi,m', { distance: 'nmi', short: 'm' }],
    ['default', undefined],
  ] as const) {
    it(`CSV and GeoPackage say distances in ${key}, and keep distance_meters in metres`, async () => {
      const csv = csvColumns(await exported('csv', units));
      expect(csv.display).toEqual(WANT[key]);
      expect(csv.meters).toEqual(['21700', '120', '0', '0']);
      const gpkg = gpkgColumns(await exported('gpkg', units));
      expect(gpkg.display).toEqual(WANT[key]);
      expect(gpkg.meters).toEqual([21_700, 120, 0, 0]);
    });
  }

  it('units outside the choices are refused at the contract', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'fieldlens-units-'));
    dirs.push(dataDir);
    const services = await createAppServices({ dataDir, logger: createMemoryLogger(), shell: 'test', version: '0.0.0', clock: () => new Date(), loadExportLayers: async () => [] });
    open.push(services);
    const r = await services.router.dispatch('export.start', { selection: { queryIds: ['a'] }, format: 'csv', destination: join(dataDir, 'x.csv'), units: { distance: 'furlong', short: 'm' } });
    expect(r).toMatchObject({ ok: false, error: { code: 'VALIDATION' } });
  });
});
