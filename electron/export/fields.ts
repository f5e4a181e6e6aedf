import type { Cell, Column, ColumnType } from './records';

/**
 * The flat field set of an export, shared by the GeoPackage and CSV writers so their columns
 * cannot drift. A GeoJSON feature's properties flatten the same way: the spec fields of its
 * kind (declared types), then every other property, then every member of
 * `properties.attributes`, each in the order first seen.
 *
 * A derived column's type comes from all its non-null values: all integers INTEGER; integers
 * and reals REAL; all booleans BOOLEAN; all ISO dates (2024-05-01) DATE; all ISO date-times
 * with a zone (Z or +02:00) DATETIME, written in UTC as GeoPackage requires; anything else
 * (text, or a mix) TEXT, where numbers and booleans are written as JSON writes them and objects
 * and arrays as JSON text.
 *
 * Naming rule (case-insensitive): a property whose name is taken by a reserved name or an
 * earlier column gets the first free `_1`, `_2`, ... suffix (`feature_id_1`); an attribute
 * whose name is taken becomes `attr_<name>`, then `attr_<name>_2`, ... (an uploaded `name`
 * column becomes `attr_name` beside the feature's own `name`, unless it repeats it: records.ts
 * leaves such an echo out).
 */

/** Column names the writers use themselves: GeoPackage's fid and geometry, the CSV frame. */
export const RESERVED_NAMES: readonly string[] = ['fid', 'geom', 'feature_id', 'layer', 'layer_kind', 'lon', 'lat', 'wkt'];

/** Where columns beyond the limit go, as one JSON object keyed by their column names. */
export const OVERFLOW_NAME = 'other_fields';

/** SQLite allows 2000 columns; a layer keeps well under that with the fixed columns. */
export const MAX_DERIVED_COLUMNS = 1000;

export interface DerivedField extends Column {
  /** Property name or attribute key as the feature carries it. */
  key: string;
  origin: 'property' | 'attribute';
  /** Every cell is the JSON value itself (booleans as 0/1): a writer may copy it unconverted. */
  plain: boolean;
}

export interface FieldLayout {
  spec: readonly Column[];
  derived: DerivedField[];
  /** Name of the JSON column for fields past the limit, or null when every field has its own. */
  overflow: string | null;
  /** Fields kept inside the overflow column. */
  overflowed: DerivedField[];
}

const T_INT = 1;
const T_REAL = 2;
const T_BOOL = 4;
const T_DATE = 8;
const T_DATETIME = 16;
const T_TEXT = 32;
const T_OTHER = 64;

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;
// Up to milliseconds: what a GeoPackage DATETIME holds, so nothing is rounded away.
const DATETIME_RE = /^(\d{4}-\d{2}-\d{2})T([01]\d|2[0-3]):([0-5]\d)(?::([0-5]\d)(?:\.\d{1,3})?)?(?:Z|[+-](?:[01]\d|2[0-3]):[0-5]\d)$/;

function isIsoDate(s: string): boolean {
  const m = DATE_RE.exec(s);
  if (!m) return false;
  const y = Number(m[1]);
  const mo = Number(m[2]);
  const d = Number(m[3]);
  const t = new Date(Date.UTC(y, mo - 1, d));
  return t.getUTCFullYear() === y && t.getUTCMonth() === mo - 1 && t.getUTCDate() === d;
}

function isIsoDateTime(s: string): boolean {
  const m = DATETIME_RE.exec(s);
  return !!m && isIsoDate(m[1]!) && !Number.isNaN(Date.parse(s));
}

function typeBit(v: unknown): number {
  if (v === null || v === undefined) return 0;
  switch (typeof v) {
    case 'number':
      return Number.isSafeInteger(v) ? T_INT : T_REAL;
    case 'boolean':
      return T_BOOL;
    case 'string':
      return isIsoDate(v) ? T_DATE : isIsoDateTime(v) ? T_DATETIME : T_TEXT;
    default:
      return T_OTHER;
  }
}

const PLAIN_TEXT = T_TEXT | T_DATE | T_DATETIME;
const isPlain = (mask: number, type: ColumnType) => type !== 'DATETIME' && (type !== 'TEXT' || (mask & ~PLAIN_TEXT) === 0);

