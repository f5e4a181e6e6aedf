import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { writeGeoPackage } from '../../../electron/export/gpkg';
import type { ExportLayer } from '../../../electron/export/types';

/**
 * A file's columns as a GeoPackage holds them: an uploaded column repeating the feature's own
 * property (an uploaded `name`) is written once, and a file or data layer beside the answers
 * carries none of the service's empty fields.
 */
const dir = mkdtempSync(join(tmpdir(), 'fieldlens-upload-columns-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const site = (id: string, name: string, attributes: Record<string, unknown>) => ({
  type: 'Feature' as const,
  id,
  geometry: { type: 'Point' as const, coordinates: [10 + Number(id.slice(1)), 50] as [number, number] },
  properties: { name, address: '', attributes } as never,
});
const sites = [site('s1', 'North gate', { name: 'North gate', status: 'open' }), site('s2', 'South gate', { name: 'South gate', status: 'closed' })];

function columnsAndRows(path: string, table: string) {
  const db = new Database(path, { readonly: true });
  try {
    const cols = (db.prepare(`PRAGMA table_info("${table}")`).all() as { name: string }[]).map((c) => c.name);
    return { cols, rows: db.prepare(`SELECT * FROM "${table}" ORDER BY fid`).all() as Record<string, unknown>[] };
  } finally {
    db.close();
  }
}

describe('uploaded columns in a GeoPackage', () => {
  it('writes an uploaded name equal to the feature name once, and keeps one that differs as attr_name', async () => {
    const path = join(dir, 'echo.gpkg');
    const differs = [site('s3', 'East gate', { name: 'Gate E', status: 'open' })];
    await writeGeoPackage(
      path,
      [
        { kind: 'compute', name: 'sites', features: sites },
        { kind: 'compute', name: 'renamed', features: differs },
      ] as ExportLayer[],
      { tick: () => undefined },
    );
    const same = columnsAndRows(path, 'sites');
    expect(same.cols.filter((c) => /^(attr_)?name/i.test(c))).toEqual(['name']);
    expect(same.rows.map((r) => [r['name'], r['status']])).toEqual([
      ['North gate', 'open'],
      ['South gate', 'closed'],
    ]);
    const other = columnsAndRows(path, 'renamed');
    expect(other.rows.map((r) => [r['name'], r['attr_name']])).toEqual([['East gate', 'Gate E']]);
  });

  it('leaves the service columns no feature fills out of an upload or data layer, not out of an answer', async () => {
    const path = join(dir, 'roles.gpkg');
    await writeGeoPackage(
      path,
      [
        { kind: 'compute', name: 'answer', features: sites },
        { kind: 'compute', name: 'upload', role: 'upload', features: sites },
      ] as ExportLayer[],
      { tick: () => undefined },
    );
    const answer = columnsAndRows(path, 'answer').cols;
    const upload = columnsAndRows(path, 'upload').cols;
    expect(answer).toEqual(expect.arrayContaining(['source_id', 'score', 'distance_meters', 'source_name', 'source_url']));
    expect(upload).toEqual(['fid', 'geom', 'feature_id', 'name', 'address', 'status']);
  });
});
