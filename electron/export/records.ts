import type { Geometry } from '../../shared/service/geojson';
import type { ComputeFeature } from '../../shared/service/compute';
import { COMPASS_POINTS, type ImageryRecord } from '../../shared/service/imagery';
import type { Observation } from '../../shared/service/stream';
import type { ExportLayer, LayerKind } from './types';

/** GeoPackage data column types used by the writers (all valid GPKG 1.3 types). */
export type ColumnType = 'TEXT' | 'REAL' | 'INTEGER' | 'BOOLEAN' | 'DATE' | 'DATETIME';
export interface Column {
  name: string;
  type: ColumnType;
}
export type Cell = string | number | null;

/** One feature of any kind: spec fields in COLUMNS order, then its other properties and uploaded attributes as they were. */
export interface FlatRecord {
  id: string;
  geometry: Geometry | null;
  values: Cell[];
  /** Properties beyond the spec fields of its kind (kind, country, iata, ...); see fields.ts. */
  extras: Record<string, unknown> | null;
  attributes: Record<string, unknown> | null;
  /** GeoJSON properties as an RFC 7946 writer emits them. */
  properties: Record<string, unknown>;
}

/** The string feature id column; `fid` stays the integer primary key. */
export const ID_COLUMN = 'feature_id';

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

/** A column of a layer's table and how it reads a feature (its properties, or the record itself). */
interface FieldColumn<T> extends Column {
  read(x: T): Cell;
}
const col = <T>(name: string, type: ColumnType, read: (x: T) => Cell): FieldColumn<T> => ({ name, type, read });

type ComputeProps = ComputeFeature['properties'];
type StreamProps = Observation['properties'];
/** An imagery record with the two fields derived from its date and compass text. */
type ImageryRow = ImageryRecord & { captureDate: string | null; degrees: number | null };

/** Each layer kind's spec fields, in column order: the one list its table and its values come from. */
const FIELDS = {
  compute: [
    col<ComputeProps>('source_id', 'TEXT', (p) => str(p.source_id)),
    col<ComputeProps>('name', 'TEXT', (p) => str(p.name)),
    col<ComputeProps>('address', 'TEXT', (p) => str(p.address)),
    col<ComputeProps>('score', 'REAL', (p) => num(p.score)),
    col<ComputeProps>('distance_meters', 'REAL', (p) => num(p.distance_meters)),
    col<ComputeProps>('source_name', 'TEXT', (p) => str(p.source?.name)),
    col<ComputeProps>('source_url', 'TEXT', (p) => str(p.source?.url)),
  ],
  stream: [
    col<StreamProps>('feature_name', 'TEXT', (p) => str(p.feature_name)),
    col<StreamProps>('address', 'TEXT', (p) => str(p.address)),
    col<StreamProps>('date', 'TEXT', (p) => str(p.date)),
    col<StreamProps>('year', 'TEXT', (p) => str(p.year)),
    col<StreamProps>('month', 'TEXT', (p) => str(p.month)),
    col<StreamProps>('source', 'TEXT', (p) => str(p.source)),
    col<StreamProps>('owner', 'TEXT', (p) => str(p.owner)),
    col<StreamProps>('image_url', 'TEXT', (p) => str(p.image_url)),
    col<StreamProps>('is_video', 'BOOLEAN', (p) => bool(p.is_video)),
    col<StreamProps>('video_id', 'TEXT', (p) => str(p.video_id)),
    col<StreamProps>('video_url', 'TEXT', (p) => str(p.video_url)),
    col<StreamProps>('duration', 'REAL', (p) => num(p.duration)),
    col<StreamProps>('interactive', 'BOOLEAN', (p) => bool(p.interactive)),
  ],
  imagery: [
    col<ImageryRow>('address', 'TEXT', (r) => str(r.address)),
    col<ImageryRow>('date', 'TEXT', (r) => str(r.date)),
    col<ImageryRow>('capture_date', 'DATE', (r) => r.captureDate),
    col<ImageryRow>('compass', 'TEXT', (r) => str(r.compass)),
    col<ImageryRow>('compass_degrees', 'REAL', (r) => r.degrees),
    col<ImageryRow>('interactive', 'BOOLEAN', (r) => bool(r.interactive)),
    col<ImageryRow>('image_url', 'TEXT', (r) => str(r.image)),
  ],
};

const columnsOf = (list: readonly Column[]): readonly Column[] => list.map(({ name, type }) => ({ name, type }));
/** The spec-field columns of each layer kind's table, in order (derived from FIELDS). */
export const COLUMNS: Record<LayerKind, readonly Column[]> = {
  compute: columnsOf(FIELDS.compute),
  stream: columnsOf(FIELDS.stream),
  imagery: columnsOf(FIELDS.imagery),
};

