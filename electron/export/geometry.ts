import type { Geometry } from '../../shared/service/geojson';
import { WKB_TYPE, WkbWriter, wkbSize, type Envelope } from '../ground/wkb';

export { emptyEnvelope, type Envelope } from '../ground/wkb';

/**
 * GeoJSON geometry -> ISO WKB (little-endian, XY; the ground floor's codec) inside a GeoPackage
 * geometry blob, plus WKT. Altitudes (a third position value) are not written: layers are
 * declared XY.
 */

/** GeoPackage geometry_type_name for each GeoJSON type. */
export const GPKG_TYPE_NAME: Record<Geometry['type'], string> = {
  Point: 'POINT',
  LineString: 'LINESTRING',
  Polygon: 'POLYGON',
  MultiPoint: 'MULTIPOINT',
  MultiLineString: 'MULTILINESTRING',
  MultiPolygon: 'MULTIPOLYGON',
  GeometryCollection: 'GEOMETRYCOLLECTION',
};

type Pos = readonly number[];

export interface GpkgGeometry {
  blob: Buffer;
  /** Null for an empty geometry (no envelope, empty flag set). */
  envelope: Envelope | null;
}

const GPKG_HEADER = 8;
const GPKG_ENVELOPE_XY = 32;
// Flags: bit 0 little-endian, bits 1-3 envelope code (1 = XY), bit 4 empty geometry.
const FLAGS_XY_ENVELOPE = 0b0000_0011;
const FLAGS_EMPTY = 0b0001_0001;

function writeHeader(buf: Buffer, flags: number, srsId: number) {
  buf[0] = 0x47; // 'G'
  buf[1] = 0x50; // 'P'
  buf[2] = 0; // version 1
  buf[3] = flags;
  buf.writeInt32LE(srsId, 4);
}

/** A GeoPackage geometry blob (header, XY envelope, ISO WKB little-endian). */
export function gpkgGeometry(g: Geometry, srsId = 4326): GpkgGeometry {
  if (g.type === 'Point') {
    // The common case, without the generic writer's bookkeeping.
    const x = g.coordinates[0];
    const y = g.coordinates[1];
    const buf = Buffer.allocUnsafe(GPKG_HEADER + GPKG_ENVELOPE_XY + 21);
    writeHeader(buf, FLAGS_XY_ENVELOPE, srsId);
    buf.writeDoubleLE(x, 8);
    buf.writeDoubleLE(x, 16);
    buf.writeDoubleLE(y, 24);
    buf.writeDoubleLE(y, 32);
    buf[40] = 1;
    buf.writeUInt32LE(WKB_TYPE.Point, 41);
    buf.writeDoubleLE(x, 45);
    buf.writeDoubleLE(y, 53);
    return { blob: buf, envelope: { minX: x, maxX: x, minY: y, maxY: y } };
  }
  const size = wkbSize(g);
  const buf = Buffer.allocUnsafe(GPKG_HEADER + GPKG_ENVELOPE_XY + size);
  const w = new WkbWriter(buf, GPKG_HEADER + GPKG_ENVELOPE_XY);
  w.write(g);
  if (w.env.minX === Infinity) {
    // Empty: no envelope, so the WKB moves up behind the header.
    const out = Buffer.allocUnsafe(GPKG_HEADER + size);
    writeHeader(out, FLAGS_EMPTY, srsId);
    buf.copy(out, GPKG_HEADER, GPKG_HEADER + GPKG_ENVELOPE_XY);
    return { blob: out, envelope: null };
  }
  writeHeader(buf, FLAGS_XY_ENVELOPE, srsId);
  buf.writeDoubleLE(w.env.minX, 8);
  buf.writeDoubleLE(w.env.maxX, 16);
  buf.writeDoubleLE(w.env.minY, 24);
  buf.writeDoubleLE(w.env.maxY, 32);
  return { blob: buf, envelope: { ...w.env } };
}

const wktPos = (p: Pos) => `${p[0]} ${p[1]}`;
const wktList = (ps: readonly Pos[]) => `(${ps.map(wktPos).join(', ')})`;
const wktRings = (rs: readonly (readonly Pos[])[]) => `(${rs.map(wktList).join(', ')})`;
const orEmpty = (name: string, n: number, body: () => string) => (n === 0 ? `${name} EMPTY` : `${name} ${body()}`);

/** OGC WKT (XY) of a GeoJSON geometry, for CSV cells. */
export function toWkt(g: Geometry): string {
  switch (g.type) {
    case 'Point':
      return `POINT (${wktPos(g.coordinates)})`;
    case 'LineString':
      return orEmpty('LINESTRING', g.coordinates.length, () => wktList(g.coordinates));
    case 'Polygon':
      return orEmpty('POLYGON', g.coordinates.length, () => wktRings(g.coordinates));
    case 'MultiPoint':
      return orEmpty('MULTIPOINT', g.coordinates.length, () => `(${g.coordinates.map((p) => `(${wktPos(p)})`).join(', ')})`);
    case 'MultiLineString':
      return orEmpty('MULTILINESTRING', g.coordinates.length, () => wktRings(g.coordinates));
    case 'MultiPolygon':
      return orEmpty('MULTIPOLYGON', g.coordinates.length, () => `(${g.coordinates.map(wktRings).join(', ')})`);
    case 'GeometryCollection':
      return orEmpty('GEOMETRYCOLLECTION', g.geometries.length, () => `(${g.geometries.map(toWkt).join(', ')})`);
  }
}

export function mergeEnvelope(into: Envelope, e: Envelope): void {
  if (e.minX < into.minX) into.minX = e.minX;
  if (e.maxX > into.maxX) into.maxX = e.maxX;
  if (e.minY < into.minY) into.minY = e.minY;
  if (e.maxY > into.maxY) into.maxY = e.maxY;
}

