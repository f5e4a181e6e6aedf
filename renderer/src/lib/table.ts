import type { LatLon } from '../../../shared/coords';
import type { ComputeFeature } from '../../../shared/service/compute';
import { positionOf } from '../components/fieldkit/positionOf';

/** One line of the results table: the service's order is kept as `rank`. */
export interface TableRow {
  id: string;
  rank: number;
  name: string;
  address: string;
  /** Metres from the asked position; null when the answer measured none. */
  distance: number | null;
  score: number | null;
  source: string;
  /** Where the feature is (a point, else its box centre), for copying; null without geometry. */
  position: LatLon | null;
  /** Every other property, and each uploaded attribute (by its own name), for chosen columns. */
  extra: Record<string, unknown>;
}

/** Properties the fixed columns already show (or that are not one value). */
const SHOWN = new Set(['name', 'address', 'distance_meters', 'score', 'source', 'attributes']);

function extraOf(p: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(p)) if (!SHOWN.has(k) && (v === null || typeof v !== 'object')) out[k] = v;
  const attrs = p['attributes'];
  if (attrs && typeof attrs === 'object' && !Array.isArray(attrs))
    for (const [k, v] of Object.entries(attrs)) if (!(k in out) && (v === null || typeof v !== 'object')) out[k] = v;
  return out;
}

/** Every property or attribute some row has, in the order first met: what the column chooser offers. */
export function extraColumns(rows: readonly TableRow[]): string[] {
  const seen = new Set<string>();
  for (const r of rows) for (const k of Object.keys(r.extra)) seen.add(k);
  return [...seen];
}

/**
 * The columns of the figure a question asked about, among those offered: the ones its reading's
 * order or measurement names ("largest capacity first", "count per country", "area"), so the
 * figure shows in the table without choosing it.
 */
export function askedColumns(reading: { order?: string | undefined; measurement?: string | undefined } | null, offered: readonly string[]): string[] {
  if (!reading) return [];
  const said = ` ${[reading.order, reading.measurement].filter(Boolean).join(' ').toLowerCase().replace(/[_\s]+/g, ' ')} `;
  return offered.filter((c) => {
    const name = c.toLowerCase().replace(/_/g, ' ');
    // "area_km2" is the area asked about, "length_m" the length.
    const base = name.replace(/ (km2|m2|km|m|ha|mi)$/, '');
    return said.includes(` ${name} `) || said.includes(` ${base} `);
  });
}

/** Of the asked columns, those that hold a figure (a number in some row): what a map label shows after the name. */
export function figureColumns(asked: readonly string[], rows: readonly TableRow[]): string[] {
  return asked.filter((c) => rows.some((r) => typeof r.extra[c] === 'number'));
}

/** A fixed column, or a chosen one by its property name (`x:population`). */
export type SortKey = 'rank' | 'name' | 'address' | 'distance' | 'score' | 'source' | `x:${string}`;
export type SortDir = 'asc' | 'desc';
export interface Sort {
  key: SortKey;
  dir: SortDir;
}

export const tableRows = (features: readonly ComputeFeature[]): TableRow[] =>
  features.map((f, i) => ({
    id: f.id,
    rank: i + 1,
    name: f.properties.name || f.id,
    address: f.properties.address,
    // Compute sends 0 when the question had no reference point: nothing to show then.
    distance: f.properties.distance_meters > 0 ? f.properties.distance_meters : null,
    score: Number.isFinite(f.properties.score) ? f.properties.score : null,
    source: f.properties.source?.name ?? '',
    position: positionOf(f.geometry),
    extra: extraOf(f.properties as Record<string, unknown>),
  }));

const valueOf = (r: TableRow, key: SortKey): unknown => (key.startsWith('x:') ? r.extra[key.slice(2)] : r[key as Exclude<SortKey, `x:${string}`>]);

const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' });
const blank = (v: unknown) => v === null || v === undefined || v === '';

/**
 * Rows in the order of one column. Missing values go last in either direction (as in a
 * spreadsheet); ties keep the service's order, so a sort never shuffles equal rows.
 */
export function sortRows(rows: readonly TableRow[], sort: Sort): TableRow[] {
  const sign = sort.dir === 'asc' ? 1 : -1;
  return [...rows].sort((a, b) => {
    const x = valueOf(a, sort.key);
    const y = valueOf(b, sort.key);
    if (blank(x) || blank(y)) return blank(x) === blank(y) ? a.rank - b.rank : blank(x) ? 1 : -1;
    const c = typeof x === 'number' && typeof y === 'number' ? x - y : collator.compare(String(x), String(y));
    return c !== 0 ? sign * c : a.rank - b.rank;
  });
}

/** A click on a column header: the same column flips direction, another starts ascending. */
export const nextSort = (current: Sort, key: SortKey): Sort =>
  current.key === key ? { key, dir: current.dir === 'asc' ? 'desc' : 'asc' } : { key, dir: key === 'score' ? 'desc' : 'asc' };
