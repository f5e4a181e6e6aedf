import { parseCoord } from '../../../../shared/coords';

/**
 * A drawn area as typed or pasted: a GeoJSON Polygon (or Feature of one), or one vertex per line
 * in any notation the coordinate reader takes. Gives the outer ring as [lon, lat], or why not.
 */
export function readAreaRing(text: string): { ring: [number, number][] } | { error: string } | null {
  const s = text.trim();
  if (!s) return null;
  if (s.startsWith('{')) {
    try {
      const g = JSON.parse(s) as { type?: string; geometry?: unknown; coordinates?: unknown };
      const geom = (g.type === 'Feature' ? g.geometry : g) as { type?: string; coordinates?: [number, number][][] };
      if (geom?.type !== 'Polygon' || !Array.isArray(geom.coordinates?.[0])) return { error: 'The GeoJSON is not a Polygon' };
      return { ring: geom.coordinates[0].map(([x, y]) => [x, y] as [number, number]) };
    } catch {
      return { error: 'Not valid JSON' };
    }
  }
  const ring: [number, number][] = [];
  const lines = s.split(/\n+/).map((l) => l.trim()).filter(Boolean);
  for (const [i, line] of lines.entries()) {
    const p = parseCoord(line);
    if ('error' in p) return { error: `Line ${i + 1}: ${p.error}` };
    ring.push([p.lon, p.lat]);
  }
  if (ring.length < 3) return { error: 'An area needs at least three corners, one per line' };
  return { ring };
}
