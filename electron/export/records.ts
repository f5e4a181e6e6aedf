import type { Geometry } from '../../shared/service/geojson';
import type { ComputeFeature } from '../../shared/service/compute';
import { COMPASS_POINTS, type ImageryRecord } from '../../shared/service/imagery';
import type { Observation } from '../../shared/service/stream';
import type { ExportLayer, LayerKind } from './types';

/** GeoPackage data column types used by the writers (all valid GPKG 1.3 types). */
export type ColumnType = 'TEXT' | 'REAL' | 'INTEGER' | 'BOOLEAN' | 'DATE';
export interface Column {
  name: string;
  type: ColumnType;
}
export type Cell = string | number | null;

/** One feature of any kind, flattened: fixed columns in COLUMNS order, uploaded attributes apart. */
export interface FlatRecord {
  id: string;
  geometry: Geometry | null;
  values: Cell[];
  attributes: Record<string, unknown> | null;
  /** GeoJSON properties as an RFC 7946 writer emits them. */
  properties: Record<string, unknown>;
}

/** The string feature id column; `fid` stays the integer primary key. */
export const ID_COLUMN = 'feature_id';
export const ATTRIBUTES_COLUMN = 'attributes';

export const COLUMNS: Record<LayerKind, readonly Column[]> = {
  compute: [
    { name: 'source_id', type: 'TEXT' },
    { name: 'name', type: 'TEXT' },
    { name: 'address', type: 'TEXT' },
    { name: 'score', type: 'REAL' },
    { name: 'distance_meters', type: 'REAL' },
    { name: 'source_name', type: 'TEXT' },
    { name: 'source_url', type: 'TEXT' },
  ],
  stream: [
    { name: 'feature_name', type: 'TEXT' },
    { name: 'address', type: 'TEXT' },
    { name: 'date', type: 'TEXT' },
    { name: 'year', type: 'TEXT' },
    { name: 'month', type: 'TEXT' },
    { name: 'source', type: 'TEXT' },
    { name: 'owner', type: 'TEXT' },
    { name: 'image_url', type: 'TEXT' },
    { name: 'is_video', type: 'BOOLEAN' },
    { name: 'video_id', type: 'TEXT' },
    { name: 'video_url', type: 'TEXT' },
    { name: 'duration', type: 'REAL' },
    { name: 'interactive', type: 'BOOLEAN' },
  ],
  imagery: [
    { name: 'address', type: 'TEXT' },
    { name: 'date', type: 'TEXT' },
    { name: 'capture_date', type: 'DATE' },
    { name: 'compass', type: 'TEXT' },
    { name: 'compass_degrees', type: 'REAL' },
    { name: 'interactive', type: 'BOOLEAN' },
    { name: 'image_url', type: 'TEXT' },
  ],
};

const str = (v: unknown): string | null => (typeof v === 'string' ? v : v == null ? null : String(v));
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const bool = (v: unknown): number | null => (typeof v === 'boolean' ? (v ? 1 : 0) : null);

const MONTH_INDEX = new Map(
  ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'].map(
    (m, i) => [m, i + 1],
  ),
);

