import type { Geometry, Position } from 'geojson';

/**
 * Most vertices one uploaded feature may have. A 20 MiB file holds about two million; past this
 * limit parsing and validating one feature holds the thread for seconds and hundreds of MB, and
 * no distance question needs that much detail (simplify the geometry first). Numbers that open an
 * array in its properties count too: the limit is checked on the text, before it is parsed.
 */
export const MAX_VERTICES = 1_000_000;

/** Positions of a geometry, in order, without recursion or spreading (both fail on data-sized arrays). */
function eachRun(g: Geometry, visit: (run: Position[], closed: boolean) => void): void {
  const todo: Geometry[] = [g];
  while (todo.length) {
    const geom = todo.pop()!;
    switch (geom.type) {
      case 'Point':
        visit([geom.coordinates], false);
        break;
      case 'MultiPoint':
      case 'LineString':
        visit(geom.coordinates, false);
        break;
      case 'MultiLineString':
        for (const l of geom.coordinates) visit(l, false);
        break;
      case 'Polygon':
        if (geom.coordinates[0]) visit(geom.coordinates[0], true);
        break;
      case 'MultiPolygon':
        for (const p of geom.coordinates) if (p[0]) visit(p[0], true);
        break;
      case 'GeometryCollection':
        for (let i = geom.geometries.length - 1; i >= 0; i--) todo.push(geom.geometries[i]!);
        break;
    }
  }
}

/** A point that stands for the geometry: the point itself, else the mean of its outer vertices. */
export function representativePoint(g: Geometry): [number, number] | null {
  let x = 0, y = 0, n = 0;
  eachRun(g, (run, closed) => {
    // A ring's last position repeats its first.
    const end = closed ? run.length - 1 : run.length;
    for (let i = 0; i < end; i++) {
      x += run[i]![0]!;
      y += run[i]![1]!;
    }
    n += Math.max(0, end);
  });
  return n ? [x / n, y / n] : null;
}

/** The first position of a (possibly invalid) geometry's coordinates, whatever their nesting. */
export function firstPosition(geometry: unknown): unknown[] | null {
  const todo: unknown[] = [geometry];
  // Bounded: a GeometryCollection nesting itself is looked into at most this many levels.
  for (let seen = 0; todo.length && seen < 64; seen++) {
    const g = todo.shift() as { coordinates?: unknown; geometries?: unknown[] } | null;
    if (Array.isArray(g?.geometries)) {
      todo.unshift(...g.geometries.slice(0, 64));
      continue;
    }
    let c: unknown = g?.coordinates;
    for (let depth = 0; Array.isArray(c) && depth < 6; depth++) {
      if (!Array.isArray(c[0])) return c as unknown[];
      c = c[0];
    }
  }
  return null;
}
