import type { Geometry } from 'geojson';

/** One feature of an uploaded file, with a representative point for distances. */
export interface UploadFeature {
  id: string;
  file: string;
  name: string;
  address: string;
  geometry: Geometry;
  lon: number;
  lat: number;
  /** ISO alpha-2 of the country holding the representative point ('' if none). */
  country: string;
  attributes: Record<string, unknown>;
}

/**
 * An upload that cannot be used at all: the route answers 400 naming the file (and the line
 * when one is to blame), with `code` saying which kind of problem it is.
 */
export class UploadError extends Error {
  constructor(
    readonly file: string,
    readonly line: number | null,
    /** What is wrong, without the file and line (the message adds them). */
    readonly reason: string,
    readonly code: UploadErrorCode = 'unreadable',
  ) {
    super(`${file}${line !== null ? ` line ${line}` : ''}: ${reason}`);
  }
}

export type UploadErrorCode =
  | 'unreadable'
  | 'binary'
  | 'empty'
  | 'header_only'
  | 'no_coordinate_columns'
  | 'no_usable_rows'
  | 'crs'
  | 'invalid_json'
  | 'not_geojson'
  | 'features_not_array'
  | 'too_deep'
  | 'too_many_vertices'
  | 'not_csv';

/**
 * Sets a property as the object's own, whatever its name: a plain assignment to "__proto__"
 * would change the prototype instead and the column would vanish.
 */
export function setOwn(o: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true });
  else o[key] = value;
}

/** The warning for a column named "__proto__": kept, but leaves readers that guard against prototype pollution. */
export function protoWarning(file: string, what: 'column' | 'property'): UploadWarning {
  return {
    code: 'reserved_name',
    message: `${file}: the ${what} "__proto__" is kept in the answer, but JSON readers that guard against prototype pollution (this app's among them) leave a property of that name out; rename it to see it everywhere`,
    file,
    column: '__proto__',
  };
}

export interface UploadWarning {
  code: string;
  message: string;
  [extra: string]: unknown;
}

/** A table column whose every filled value is a number (or true/false): its values become such. */
export interface TypedColumn {
  key: string;
  as: 'number' | 'boolean';
}

/** Where a reader puts the features it reads when they are not to be held (a parsing worker's spool). */
export interface RowSink {
  /** A feature read; a table's attributes still as text, typed when `typed` says how. */
  add(f: UploadFeature): void;
  typed(columns: TypedColumn[]): void;
  readonly count: number;
}

/** What a reader needs besides the bytes: the country lookup and where to report. */
export interface ReadContext {
  countryAt: (lon: number, lat: number) => string;
  report: import('./report').UploadReport;
  /** Awaited between slices of work so other requests keep being answered. */
  slice: import('./slice').Slicer;
  /**
   * Headers that name a column of names in other languages (normalised as `norm` does), asked
   * for only when no English one is found: loading them takes a moment.
   */
  nameHeaders?: () => ReadonlySet<string>;
  /** Told which CSV columns were chosen for the coordinates (a preview shows them). */
  onColumns?: (file: string, columns: { latitude: string | null; longitude: string | null; wkt: string | null }) => void;
  /** Given: features go there, and the reader returns none. */
  sink?: RowSink;
}
