import type { Feature, Geometry, Position } from 'geojson';

/**
 * Joins a tile's features that draw alike into one feature per (layer, class, name): areas into
 * one MultiPolygon, lines into the fewest lines by joining shared ends. A map draws and styles
 * one feature instead of hundreds (a street block's buildings, a street's ways), and a road's
 * name gets a line long enough to carry it once. Points stay apart: each is its own label.
 */
/**
 * Areas joined into one feature at most: a canvas path's cost grows faster than its ring count
 * (each closed ring is searched back over the path), so hundreds of rings are drawn as a few paths.
 */
const AREAS_PER_FEATURE = 16;

export function coalesce(features: Feature[]): Feature[] {
  const out: Feature[] = [];
  const areas = new Map<string, { props: Feature['properties']; polys: Position[][][] }>();
  const lines = new Map<string, { props: Feature['properties']; parts: Position[][] }>();
  for (const f of features) {
    const g = f.geometry;
    const key = `${f.properties?.['layer']}|${f.properties?.['class']}|${f.properties?.['name'] ?? ''}`;
    if (g.type === 'Polygon' || g.type === 'MultiPolygon') {
      const entry = areas.get(key) ?? areas.set(key, { props: f.properties, polys: [] }).get(key)!;
      if (g.type === 'Polygon') entry.polys.push(g.coordinates);
      else entry.polys.push(...g.coordinates);
    } else if (g.type === 'LineString' || g.type === 'MultiLineString') {
      const entry = lines.get(key) ?? lines.set(key, { props: f.properties, parts: [] }).get(key)!;
      if (g.type === 'LineString') entry.parts.push(g.coordinates);
      else entry.parts.push(...g.coordinates);
    } else out.push(f);
  }
  for (const { props, polys } of areas.values())
    for (let i = 0; i < polys.length; i += AREAS_PER_FEATURE) {
      const some = polys.slice(i, i + AREAS_PER_FEATURE);
      out.push({ type: 'Feature', properties: props, geometry: some.length === 1 ? { type: 'Polygon', coordinates: some[0]! } : { type: 'MultiPolygon', coordinates: some } });
    }
  for (const { props, parts } of lines.values()) {
    const merged = joinLines(parts);
    const geometry: Geometry = merged.length === 1 ? { type: 'LineString', coordinates: merged[0]! } : { type: 'MultiLineString', coordinates: merged };
    out.push({ type: 'Feature', properties: props, geometry });
  }
  return out;
}

const at = (p: Position) => `${p[0]},${p[1]}`;

/** Lines joined where one ends exactly where another starts or ends, greedily, in input order. */
export function joinLines(parts: Position[][]): Position[][] {
  const lines = parts.filter((l) => l.length >= 2);
  const used = new Uint8Array(lines.length);
  const ends = new Map<string, number[]>();
  lines.forEach((l, i) => {
    for (const p of [l[0]!, l[l.length - 1]!]) (ends.get(at(p)) ?? ends.set(at(p), []).get(at(p))!).push(i);
  });
  // The first unused line with an end at p, put in order to continue from p.
  const next = (p: Position): Position[] | null => {
    for (const i of ends.get(at(p)) ?? []) {
      if (used[i]) continue;
      used[i] = 1;
      const l = lines[i]!;
      return at(l[0]!) === at(p) ? l : [...l].reverse();
    }
    return null;
  };
  const out: Position[][] = [];
  lines.forEach((l, i) => {
    if (used[i]) return;
    used[i] = 1;
    const chain = [...l];
    for (let n = next(chain[chain.length - 1]!); n; n = next(chain[chain.length - 1]!)) for (let k = 1; k < n.length; k++) chain.push(n[k]!);
    // Backwards from the first point, kept reversed until done.
    const head: Position[] = [];
    for (let n = next(chain[0]!); n; n = next(head.length ? head[head.length - 1]! : chain[0]!)) for (let k = 1; k < n.length; k++) head.push(n[k]!);
    out.push(head.length ? [...head.reverse(), ...chain] : chain);
  });
  return out;
}
