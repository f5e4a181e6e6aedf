import { booleanIntersects, centroid, pointOnFeature } from '@turf/turf';
import type { Geometry, Position } from 'geojson';
import { distanceToGeometry } from '../../layers/store/geo';

/** Every vertex of a geometry. */
function vertices(g: Geometry): Position[] {
  switch (g.type) {
    case 'Point':
      return [g.coordinates];
    case 'MultiPoint':
    case 'LineString':
      return g.coordinates;
    case 'MultiLineString':
    case 'Polygon':
      return g.coordinates.flat();
    case 'MultiPolygon':
      return g.coordinates.flat(2);
    case 'GeometryCollection':
      return g.geometries.flatMap(vertices);
  }
}

/**
 * Metres between the nearest points of two geometries: 0 when they meet, else the least distance
 * from a vertex of either to the other (exact for points; for two lines or polygons, the nearest
 * pair always includes a vertex of one of them).
 */
export function geometryDistance(a: Geometry, b: Geometry): number {
  if (a.type === 'Point') return distanceToGeometry(a.coordinates, b);
  if (b.type === 'Point') return distanceToGeometry(b.coordinates, a);
  if (booleanIntersects(a, b)) return 0;
  let best = Infinity;
  for (const p of vertices(a)) best = Math.min(best, distanceToGeometry(p, b));
  for (const p of vertices(b)) best = Math.min(best, distanceToGeometry(p, a));
  return best;
}

/** One position that stands for a geometry: the point itself, else a point on it (inside a polygon). */
export function representativePoint(g: Geometry): Position {
  if (g.type === 'Point') return g.coordinates;
  try {
    return pointOnFeature(g).geometry.coordinates;
  } catch {
    return centroid(g).geometry.coordinates;
  }
}
