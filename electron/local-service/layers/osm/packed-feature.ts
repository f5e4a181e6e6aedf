import { endianness } from 'node:os';
import type { Geometry } from 'geojson';
import { decodeWkb, WKB_TYPE } from '../../../ground/wkb';
import type { BBox } from '../store/geo';
import type { LayerFeature } from '../types';

const SCALE = 1e7;
/** WKB here is little-endian: typed arrays write it directly on such machines (all Electron targets). */
const LITTLE_ENDIAN = endianness() === 'LE';

/**
 * An OSM feature whose geometry was written as WKB straight from node coordinates in 1e-7
 * degrees, its box measured on the way: a writer stores the bytes as they are, and `geometry`
 * is decoded only if something asks for it. Building GeoJSON positions only to encode them
 * again was a tenth of an import's time, and most of its garbage.
 */
export class PackedFeature implements LayerFeature {
  private decoded: Geometry | null = null;
  constructor(
    readonly sourceId: string,
    readonly wkb: Buffer,
    readonly bbox: BBox,
    readonly properties: Record<string, string>,
    readonly propertiesJson?: string,
  ) {}

  get geometry(): Geometry {
    return (this.decoded ??= decodeWkb(this.wkb));
  }
}

export function pointFeature(sourceId: string, lon: number, lat: number, properties: Record<string, string>, propertiesJson?: string): PackedFeature {
  const x = lon / SCALE;
  const y = lat / SCALE;
  const wkb = Buffer.allocUnsafe(21);
  wkb[0] = 1;
  wkb.writeUInt32LE(WKB_TYPE.Point, 1);
  wkb.writeDoubleLE(x, 5);
  wkb.writeDoubleLE(y, 13);
  return new PackedFeature(sourceId, wkb, [x, y, x, y], properties, propertiesJson);
}

/** Twice the signed area of a ring (shoelace, as rings.ts computes it); positive when counter-clockwise. */
function signedArea(lon: Int32Array, lat: Int32Array, n: number): number {
  let s = 0;
  for (let i = 0, j = n - 1; i < n; j = i++) s += (lon[j]! / SCALE - lon[i]! / SCALE) * (lat[j]! / SCALE + lat[i]! / SCALE);
  return s;
}

/**
 * The first `n` nodes as a LineString, or as a Polygon of one ring wound counter-clockwise
 * (RFC 7946, as rings.ts orients outer rings).
 */
export function lineFeature(
  sourceId: string, lon: Int32Array, lat: Int32Array, n: number, polygon: boolean, properties: Record<string, string>, propertiesJson?: string,
): PackedFeature {
  const head = polygon ? 13 : 9;
  // The coordinates are written through a Float64Array over the buffer (far quicker than
  // writeDoubleLE per value), so the buffer starts where they fall on an 8-byte boundary.
  const room = Buffer.allocUnsafe(head + 16 * n + 7);
  const skip = (8 - ((room.byteOffset + head) % 8)) % 8;
  const wkb = room.subarray(skip, skip + head + 16 * n);
  const xy = LITTLE_ENDIAN ? new Float64Array(wkb.buffer, wkb.byteOffset + head, 2 * n) : null;
  wkb[0] = 1;
  wkb.writeUInt32LE(polygon ? WKB_TYPE.Polygon : WKB_TYPE.LineString, 1);
  if (polygon) wkb.writeUInt32LE(1, 5);
  wkb.writeUInt32LE(n, head - 4);
  const reverse = polygon && !(signedArea(lon, lat, n) > 0);
  const bbox: BBox = [Infinity, Infinity, -Infinity, -Infinity];
  for (let i = 0; i < n; i++) {
    const k = reverse ? n - 1 - i : i;
    const x = lon[k]! / SCALE;
    const y = lat[k]! / SCALE;
    if (xy) {
      xy[2 * i] = x;
      xy[2 * i + 1] = y;
    } else {
      wkb.writeDoubleLE(x, head + 16 * i);
      wkb.writeDoubleLE(y, head + 16 * i + 8);
    }
    if (x < bbox[0]) bbox[0] = x;
    if (y < bbox[1]) bbox[1] = y;
    if (x > bbox[2]) bbox[2] = x;
    if (y > bbox[3]) bbox[3] = y;
  }
  return new PackedFeature(sourceId, wkb, bbox, properties, propertiesJson);
}
