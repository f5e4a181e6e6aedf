import type { Geometry } from 'geojson';
import { decodeWkb, WKB_TYPE } from '../../../ground/wkb';
import type { BBox } from '../store/geo';
import type { LayerFeature } from '../types';

const SCALE = 1e7;

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
  const wkb = Buffer.allocUnsafe(head + 16 * n);
  wkb[0] = 1;
  wkb.writeUInt32LE(polygon ? WKB_TYPE.Polygon : WKB_TYPE.LineString, 1);
  if (polygon) wkb.writeUInt32LE(1, 5);
  wkb.writeUInt32LE(n, head - 4);
  const reverse = polygon && !(signedArea(lon, lat, n) > 0);
  const bbox: BBox = [Infinity, Infinity, -Infinity, -Infinity];
  for (let i = 0, o = head; i < n; i++, o += 16) {
    const k = reverse ? n - 1 - i : i;
    const x = lon[k]! / SCALE;
    const y = lat[k]! / SCALE;
    wkb.writeDoubleLE(x, o);
    wkb.writeDoubleLE(y, o + 8);
    if (x < bbox[0]) bbox[0] = x;
    if (y < bbox[1]) bbox[1] = y;
    if (x > bbox[2]) bbox[2] = x;
    if (y > bbox[3]) bbox[3] = y;
  }
  return new PackedFeature(sourceId, wkb, bbox, properties, propertiesJson);
}
