import type { Geometry, Position } from 'geojson';

/** A point that stands for the geometry: the point itself, else the mean of its outer vertices. */
export function representativePoint(g: Geometry): [number, number] | null {
  const pts: Position[] = [];
  const walk = (geom: Geometry) => {
    switch (geom.type) {
      case 'Point':
        pts.push(geom.coordinates);
        break;
      case 'MultiPoint':
      case 'LineString':
        pts.push(...geom.coordinates);
        break;
      case 'MultiLineString':
        for (const l of geom.coordinates) pts.push(...l);
        break;
      case 'Polygon':
        pts.push(...(geom.coordinates[0] ?? []).slice(0, -1));
        break;
      case 'MultiPolygon':
        for (const p of geom.coordinates) pts.push(...(p[0] ?? []).slice(0, -1));
        break;
      case 'GeometryCollection':
        geom.geometries.forEach(walk);
        break;
    }
  };
  walk(g);
  if (!pts.length) return null;
  let x = 0, y = 0;
  for (const p of pts) {
    x += p[0]!;
    y += p[1]!;
  }
  return [x / pts.length, y / pts.length];
}

/** The first position of a (possibly invalid) geometry's coordinates, whatever their nesting. */
export function firstPosition(geometry: unknown): unknown[] | null {
  const g = geometry as { coordinates?: unknown; geometries?: unknown[] } | null;
  if (Array.isArray(g?.geometries)) {
    for (const sub of g.geometries) {
      const p = firstPosition(sub);
      if (p) return p;
    }
    return null;
  }
  let c: unknown = g?.coordinates;
  for (let depth = 0; Array.isArray(c) && depth < 6; depth++) {
    if (!Array.isArray(c[0])) return c as unknown[];
    c = c[0];
  }
  return null;
}