const valuesOf = <T>(list: readonly FieldColumn<T>[], x: T): Cell[] => list.map((c) => c.read(x));

const COMPUTE_SPEC = new Set(['source_id', 'name', 'address', 'score', 'distance_meters', 'source', 'attributes']);
const SOURCE_SPEC = new Set(['name', 'url']);
const STREAM_SPEC = new Set(COLUMNS.stream.map((c) => c.name));
const IMAGERY_SPEC = new Set(['id', 'geometry', 'address', 'date', 'compass', 'interactive', 'image']);

/** The members of `o` not in `spec`, or null when there are none. */
function rest(o: object, spec: Set<string>, into: Record<string, unknown> | null = null): Record<string, unknown> | null {
  const r = o as Record<string, unknown>;
  for (const k in r) if (!spec.has(k)) (into ??= {})[k] = r[k];
  return into;
}

/**
 * An uploaded file's columns without those repeating a property of the same name (ignoring case)
 * with the same value: an uploaded `name` column is the feature's `name`, written once.
 */
function withoutEchoes(attributes: Record<string, unknown>, p: Record<string, unknown>): Record<string, unknown> {
  const props = new Map(Object.keys(p).map((k) => [k.toLowerCase(), p[k]]));
  const echoes = (k: string) => {
    const v = attributes[k];
    const same = props.get(k.toLowerCase());
    return k !== 'attributes' && same != null && v != null && typeof v !== 'object' && String(v) === String(same);
  };
  const keys = Object.keys(attributes);
  if (!keys.some(echoes)) return attributes;
  const out: Record<string, unknown> = {};
  // Defined, not assigned: a column named __proto__ stays a column.
  for (const k of keys) if (!echoes(k)) Object.defineProperty(out, k, { value: attributes[k], enumerable: true, writable: true, configurable: true });
  return out;
}

/**
 * GeoJSON properties with the uploaded columns flat beside the service's, as a file of them
 * would have them (so the export can be uploaded again and asked about its columns); a column
 * whose name a property holds (ignoring case, `layer` included) becomes `attr_<name>`, as in
 * GeoPackage and CSV.
 */
function flatProperties(p: Record<string, unknown>, attributes: Record<string, unknown> | null): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k in p) if (k !== 'attributes') out[k] = p[k];
  if (!attributes) {
    if (p['attributes'] != null && typeof p['attributes'] !== 'object') out['attributes'] = p['attributes'];
    return out;
  }
  const taken = new Set(['layer', ...Object.keys(out)].map((k) => k.toLowerCase()));
  for (const k in attributes) {
    let name = k;
    for (let n = 1; taken.has(name.toLowerCase()); n++) name = n === 1 ? `attr_${k}` : `attr_${k}_${n}`;
    taken.add(name.toLowerCase());
    out[name] = attributes[k];
  }
  return out;
}

function computeRecord(f: ComputeFeature): FlatRecord {
  const p = f.properties;
  const attributes =
    p.attributes && typeof p.attributes === 'object' && !Array.isArray(p.attributes) ? withoutEchoes(p.attributes as Record<string, unknown>, p) : null;
  // Members of `source` beyond name and url follow as source_<member>; a property of that name wins.
  let extras: Record<string, unknown> | null = null;
  if (p.source && typeof p.source === 'object')
    for (const k in p.source) if (!SOURCE_SPEC.has(k)) (extras ??= {})[`source_${k}`] = (p.source as Record<string, unknown>)[k];
  extras = rest(p, COMPUTE_SPEC, extras);
  // Not an object (off spec): kept as a plain property rather than lost.
  if (!attributes && p.attributes != null) (extras ??= {})['attributes'] = p.attributes;
  return {
    id: String(f.id),
    geometry: f.geometry ?? null,
    values: valuesOf(FIELDS.compute, p),
    extras,
    attributes,
    properties: flatProperties(p, attributes),
  };
}

function streamRecord(f: Observation): FlatRecord {
  const p = f.properties;
  return {
    id: String(f.id),
    geometry: f.geometry ?? null,
    values: valuesOf(FIELDS.stream, p),
    extras: rest(p, STREAM_SPEC),
    attributes: null,
    properties: p,
  };
}

function imageryRecord(r: ImageryRecord): FlatRecord {
  const degrees = compassDegrees(r.compass);
  const extras = rest(r, IMAGERY_SPEC);
  return {
    id: String(r.id),
    geometry: r.geometry ?? null,
    values: valuesOf(FIELDS.imagery, { ...r, captureDate: isoCaptureDate(r.date), degrees }),
    extras,
    attributes: null,
    properties: {
      address: r.address,
      date: r.date,
      compass: r.compass,
      compass_degrees: degrees,
      interactive: r.interactive,
      image: r.image,
      ...extras,
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
