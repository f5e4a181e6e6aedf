import type { Geometry, Position } from 'geojson';
import { MAX_NESTING } from './nesting';

/**
 * ISO/OGC WKB, XY only, both ways: the local service stores layer features as WKB (compact, and
 * the same encoding GeoPackage blobs carry) and the export writes it into GeoPackages, so one
 * codec serves storage, the GeoPackage reader and the writer. Written here because the npm
 * WKB/GPKG packages are either unmaintained or build an object tree per geometry.
 * The decoder accepts either byte order, ISO Z/M/ZM type codes (1000/2000/3000 offsets) and
 * EWKB flag bits, and keeps X and Y.
 */

/** WKB type codes of the GeoJSON types (XY). */
export const WKB_TYPE: Record<Geometry['type'], number> = {
  Point: 1,
  LineString: 2,
  Polygon: 3,
  MultiPoint: 4,
  MultiLineString: 5,
  MultiPolygon: 6,
  GeometryCollection: 7,
};

export interface Envelope {
  minX: number;
  maxX: number;
  minY: number;
  maxY: number;
}

export const emptyEnvelope = (): Envelope => ({ minX: Infinity, maxX: -Infinity, minY: Infinity, maxY: -Infinity });

/** Bytes of the XY WKB of `g`. */
export function wkbSize(g: Geometry): number {
  switch (g.type) {
    case 'Point':
      return 21;
    case 'LineString':
      return 9 + 16 * g.coordinates.length;
    case 'Polygon':
      return 9 + g.coordinates.reduce((s, r) => s + 4 + 16 * r.length, 0);
    case 'MultiPoint':
      return 9 + 21 * g.coordinates.length;
    case 'MultiLineString':
      return 9 + g.coordinates.reduce((s, l) => s + 9 + 16 * l.length, 0);
    case 'MultiPolygon':
      return 9 + g.coordinates.reduce((s, p) => s + 9 + p.reduce((t, r) => t + 4 + 16 * r.length, 0), 0);
    case 'GeometryCollection':
      return 9 + g.geometries.reduce((s, c) => s + wkbSize(c), 0);
  }
}

/**
 * Writes little-endian XY WKB into one buffer from `start`, gathering the envelope on the way
 * (a GeoPackage blob puts it in front). A class rather than closures, as it runs once per
 * imported or exported feature.
 */
export class WkbWriter {
  readonly env = emptyEnvelope();
  constructor(
    readonly buf: Buffer,
    public o = 0,
  ) {}
  header(type: number, count?: number): void {
    this.buf[this.o] = 1;
    this.buf.writeUInt32LE(type, this.o + 1);
    this.o += 5;
    if (count !== undefined) {
      this.buf.writeUInt32LE(count, this.o);
      this.o += 4;
    }
  }
  pos(p: Position): void {
    const x = p.length < 2 ? NaN : p[0]!;
    const y = p.length < 2 ? NaN : p[1]!;
    this.buf.writeDoubleLE(x, this.o);
    this.buf.writeDoubleLE(y, this.o + 8);
    this.o += 16;
    const e = this.env;
    if (x < e.minX) e.minX = x;
    if (x > e.maxX) e.maxX = x;
    if (y < e.minY) e.minY = y;
    if (y > e.maxY) e.maxY = y;
  }
  ring(r: Position[]): void {
    this.buf.writeUInt32LE(r.length, this.o);
    this.o += 4;
    for (let i = 0; i < r.length; i++) this.pos(r[i]!);
  }
  polygon(rings: Position[][]): void {
    this.header(WKB_TYPE.Polygon, rings.length);
    for (let i = 0; i < rings.length; i++) this.ring(rings[i]!);
  }
  write(x: Geometry): void {
    switch (x.type) {
      case 'Point':
        this.header(WKB_TYPE.Point);
        this.pos(x.coordinates);
        return;
      case 'LineString':
        this.header(WKB_TYPE.LineString);
        this.ring(x.coordinates);
        return;
      case 'Polygon':
        this.polygon(x.coordinates);
        return;
      case 'MultiPoint':
        this.header(WKB_TYPE.MultiPoint, x.coordinates.length);
        for (const p of x.coordinates) {
          this.header(WKB_TYPE.Point);
          this.pos(p);
        }
        return;
      case 'MultiLineString':
        this.header(WKB_TYPE.MultiLineString, x.coordinates.length);
        for (const l of x.coordinates) {
          this.header(WKB_TYPE.LineString);
          this.ring(l);
        }
        return;
      case 'MultiPolygon':
        this.header(WKB_TYPE.MultiPolygon, x.coordinates.length);
        for (const p of x.coordinates) this.polygon(p);
        return;
      case 'GeometryCollection':
        this.header(WKB_TYPE.GeometryCollection, x.geometries.length);
        for (const c of x.geometries) this.write(c);
        return;
    }
  }
}

