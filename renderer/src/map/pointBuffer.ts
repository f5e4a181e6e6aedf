import { getTransform } from 'ol/proj';
import type { Extent } from 'ol/extent';
import type { GeoJsonFeatureCollection } from './readResults';

/**
 * The point results of a collection as the GPU point renderer draws them: one Float32Array of
 * map positions (x, y pairs), each relative to `origin` so that float32 keeps centimetres near
 * the data however far from 0,0 it lies.
 */
export interface PointBuffer {
  positions: Float32Array;
  /** Map position (EPSG:3857) the positions are relative to: the centre of their extent. */
  origin: [number, number];
  /** For each point, the index of its feature in the collection. */
  slots: Uint32Array;
  count: number;
  /** Map extent of the points; empty (Infinity, -Infinity) when there are none. */
  extent: Extent;
  /** Collection indices of features with another geometry (lines, areas, multi-parts), drawn elsewhere. */
  others: number[];
}

// Both projections are built into OpenLayers, so the transform always exists.
const toMap = getTransform('EPSG:4326', 'EPSG:3857')!;

/**
 * Builds the buffer straight from the cached GeoJSON: no OpenLayers feature per point. The
 * projection is OpenLayers' own EPSG:4326 to 3857 transform, run once over all coordinates.
 */
export function buildPointBuffer(collection: GeoJsonFeatureCollection): PointBuffer {
  const list = collection.features;
  const lonLat = new Float64Array(list.length * 2);
  const slots = new Uint32Array(list.length);
  const others: number[] = [];
  let n = 0;
  for (let i = 0; i < list.length; i++) {
    const g = list[i]!.geometry as { type?: string; coordinates?: unknown } | null;
    if (g?.type !== 'Point') {
      // No geometry at all: listed in the table, nothing to draw.
      if (g) others.push(i);
      continue;
    }
    const c = g.coordinates as unknown[] | undefined;
    const lon = Array.isArray(c) ? c[0] : undefined;
    const lat = Array.isArray(c) ? c[1] : undefined;
    if (typeof lon !== 'number' || typeof lat !== 'number' || !Number.isFinite(lon) || !Number.isFinite(lat)) continue;
    lonLat[2 * n] = lon;
    lonLat[2 * n + 1] = lat;
    slots[n++] = i;
  }
  const xy = lonLat.subarray(0, 2 * n);
  // OpenLayers' transforms work on any indexable array; its types say number[].
  toMap(xy as unknown as number[], xy as unknown as number[], 2);
  let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity; // prettier-ignore
  for (let k = 0; k < 2 * n; k += 2) {
    const x = xy[k]!;
    const y = xy[k + 1]!;
    if (x < minX) minX = x;
    if (x > maxX) maxX = x;
    if (y < minY) minY = y;
    if (y > maxY) maxY = y;
  }
  const origin: [number, number] = n ? [(minX + maxX) / 2, (minY + maxY) / 2] : [0, 0];
  const positions = new Float32Array(2 * n);
  for (let k = 0; k < 2 * n; k += 2) {
    positions[k] = xy[k]! - origin[0];
    positions[k + 1] = xy[k + 1]! - origin[1];
  }
  return { positions, origin, slots: slots.slice(0, n), count: n, extent: [minX, minY, maxX, maxY], others };
}