function typeOf(mask: number): ColumnType {
  switch (mask) {
    case T_INT:
      return 'INTEGER';
    case T_REAL:
    case T_INT | T_REAL:
      return 'REAL';
    case T_BOOL:
      return 'BOOLEAN';
    case T_DATE:
      return 'DATE';
    case T_DATETIME:
      return 'DATETIME';
    default:
      return 'TEXT';
  }
}

/** One value as the column of `type` holds it. */
export function cellOf(type: ColumnType, v: unknown): Cell {
  if (v === null || v === undefined) return null;
  switch (type) {
    case 'INTEGER':
    case 'REAL':
      return v as number;
    case 'BOOLEAN':
      return v ? 1 : 0;
    case 'DATE':
      return v as string;
    case 'DATETIME':
      return new Date(v as string).toISOString();
    case 'TEXT':
      return typeof v === 'string' ? v : typeof v === 'object' ? JSON.stringify(v) : String(v);
  }
}

/** Watches the features of one layer (or one CSV file) and derives its flat columns. */
export class FieldSet {
  private readonly properties = new Map<string, number>();
  private readonly attributes = new Map<string, number>();

  constructor(
    private readonly spec: readonly Column[],
    private readonly maxDerived = MAX_DERIVED_COLUMNS,
  ) {}

  observe(properties: Record<string, unknown> | null, attributes: Record<string, unknown> | null): void {
    if (properties) for (const k in properties) this.properties.set(k, (this.properties.get(k) ?? 0) | typeBit(properties[k]));
    if (attributes) for (const k in attributes) this.attributes.set(k, (this.attributes.get(k) ?? 0) | typeBit(attributes[k]));
  }

  layout(): FieldLayout {
    const taken = new Set([...RESERVED_NAMES, ...this.spec.map((c) => c.name)].map((n) => n.toLowerCase()));
    const claim = (name: string) => {
      taken.add(name.toLowerCase());
      return name;
    };
    const all: DerivedField[] = [];
    for (const [key, mask] of this.properties) {
      const base = key.trim() || 'field';
      let name = base;
      for (let n = 1; taken.has(name.toLowerCase()); n++) name = `${base}_${n}`;
      const type = typeOf(mask);
      all.push({ key, origin: 'property', name: claim(name), type, plain: isPlain(mask, type) });
    }
    for (const [key, mask] of this.attributes) {
      const base = key.trim() || 'field';
      let name = base;
      for (let n = 1; taken.has(name.toLowerCase()); n++) name = n === 1 ? `attr_${base}` : `attr_${base}_${n}`;
      const type = typeOf(mask);
      all.push({ key, origin: 'attribute', name: claim(name), type, plain: isPlain(mask, type) });
    }
    if (all.length <= this.maxDerived) return { spec: this.spec, derived: all, overflow: null, overflowed: [] };
    let overflow = OVERFLOW_NAME;
    for (let n = 1; taken.has(overflow.toLowerCase()); n++) overflow = `${OVERFLOW_NAME}_${n}`;
    return { spec: this.spec, derived: all.slice(0, this.maxDerived), overflow, overflowed: all.slice(this.maxDerived) };
  }
}

/** Names of every column in layout order, after whatever columns the writer puts first. */
export function layoutColumns(layout: FieldLayout): Column[] {
  return [...layout.spec, ...layout.derived, ...(layout.overflow ? [{ name: layout.overflow, type: 'TEXT' as const }] : [])];
}

/** The derived cells of one feature (and its overflow JSON, when the layout has one). */
export function derivedCells(
  layout: FieldLayout,
  properties: Record<string, unknown> | null,
  attributes: Record<string, unknown> | null,
  out: Cell[] = [],
  at = 0,
): Cell[] {
  for (const f of layout.derived) out[at++] = cellOf(f.type, (f.origin === 'property' ? properties : attributes)?.[f.key]);
  if (layout.overflow) {
    let rest: Record<string, unknown> | null = null;
    for (const f of layout.overflowed) {
      const v = (f.origin === 'property' ? properties : attributes)?.[f.key];
      if (v !== null && v !== undefined) (rest ??= {})[f.name] = v;
    }
    out[at++] = rest ? JSON.stringify(rest) : null;
  }
  return out;
}
