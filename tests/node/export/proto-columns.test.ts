import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import Papa from 'papaparse';
import { afterAll, describe, expect, it } from 'vitest';
import { startExport } from '../../../electron/export/job';
import type { ComputeFeature } from '../../../shared/service/compute';

const dir = mkdtempSync(join(tmpdir(), 'fieldlens-proto-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// As an answer arrives: JSON.parse makes "__proto__" an own property, as any other name.
const feature = (): ComputeFeature =>
  JSON.parse(
    '{"type":"Feature","id":"u-1","geometry":{"type":"Point","coordinates":[4.8,45.7]},"properties":{"source_id":"u-1","name":"A","address":"","score":1,"distance_meters":0,"source":{"name":"Uploaded","url":"upload:a.csv"},"attributes":{"__proto__":"p","constructor":"c","prototype":"q"}}}',
  ) as ComputeFeature;

describe('columns named __proto__, constructor or prototype in exports', () => {
  it('are columns of the CSV like any other', async () => {
    const path = join(dir, 'p.csv');
    await startExport({ layers: [{ name: 'l', kind: 'compute', features: [feature()], count: 1 }], format: 'csv', destination: path });
    const parsed = Papa.parse<string[]>(readFileSync(path, 'utf8'), { skipEmptyLines: true }).data;
    const header = parsed[0]!;
    const row = parsed[1]!;
    for (const [k, v] of [['__proto__', 'p'], ['constructor', 'c'], ['prototype', 'q']]) {
      expect(header, k).toContain(k);
      expect(row[header.indexOf(k!)], k).toBe(v);
    }
  });

  it('are columns of the GeoPackage like any other', async () => {
    const path = join(dir, 'p.gpkg');
    await startExport({ layers: [{ name: 'l', kind: 'compute', features: [feature()], count: 1 }], format: 'gpkg', destination: path });
    const db = new Database(path, { readonly: true });
    try {
      const table = db.prepare("SELECT table_name FROM gpkg_contents WHERE data_type = 'features'").pluck().get() as string;
      // Read as arrays: an object row would take "__proto__" as its prototype.
      const stmt = db.prepare(`SELECT * FROM "${table}"`).raw();
      const names = stmt.columns().map((c) => c.name);
      const row = stmt.get() as unknown[];
      for (const [k, v] of [['__proto__', 'p'], ['constructor', 'c'], ['prototype', 'q']]) {
        expect(names, k).toContain(k);
        expect(row[names.indexOf(k!)], k).toBe(v);
      }
    } finally {
      db.close();
    }
  });
});
