import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Papa from 'papaparse';
import { afterAll, describe, expect, it } from 'vitest';
import { startExport } from '../../../electron/export/job';
import type { ComputeFeature } from '../../../shared/service/compute';

const dir = mkdtempSync(join(tmpdir(), 'fieldlens-csv-formulas-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// What a spreadsheet would run, and what it must see instead (OWASP: a leading apostrophe).
const formulas: [string, string][] = [
  ['=HYPERLINK("http://example.invalid/?x","click")', `'=HYPERLINK("http://example.invalid/?x","click")`],
  ['+cmd|/c calc!A1', `'+cmd|/c calc!A1`],
  ['-2+3+cmd|/c calc!A1', `'-2+3+cmd|/c calc!A1`],
  ['@SUM(1+1)*cmd|/c calc!A1', `'@SUM(1+1)*cmd|/c calc!A1`],
  ['\t=1+1', `'\t=1+1`],
  ['\r=1+1', `'\r=1+1`],
];
// Values that stay as they are: numbers, text holding a number, ordinary text.
const kept: [string, unknown, string][] = [
  ['negative', -12.5, '-12.5'],
  ['negative_text', '-12.5', '-12.5'],
  ['plus_text', '+33', '+33'],
  ['exponent_text', '-1.5e3', '-1.5e3'],
  ['plain', 'a = b', 'a = b'],
];

function feature(): ComputeFeature {
  const attributes: Record<string, unknown> = {};
  formulas.forEach(([v], i) => (attributes[`f${i}`] = v));
  for (const [k, v] of kept) attributes[k] = v;
  return {
    type: 'Feature',
    id: 'x-1',
    geometry: { type: 'Point', coordinates: [-3.7, -40.4] },
    properties: {
      source_id: 'x-1',
      name: '=1+1',
      address: '',
      score: 1,
      distance_meters: 0,
      source: { name: 'Uploaded', url: 'upload:x.csv' },
      attributes,
    },
  } as ComputeFeature;
}

describe('CSV export and spreadsheet formulas', () => {
  it('writes cells that start with = + - @ tab or CR with a leading apostrophe, and numbers as numbers', async () => {
    const path = join(dir, 'out.csv');
    await startExport({ layers: [{ name: '=layer', kind: 'compute', features: [feature()], count: 1 }], format: 'csv', destination: path });
    const rows = Papa.parse<Record<string, string>>(readFileSync(path, 'utf8'), { header: true, skipEmptyLines: true }).data;
    expect(rows).toHaveLength(1);
    const row = rows[0]!;
    formulas.forEach(([, shown], i) => expect(row[`f${i}`], `f${i}`).toBe(shown));
    for (const [k, , shown] of kept) expect(row[k], k).toBe(shown);
    expect(row['name']).toBe("'=1+1");
    expect(row['layer']).toBe("'=layer");
    // Negative coordinates are numbers and stay so.
    expect(row['lon']).toBe('-3.7');
    expect(row['lat']).toBe('-40.4');
  });
});