/** "March 5, 2024" -> "2024-03-05"; null when the text has another form. */
export function isoCaptureDate(text: string): string | null {
  const m = /^\s*([A-Za-z]+)\s+(\d{1,2}),\s*(\d{4})\s*$/.exec(text);
  if (!m) return null;
  const month = MONTH_INDEX.get(m[1]!.toLowerCase());
  const day = Number(m[2]);
  if (!month || day < 1 || day > 31) return null;
  return `${m[3]}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

/** "North-East (NE)" -> 45; null when neither the abbreviation nor the name is known. */
export function compassDegrees(text: string): number | null {
  const abbr = /\(([A-Za-z]{1,3})\)\s*$/.exec(text)?.[1]?.toUpperCase();
  const name = text.replace(/\(.*$/, '').trim().toLowerCase();
  const i = COMPASS_POINTS.findIndex(([n, a]) => a === abbr || n.toLowerCase() === name);
  return i < 0 ? null : i * 22.5;
}

function computeRecord(f: ComputeFeature): FlatRecord {
  const p = f.properties;
  const attributes = p.attributes && typeof p.attributes === 'object' ? p.attributes : {};
  return {
    id: String(f.id),
    geometry: f.geometry ?? null,
    values: [str(p.source_id), str(p.name), str(p.address), num(p.score), num(p.distance_meters), str(p.source?.name), str(p.source?.url)],
    attributes,
    properties: p,
  };
}

function streamRecord(f: Observation): FlatRecord {
  const p = f.properties;
  return {
    id: String(f.id),
    geometry: f.geometry ?? null,
    values: [
      str(p.feature_name),
      str(p.address),
      str(p.date),
      str(p.year),
      str(p.month),
      str(p.source),
      str(p.owner),
      str(p.image_url),
      bool(p.is_video),
      str(p.video_id),
      str(p.video_url),
      num(p.duration),
      bool(p.interactive),
    ],
    attributes: null,
    properties: p,
  };
}

function imageryRecord(r: ImageryRecord): FlatRecord {
  const degrees = compassDegrees(r.compass);
  return {
    id: String(r.id),
    geometry: r.geometry ?? null,
    values: [str(r.address), str(r.date), isoCaptureDate(r.date), str(r.compass), degrees, bool(r.interactive), str(r.image)],
    attributes: null,
    properties: {
      address: r.address,
      date: r.date,
      compass: r.compass,
      compass_degrees: degrees,
      interactive: r.interactive,
      image: r.image,
    },
  };
}

/** Flattens the layer's features one by one, whatever kind and iterable it holds. */
export async function* flatRecords(layer: ExportLayer): AsyncGenerator<FlatRecord> {
  switch (layer.kind) {
    case 'compute':
      for await (const f of layer.features) yield computeRecord(f);
      return;
    case 'stream':
      for await (const f of layer.features) yield streamRecord(f);
      return;
    case 'imagery':
      for await (const r of layer.features) yield imageryRecord(r);
      return;
  }
}

/** Sync fast path: avoids one await per feature when the source is a plain iterable. */
export function syncRecords(layer: ExportLayer): Iterable<FlatRecord> | null {
  if (!(Symbol.iterator in layer.features)) return null;
  const map = (layer.kind === 'compute' ? computeRecord : layer.kind === 'stream' ? streamRecord : imageryRecord) as (
    f: unknown,
  ) => FlatRecord;
  const src = layer.features as Iterable<unknown>;
  return {
    *[Symbol.iterator]() {
      for (const f of src) yield map(f);
    },
  };
}

const T_INT = 1;
const T_REAL = 2;
const T_TEXT = 4;
const T_BOOL = 8;
const T_OTHER = 16;

export interface AttributeColumn {
  key: string;
  column: string;
  type: ColumnType;
}

/** Most uploaded columns a layer gets as typed columns; the rest stay in the JSON column. */
const MAX_ATTRIBUTE_COLUMNS = 500;

/**
 * Watches uploaded attribute values and decides which keys become typed columns: a key whose
 * non-null values are all integers, all numbers, all text or all booleans.
 */
export class AttributeTypes {
  private readonly seen = new Map<string, number>();

  observe(attrs: Record<string, unknown> | null): void {
    if (!attrs) return;
    for (const key in attrs) {
      const v = attrs[key];
      let t: number;
      if (v === null || v === undefined) t = 0;
      else if (typeof v === 'number') t = Number.isInteger(v) ? T_INT : T_REAL;
      else if (typeof v === 'string') t = T_TEXT;
      else if (typeof v === 'boolean') t = T_BOOL;
      else t = T_OTHER;
      this.seen.set(key, (this.seen.get(key) ?? 0) | t);
    }
  }

  /** Typed columns, named after their keys unless that would clash with `reserved` (case-insensitive). */
  columns(reserved: Iterable<string>): AttributeColumn[] {
    const taken = new Set([...reserved].map((n) => n.toLowerCase()));
    const out: AttributeColumn[] = [];
    for (const [key, mask] of this.seen) {
      if (out.length >= MAX_ATTRIBUTE_COLUMNS) break;
      const type: ColumnType | null =
        mask === T_INT ? 'INTEGER' : mask === T_REAL || mask === (T_INT | T_REAL) ? 'REAL' : mask === T_TEXT ? 'TEXT' : mask === T_BOOL ? 'BOOLEAN' : null;
      if (!type || key.trim() === '' || key.includes('"')) continue;
      let column = key;
      for (let n = 1; taken.has(column.toLowerCase()); n++) column = n === 1 ? `attr_${key}` : `attr_${key}_${n}`;
      taken.add(column.toLowerCase());
      out.push({ key, column, type });
    }
    return out;
  }
}
