import type { Geometry, Position } from 'geojson';

/**
 * ISO/OGC WKB, XY only, both ways. Layer features are stored as WKB (compact, and the same
 * encoding GeoPackage blobs carry), so one decoder serves storage and the GeoPackage reader.
 * The decoder accepts either byte order, ISO Z/M/ZM type codes (1000/2000/3000 offsets) and
 * EWKB flag bits, and keeps X and Y.
 */

const TYPE_CODE: Record<Geometry['type'], number> = {
  Point: 1,
  LineString: 2,
  Polygon: 3,
  MultiPoint: 4,
  MultiLineString: 5,
  MultiPolygon: 6,
  GeometryCollection: 7,
};

function size(g: Geometry): number {
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
      return 9 + g.geometries.reduce((s, c) => s + size(c), 0);
  }
}

export function encodeWkb(g: Geometry): Buffer {
  const buf = Buffer.allocUnsafe(size(g));
  let o = 0;
  const header = (type: number, count?: number) => {
    buf[o] = 1;
    buf.writeUInt32LE(type, o + 1);
    o += 5;
    if (count !== undefined) {
      buf.writeUInt32LE(count, o);
      o += 4;
    }
  };
  const pos = (p: Position) => {
    buf.writeDoubleLE(p[0]!, o);
    buf.writeDoubleLE(p[1]!, o + 8);
    o += 16;
  };
  const ring = (r: Position[]) => {
    buf.writeUInt32LE(r.length, o);
    o += 4;
    for (const p of r) pos(p);
  };
  const write = (x: Geometry) => {
    switch (x.type) {
      case 'Point':
        if (x.coordinates.length < 2) {
          header(1);
          buf.writeDoubleLE(NaN, o);
          buf.writeDoubleLE(NaN, o + 8);
          o += 16;
        } else {
          header(1);
          pos(x.coordinates);
        }
        return;
      case 'LineString':
        header(2);
        ring(x.coordinates);
        return;
      case 'Polygon':
        header(3, x.coordinates.length);
        for (const r of x.coordinates) ring(r);
        return;
      case 'MultiPoint':
        header(4, x.coordinates.length);
        for (const p of x.coordinates) write({ type: 'Point', coordinates: p });
        return;
      case 'MultiLineString':
        header(5, x.coordinates.length);
        for (const l of x.coordinates) write({ type: 'LineString', coordinates: l });
        return;
      case 'MultiPolygon':
        header(6, x.coordinates.length);
        for (const p of x.coordinates) write({ type: 'Polygon', coordinates: p });
        return;
      case 'GeometryCollection':
        header(7, x.geometries.length);
        for (const c of x.geometries) write(c);
        return;
    }
  };
  write(g);
  return buf;
}

export class WkbError extends Error {}

/** Decodes WKB starting at `start` of `buf`; throws WkbError on a short or unknown blob. */
export function decodeWkb(buf: Uint8Array, start = 0): Geometry {
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  let o = start;
  const need = (n: number) => {
    if (o + n > buf.byteLength) throw new WkbError('geometry blob is truncated');
  };
  const read = (): Geometry => {
    need(5);
    const le = buf[o] === 1;
    let code = view.getUint32(o + 1, le);
    o += 5;
    // EWKB: high bits flag Z, M and an SRID that follows the type.
    const ewkbZ = (code & 0x80000000) !== 0;
    const ewkbM = (code & 0x40000000) !== 0;
    if (code & 0x20000000) {
      need(4);
      o += 4;
    }
    code &= 0x0fffffff;
    let dims = 2 + (ewkbZ ? 1 : 0) + (ewkbM ? 1 : 0);
    const iso = Math.floor(code / 1000);
    if (iso === 1 || iso === 2) dims = 3;
    else if (iso === 3) dims = 4;
    const type = code % 1000;
    const u32 = () => {
      need(4);
      const n = view.getUint32(o, le);
      o += 4;
      return n;
    };
    const pos = (): Position => {
      need(8 * dims);
      const p = [view.getFloat64(o, le), view.getFloat64(o + 8, le)];
      o += 8 * dims;
      return p;
    };
    const line = () => {
      const n = u32();
      const out: Position[] = new Array(n);
      for (let i = 0; i < n; i++) out[i] = pos();
      return out;
    };
    const poly = () => {
      const n = u32();
      const out: Position[][] = new Array(n);
      for (let i = 0; i < n; i++) out[i] = line();
      return out;
    };
    const parts = <T extends Geometry>(want: string): T[] => {
      const n = u32();
      const out: T[] = [];
      for (let i = 0; i < n; i++) {
        const g = read();
        if (want && g.type !== want) throw new WkbError(`a ${want} collection holds a ${g.type}`);
        out.push(g as T);
      }
      return out;
    };
    switch (type) {
      case 1:
        return { type: 'Point', coordinates: pos() };
      case 2:
        return { type: 'LineString', coordinates: line() };
      case 3:
        return { type: 'Polygon', coordinates: poly() };
      case 4:
        return { type: 'MultiPoint', coordinates: parts<{ type: 'Point'; coordinates: Position }>('Point').map((p) => p.coordinates) };
      case 5:
        return {
          type: 'MultiLineString',
          coordinates: parts<{ type: 'LineString'; coordinates: Position[] }>('LineString').map((p) => p.coordinates),
        };
      case 6:
        return {
          type: 'MultiPolygon',
          coordinates: parts<{ type: 'Polygon'; coordinates: Position[][] }>('Polygon').map((p) => p.coordinates),
        };
      case 7:
        return { type: 'GeometryCollection', geometries: parts('') };
      default:
        throw new WkbError(`unsupported WKB geometry type ${code}`);
    }
  };
  return read();
}

export const wkbTypeCode = (g: Geometry): number => TYPE_CODE[g.type];
