import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import Papa from 'papaparse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeGeoPackage } from '../../../electron/export/gpkg';
import { writeText } from '../../../electron/export/text-formats';
import type { ExportLayer } from '../../../electron/export/types';
import type { ComputeResponse } from '../../../shared/service/compute';
import { computeForm, fileForm, startService, stopService, type Running } from './harness';

/**
 * The figure a question asked about reaches every export of its answer as a column: the
 * capacity of "my 2 largest sites by capacity" and the count of "sites per country", in
 * GeoJSON, CSV and GeoPackage, with the values the uploaded file gives.
 */
let r: Running;
const dir = mkdtempSync(join(tmpdir(), 'fieldlens-asked-figure-'));
beforeAll(async () => {
  r = await startService();
});
afterAll(async () => {
  await stopService(r);
  rmSync(dir, { recursive: true, force: true });
});

// Each site's country is known here and is not in the file: the service finds it from the position.
const SITES = [
  { name: 'Lyon depot', lat: 45.7485, lon: 4.8467, capacity: 120, country: 'France' },
  { name: 'Annecy store', lat: 45.8992, lon: 6.1294, capacity: 340, country: 'France' },
  { name: 'Geneva office', lat: 46.2044, lon: 6.1432, capacity: 75, country: 'Switzerland' },
  { name: 'Milan yard', lat: 45.4642, lon: 9.19, capacity: 210, country: 'Italy' },
  { name: 'Turin shop', lat: 45.0703, lon: 7.6869, capacity: 95, country: 'Italy' },
  { name: 'Bordeaux hub', lat: 44.8378, lon: -0.5792, capacity: 180, country: 'France' },
];
const csv = ['name,lat,lon,capacity', ...SITES.map((s) => [s.name, s.lat, s.lon, s.capacity].join(','))].join('\n');

const ask = (query: string) => computeForm(r, fileForm({ query }, [{ name: 'sites.csv', text: csv }]));

/** The answer's features written in each format, read back as name → column value. */
async function exported(res: ComputeResponse, column: string): Promise<Record<'geojson' | 'csv' | 'gpkg', Record<string, unknown>>> {
  const layer = (): ExportLayer[] => [{ kind: 'compute', name: 'answer', features: res.results.features }];
  const tick = () => undefined;
  const out = {} as Record<'geojson' | 'csv' | 'gpkg', Record<string, unknown>>;
  const geojson = join(dir, `${column}.geojson`);
  await writeText(geojson, 'geojson', layer(), tick);
  const fc = JSON.parse(readFileSync(geojson, 'utf8')) as { features: { properties: Record<string, unknown> }[] };
  out.geojson = Object.fromEntries(fc.features.map((f) => [f.properties['name'], f.properties[column]]));
  const csvPath = join(dir, `${column}.csv`);
  await writeText(csvPath, 'csv', layer(), tick);
  const rows = Papa.parse<Record<string, string>>(readFileSync(csvPath, 'utf8'), { header: true, skipEmptyLines: true }).data;
  out.csv = Object.fromEntries(rows.map((row) => [row['name'], row[column] === undefined ? undefined : Number(row[column])]));
  const gpkg = join(dir, `${column}.gpkg`);
  await writeGeoPackage(gpkg, layer(), { tick });
  const db = new Database(gpkg, { readonly: true });
  try {
    const table = (db.prepare(`SELECT table_name FROM gpkg_contents WHERE data_type = 'features'`).get() as { table_name: string }).table_name;
    const got = db.prepare(`SELECT * FROM "${table}"`).all() as Record<string, unknown>[];
    out.gpkg = Object.fromEntries(got.map((row) => [row['name'], row[column]]));
  } finally {
    db.close();
  }
  return out;
}

describe('the figure asked about in exports', () => {
  it('"my 2 largest sites by capacity": the capacity column in GeoJSON, CSV and GeoPackage', async () => {
    const res = await ask('my 2 largest sites by capacity');
    const want = Object.fromEntries([...SITES].sort((a, b) => b.capacity - a.capacity).slice(0, 2).map((s) => [s.name, s.capacity]));
    const files = await exported(res, 'capacity');
    for (const [format, values] of Object.entries(files)) expect(values, format).toEqual(want);
  });

  it('"sites per country": the count column in GeoJSON, CSV and GeoPackage', async () => {
    const res = await ask('sites per country');
    const want: Record<string, number> = {};
    for (const s of SITES) want[s.country] = (want[s.country] ?? 0) + 1;
    const files = await exported(res, 'count');
    for (const [format, values] of Object.entries(files)) expect(values, format).toEqual(want);
  });
});