export function encodeWkb(g: Geometry): Buffer {
  const w = new WkbWriter(Buffer.allocUnsafe(wkbSize(g)));
  w.write(g);
  return w.buf;
}

export class WkbError extends Error {}

/** Reads WKB; a class rather than closures, as decoding runs once per feature read or queried. */
class WkbReader {
  private readonly view: DataView;
  constructor(
    private readonly buf: Uint8Array,
    private o: number,
  ) {
    this.view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  }
  private need(n: number): void {
    if (this.o + n > this.buf.byteLength) throw new WkbError('geometry blob is truncated');
  }
  private u32(le: boolean): number {
    this.need(4);
    const n = this.view.getUint32(this.o, le);
    this.o += 4;
    return n;
  }
  private pos(le: boolean, dims: number): Position {
    this.need(8 * dims);
    const p = [this.view.getFloat64(this.o, le), this.view.getFloat64(this.o + 8, le)];
    this.o += 8 * dims;
    return p;
  }
  private line(le: boolean, dims: number): Position[] {
    const n = this.u32(le);
    const out: Position[] = new Array(n);
    for (let i = 0; i < n; i++) out[i] = this.pos(le, dims);
    return out;
  }
  private rings(le: boolean, dims: number): Position[][] {
    const n = this.u32(le);
    const out: Position[][] = new Array(n);
    for (let i = 0; i < n; i++) out[i] = this.line(le, dims);
    return out;
  }
  private parts(le: boolean, want: Geometry['type'] | null, depth: number): Geometry[] {
    const n = this.u32(le);
    const out: Geometry[] = new Array(n);
    for (let i = 0; i < n; i++) {
      const g = this.read(depth + 1);
      if (want && g.type !== want) throw new WkbError(`a ${want} collection holds a ${g.type}`);
      out[i] = g;
    }
    return out;
  }
  read(depth = 0): Geometry {
    // Collections nest by recursion here: a crafted blob thousands deep would overflow the stack.
    if (depth > MAX_NESTING) throw new WkbError(`geometry collections nested more than ${MAX_NESTING} deep`);
    this.need(5);
    const le = this.buf[this.o] === 1;
    let code = this.view.getUint32(this.o + 1, le);
    this.o += 5;
    // EWKB: high bits flag Z, M and an SRID that follows the type.
    const ewkbZ = (code & 0x80000000) !== 0;
    const ewkbM = (code & 0x40000000) !== 0;
    if (code & 0x20000000) {
      this.need(4);
      this.o += 4;
    }
    code &= 0x0fffffff;
    let dims = 2 + (ewkbZ ? 1 : 0) + (ewkbM ? 1 : 0);
    const iso = Math.floor(code / 1000);
    if (iso === 1 || iso === 2) dims = 3;
    else if (iso === 3) dims = 4;
    switch (code % 1000) {
      case 1:
        return { type: 'Point', coordinates: this.pos(le, dims) };
      case 2:
        return { type: 'LineString', coordinates: this.line(le, dims) };
      case 3:
        return { type: 'Polygon', coordinates: this.rings(le, dims) };
      case 4:
        return { type: 'MultiPoint', coordinates: this.parts(le, 'Point', depth).map((g) => (g as { coordinates: Position }).coordinates) };
      case 5:
        return { type: 'MultiLineString', coordinates: this.parts(le, 'LineString', depth).map((g) => (g as { coordinates: Position[] }).coordinates) };
      case 6:
        return { type: 'MultiPolygon', coordinates: this.parts(le, 'Polygon', depth).map((g) => (g as { coordinates: Position[][] }).coordinates) };
      case 7:
        return { type: 'GeometryCollection', geometries: this.parts(le, null, depth) };
      default:
        throw new WkbError(`unsupported WKB geometry type ${code}`);
    }
  }
}

/** Decodes WKB starting at `start` of `buf`; throws WkbError on a short or unknown blob. */
export function decodeWkb(buf: Uint8Array, start = 0): Geometry {
  return new WkbReader(buf, start).read();
}

export const wkbTypeCode = (g: Geometry): number => WKB_TYPE[g.type];
