import type { Polygon } from 'geojson';
import pointInPolygon from 'point-in-polygon-hao';
import type { PackArea } from '../../../shared/rpc/methods/pack';

export type Box = [number, number, number, number];

/** A pack's area in the forms its readers need: a closed ring, its box, a GeoJSON polygon. */
export interface Area {
  ring: [number, number][];
  box: Box;
  polygon: Polygon;
  /** Drawn as a box: clipping to the box is exact. */
  isBox: boolean;
  contains(lon: number, lat: number): boolean;
}

export function readArea(a: PackArea): Area {
  let ring: [number, number][];
  if ('bbox' in a) {
    const [x0, y0, x1, y1] = a.bbox;
    ring = [[x0, y0], [x1, y0], [x1, y1], [x0, y1], [x0, y0]];
  } else {
    ring = a.polygon.map(([x, y]) => [x, y] as [number, number]);
    const [fx, fy] = ring[0]!;
    const [lx, ly] = ring.at(-1)!;
    if (fx !== lx || fy !== ly) ring.push([fx, fy]);
  }
  const box: Box = [Infinity, Infinity, -Infinity, -Infinity];
  for (const [x, y] of ring) {
    box[0] = Math.min(box[0], x);
    box[1] = Math.min(box[1], y);
    box[2] = Math.max(box[2], x);
    box[3] = Math.max(box[3], y);
  }
  const rings = [ring];
  return {
    ring,
    box,
    polygon: { type: 'Polygon', coordinates: rings },
    isBox: 'bbox' in a,
    // On the edge counts as inside (pointInPolygon answers 0 there), as in History's area filter.
    contains: (lon, lat) => pointInPolygon([lon, lat], rings) !== false,
  };
}

/** Web Mercator half-width in metres (EPSG:3857). */
export const MERCATOR_HALF = 20037508.342789244;
const MAX_LAT = 85.0511287798066;

export const lonToX = (lon: number) => (lon * MERCATOR_HALF) / 180;
export const latToY = (lat: number) => {
  const l = Math.max(-MAX_LAT, Math.min(MAX_LAT, lat));
  return (Math.log(Math.tan(((90 + l) * Math.PI) / 360)) * MERCATOR_HALF) / Math.PI;
};

/** Column and row (XYZ: row 0 at the top) of the tile holding a point at zoom z. */
function tileOf(lon: number, lat: number, z: number): [number, number] {
  const n = 2 ** z;
  const x = Math.floor(((lonToX(lon) + MERCATOR_HALF) / (2 * MERCATOR_HALF)) * n);
  const y = Math.floor(((MERCATOR_HALF - latToY(lat)) / (2 * MERCATOR_HALF)) * n);
  return [Math.min(n - 1, Math.max(0, x)), Math.min(n - 1, Math.max(0, y))];
}

export interface TileRange {
  z: number;
  x0: number;
  x1: number;
  y0: number;
  y1: number;
}

/** The tiles covering the area's box at each zoom from 0 to maxZoom. */
export function tileRanges(box: Box, maxZoom: number): TileRange[] {
  const out: TileRange[] = [];
  for (let z = 0; z <= maxZoom; z++) {
    const [x0, y0] = tileOf(box[0], box[3], z);
    const [x1, y1] = tileOf(box[2], box[1], z);
    out.push({ z, x0, x1, y0, y1 });
  }
  return out;
}

export const tileCount = (ranges: readonly TileRange[]) => ranges.reduce((s, r) => s + (r.x1 - r.x0 + 1) * (r.y1 - r.y0 + 1), 0);
