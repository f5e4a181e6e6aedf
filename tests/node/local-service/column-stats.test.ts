import { describe, expect, it } from 'vitest';
import { ColumnStats, MAX_DISTINCT } from '../../../electron/local-service/upload/column-stats';
import { UploadSet } from '../../../electron/local-service/upload/set';
import type { TypedColumn, UploadFeature } from '../../../electron/local-service/upload/types';

const numericValue = (v: unknown) => (typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN);

/** Columns that hold only numbers, by a pass over every row (what the upload source once computed). */
const numericByScan = (rows: Record<string, unknown>[], keys: string[]) =>
  keys.filter((k) => rows.some((a) => a[k] !== undefined) && rows.every((a) => a[k] === undefined || a[k] === '' || Number.isFinite(numericValue(a[k]))));

// A table as read: text cells; "rank" all numbers with an empty cell, "open" true/false, "kind" text.
const raw: Record<string, string>[] = Array.from({ length: 120 }, (_, i) => ({
  name: `site ${i}`,
  rank: i % 7 === 3 ? '' : String(i % 11),
  open: i % 2 ? 'true' : 'FALSE',
  kind: ['well', 'depot', '', 'yard'][i % 4]!,
  code: `00${i % 3}`,
}));
const typed: TypedColumn[] = [
  { key: 'rank', as: 'number' },
  { key: 'open', as: 'boolean' },
];
const typedRow = (r: Record<string, string>): Record<string, unknown> => ({
  ...r,
  rank: r['rank'] === '' ? null : Number(r['rank']),
  open: r['open']!.toLowerCase() === 'true',
});

describe('column stats', () => {
  it('gathered on a table’s text and then typed equal those of the typed rows', () => {
    const fromText = new ColumnStats();
    for (const r of raw) fromText.add(r);
    fromText.retype(typed);
    const fromTyped = new ColumnStats();
    const rows = raw.map(typedRow);
    for (const r of rows) fromTyped.add(r);
    expect(fromText.states()).toEqual(fromTyped.states());
    // An empty cell of a number column is null once typed: not a numeric column to rank by. Codes
    // with leading zeros stay text (not typed) but read as numbers.
    expect(fromText.numericColumns()).toEqual(numericByScan(rows, Object.keys(rows[0]!)));
    expect(fromText.numericColumns()).toEqual(['code']);
  });

  it('of two halves merged equal those of one pass, capped at the distinct values a category has', () => {
    const rows: Record<string, unknown>[] = [
      ...raw.slice(0, 50),
      ...raw.slice(50).map((r, i) => ({ ...r, extra: i % 2 ? 1.5 : '', late: i < 3 ? 'x' : 4 })),
    ];
    const one = new ColumnStats();
    for (const r of rows) one.add(r);
    const a = new ColumnStats();
    const b = new ColumnStats();
    rows.forEach((r, i) => (i < 61 ? a : b).add(r));
    a.merge(b);
    expect(a.states()).toEqual(one.states());
    expect(one.states().find((c) => c.key === 'name')!.texts).toHaveLength(MAX_DISTINCT + 1);
    expect(one.states().find((c) => c.key === 'kind')!.texts).toEqual(['well', 'depot', '', 'yard']);
    expect(one.numericColumns()).toEqual(numericByScan(rows, one.keys()));
    expect(one.numericColumns()).toContain('extra');
  });

  it('an upload set answers columns and numeric columns as a scan of its features', () => {
    const features: UploadFeature[] = raw.map((r, i) => ({
      id: String(i),
      file: i < 60 ? 'a.csv' : 'b.csv',
      name: r['name']!,
      address: '',
      geometry: { type: 'Point', coordinates: [i / 10, i / 20] },
      lon: i / 10,
      lat: i / 20,
      country: '',
      attributes: i < 60 ? r : { ...r, depth: i },
    }));
    const set = UploadSet.concat([UploadSet.of(features.slice(0, 60)), UploadSet.of(features.slice(60))]);
    expect(set.length).toBe(120);
    expect(set.files()).toEqual(['a.csv', 'b.csv']);
    expect(set.columns()).toEqual([...new Set(features.flatMap((f) => Object.keys(f.attributes)))]);
    expect(set.stats().numericColumns()).toEqual(numericByScan(features.map((f) => f.attributes), set.columns()));
    expect(set.get(75)).toBe(features[75]);
    expect([set.lon(75), set.lat(75), set.file(75)]).toEqual([7.5, 3.75, 'b.csv']);
  });
});
