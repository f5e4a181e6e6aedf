import Flatbush from 'flatbush';
import type { Geometry } from 'geojson';
import pointInPolygon from 'point-in-polygon-hao';

function polygonsOf(g: Geometry | null): number[][][][] {
  if (!g) return [];
  if (g.type === 'Polygon') return [g.coordinates];
  if (g.type === 'MultiPolygon') return g.coordinates;
  return [];
}

/**
 * Which country holds a point: the index of its geometry in `geometries`, or -1. Flatbush over
 * each polygon's box, then an exact point-in-polygon test.
 */
export function countryLocator(geometries: (Geometry | null)[]): (lon: number, lat: number) => number {
  const parts: { country: number; poly: number[][][] }[] = [];
  geometries.forEach((g, i) => {
    for (const poly of polygonsOf(g)) parts.push({ country: i, poly });
  });
  const fb = new Flatbush(Math.max(parts.length, 1));
  for (const p of parts) {
    let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
    for (const [x, y] of p.poly[0]!) {
      if (x! < x0) x0 = x!;
      if (y! < y0) y0 = y!;
      if (x! > x1) x1 = x!;
      if (y! > y1) y1 = y!;
    }
    fb.add(x0, y0, x1, y1);
  }
  if (!parts.length) fb.add(0, 0, 0, 0);
  fb.finish();
  return (lon: number, lat: number): number => {
    for (const id of fb.search(lon, lat, lon, lat)) {
      const p = parts[id];
      if (p && pointInPolygon([lon, lat], p.poly) !== false) return p.country;
    }
    return -1;
  };
}
