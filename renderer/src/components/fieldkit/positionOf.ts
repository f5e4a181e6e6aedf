import type { LatLon } from '../../../../shared/coords';

type Coords = number | Coords[];

/** A representative position of a GeoJSON geometry: the point itself, else its box centre. */
export function positionOf(geometry: unknown): LatLon | null {
  const g = geometry as { type?: string; coordinates?: Coords } | null;
  if (!g || !Array.isArray(g.coordinates)) return null;
  if (g.type === 'Point') {
    const [lon, lat] = g.coordinates as number[];
    return typeof lon === 'number' && typeof lat === 'number' ? { lat, lon } : null;
  }
  const box = [Infinity, Infinity, -Infinity, -Infinity];
  const walk = (c: Coords): void => {
    if (!Array.isArray(c)) return;
    if (typeof c[0] === 'number') {
      const [x, y] = c as number[];
      box[0] = Math.min(box[0]!, x!);
      box[1] = Math.min(box[1]!, y!);
      box[2] = Math.max(box[2]!, x!);
      box[3] = Math.max(box[3]!, y!);
    } else c.forEach(walk);
  };
  walk(g.coordinates);
  return box[0] === Infinity ? null : { lon: (box[0]! + box[2]!) / 2, lat: (box[1]! + box[3]!) / 2 };
}
