import type { Feature, FeatureCollection, Geometry, MultiLineString, MultiPolygon, Position } from 'geojson';

/**
 * world-atlas geometries are made for spherical renderers: a ring that crosses the antimeridian
 * jumps from +180 to -180, which a flat Web Mercator map draws as a stripe across the world.
 * Shifting the rest of such a line by ±360° keeps it continuous (OpenLayers wraps it back).
 */
export function unwrapLine(line: Position[]): Position[] {
  const out: Position[] = [];
  let shift = 0;
  let prev: number | undefined;
  for (const p of line) {
    const lon = p[0]! + shift;
    if (prev !== undefined && lon - prev > 180) shift -= 360;
    else if (prev !== undefined && lon - prev < -180) shift += 360;
    const x = p[0]! + shift;
    out.push(shift === 0 ? p : [x, p[1]!]);
    prev = x;
  }
  return out;
}

function unwrapGeometry(g: Geometry): Geometry {
  switch (g.type) {
    case 'Polygon':
      return { ...g, coordinates: g.coordinates.map(unwrapLine) };
    case 'MultiPolygon':
      return { ...g, coordinates: g.coordinates.map((poly) => poly.map(unwrapLine)) } satisfies MultiPolygon;
    case 'LineString':
      return { ...g, coordinates: unwrapLine(g.coordinates) };
    case 'MultiLineString':
      return { ...g, coordinates: g.coordinates.map(unwrapLine) } satisfies MultiLineString;
    default:
      return g;
  }
}

export function unwrapAntimeridian<T extends Feature | FeatureCollection>(input: T): T {
  if (input.type === 'FeatureCollection')
    return { ...input, features: input.features.map((f) => unwrapAntimeridian(f)) };
  return input.geometry ? { ...input, geometry: unwrapGeometry(input.geometry) } : input;
}
