import { cellToBoundary, getResolution, latLngToCell } from 'h3-js';

/** H3 restriction: a point passes when its cell at a given cell's resolution is that cell. */
export function h3Filter(cells: string[]): { has(lon: number, lat: number): boolean } | null {
  if (!cells.length) return null;
  const byRes = new Map<number, Set<string>>();
  let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
  for (const c of cells) {
    const r = getResolution(c);
    let s = byRes.get(r);
    if (!s) byRes.set(r, (s = new Set()));
    s.add(c);
    for (const [lat, lon] of cellToBoundary(c)) {
      x0 = Math.min(x0, lon!);
      x1 = Math.max(x1, lon!);
      y0 = Math.min(y0, lat!);
      y1 = Math.max(y1, lat!);
    }
  }
  // A bounding box prefilter skips the cell computation for most points (not across the antimeridian).
  const boxed = x1 - x0 < 180;
  return {
    has(lon, lat) {
      if (boxed && (lon < x0 - 0.01 || lon > x1 + 0.01 || lat < y0 - 0.01 || lat > y1 + 0.01)) return false;
      for (const [r, s] of byRes) if (s.has(latLngToCell(lat, lon, r))) return true;
      return false;
    },
  };
}

