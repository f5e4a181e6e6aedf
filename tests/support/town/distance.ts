import * as turf from '@turf/turf';
import type { Geometry, Position } from 'geojson';

/** Metres from a point to a geometry's nearest point (0 inside a polygon). */
export function distanceTo(p: Position, g: Geometry): number {
  const toLine = (l: Position[]) => turf.pointToLineDistance(p, turf.lineString(l), { units: 'meters' });
  switch (g.type) {
    case 'Point':
      return turf.distance(p, g.coordinates, { units: 'meters' });
    case 'LineString':
      return toLine(g.coordinates);
    case 'Polygon':
      return turf.booleanPointInPolygon(p, turf.polygon(g.coordinates)) ? 0 : Math.min(...g.coordinates.map(toLine));
    default:
      throw new Error(`the town has no ${g.type}`);
  }
}
