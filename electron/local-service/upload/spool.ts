import { closeSync, openSync, rmSync, writeSync } from 'node:fs';
import type { Geometry } from 'geojson';
import { ColumnStats, type ColumnState } from './column-stats';
import type { RowSink, TypedColumn, UploadFeature } from './types';

/**
 * Geometry types by code. Code 0 is a point of two coordinates equal to the representative point:
 * it is not written, the point is made again from `lon`/`lat`.
 */
export const GEOMETRY_TYPES = ['Point', 'Point', 'MultiPoint', 'LineString', 'MultiLineString', 'Polygon', 'MultiPolygon', 'GeometryCollection'] as const;
const CODE = new Map<string, number>(GEOMETRY_TYPES.map((t, i) => [t, i]).slice(1) as [string, number][]);

/**
 * One file's features as a parsing worker hands them over: the positions, geometry types and
 * byte offsets as typed arrays (transferred, not copied), the rows themselves one JSON line each
 * in a spool file on disk, read back one by one when asked for.
 */
export interface UploadPart {
  file: string;
  count: number;
  lon: Float64Array;
  lat: Float64Array;
  /** Index into GEOMETRY_TYPES. */
  types: Uint8Array;
  columns: ColumnState[];
  /** Rows are [id, name, address, geometry or null, attributes] at offsets[i] .. offsets[i + 1]. */
  spool: string;
  /** A file's spool stays well under 4 GiB: a 20 MiB file's rows take a few times its size at most. */
  offsets: Uint32Array;
  /** A table's columns typed once all its rows were read: applied as a row is read back. */
  typed: TypedColumn[];
}

/** Bytes gathered before one write. */
const WRITE_AT = 1 << 20;

function grow<T extends Float64Array | Uint32Array | Uint8Array>(a: T, n: number): T {
  if (n < a.length) return a;
  const b = new (a.constructor as new (n: number) => T)(a.length * 2);
  b.set(a);
  return b;
}

/** Writes the features of one file to its spool as they are read (see UploadPart). */
export class SpoolWriter implements RowSink {
  count = 0;
  private fd: number;
  private pending: string[] = [];
  private pendingBytes = 0;
  private at = 0;
  private lon = new Float64Array(1024);
  private lat = new Float64Array(1024);
  private types = new Uint8Array(1024);
  private offsets = new Uint32Array(1025);
  private stats = new ColumnStats();
  private typedColumns: TypedColumn[] = [];
  private file = '';

  constructor(private readonly path: string) {
    this.fd = openSync(path, 'w', 0o600);
  }

  add(f: UploadFeature): void {
    const n = this.count++;
    // The readers give every feature of a file the file's (printable) name.
    if (!n) this.file = f.file;
    this.lon = grow(this.lon, n);
    this.lat = grow(this.lat, n);
    this.types = grow(this.types, n);
    this.offsets = grow(this.offsets, n + 1);
    this.lon[n] = f.lon;
    this.lat[n] = f.lat;
    const g = f.geometry;
    const plain = g.type === 'Point' && g.coordinates.length === 2 && Object.is(g.coordinates[0], f.lon) && Object.is(g.coordinates[1], f.lat);
    this.types[n] = plain ? 0 : CODE.get(g.type)!;
    this.stats.add(f.attributes);
    const line = JSON.stringify([f.id, f.name, f.address, plain ? null : (g as Geometry), f.attributes]) + '\n';
    this.pending.push(line);
    this.pendingBytes += line.length;
    this.at += Buffer.byteLength(line);
    this.offsets[n + 1] = this.at;
    if (this.pendingBytes >= WRITE_AT) this.flush();
  }

  typed(columns: TypedColumn[]): void {
    this.typedColumns = columns;
    this.stats.retype(columns);
  }

  private flush(): void {
    if (!this.pending.length) return;
    const text = this.pending.join('');
    this.pending = [];
    this.pendingBytes = 0;
    const bytes = Buffer.from(text);
    for (let off = 0; off < bytes.length; ) off += writeSync(this.fd, bytes, off);
  }

  finish(): UploadPart {
    this.flush();
    closeSync(this.fd);
    const n = this.count;
    return {
      file: this.file,
      count: n,
      lon: this.lon.slice(0, n),
      lat: this.lat.slice(0, n),
      types: this.types.slice(0, n),
      columns: this.stats.states(),
      spool: this.path,
      offsets: this.offsets.slice(0, n + 1),
      typed: this.typedColumns,
    };
  }

  /** A file that could not be read: its spool goes. */
  abort(): void {
    try {
      closeSync(this.fd);
    } catch {
      // Closed by finish() already.
    }
    rmSync(this.path, { force: true });
  }
}

/** The buffers of a part, to transfer with it. */
export const partBuffers = (p: UploadPart): ArrayBuffer[] => [p.lon.buffer, p.lat.buffer, p.types.buffer, p.offsets.buffer] as ArrayBuffer[];
