import type { Position } from 'geojson';
import type { Reference } from './plan';

/** Vertices a reference line keeps for drawing: plenty at any zoom its answer is framed at. */
export const REFERENCE_LINE_VERTICES = 2000;

/** A line an answer was measured from ("along the Lenne"), as the map draws it. */
export interface ReferenceLine {
  label: string;
  line: { type: 'MultiLineString'; coordinates: [number, number][][] };
}

/** The lines among the resolved references (a river, a street), one per reference, thinned for drawing. */
export function referenceLines(refs: readonly (Reference | undefined)[]): ReferenceLine[] {
  const out: ReferenceLine[] = [];
  const seen = new Set<Reference>();
  for (const ref of refs) {
    if (ref?.type !== 'geoms' || seen.has(ref)) continue;
    seen.add(ref);
    const parts = ref.geoms.flatMap((g) => (g.type === 'LineString' ? [g.coordinates] : g.type === 'MultiLineString' ? g.coordinates : []));
    // Longitude and latitude only: the map draws in two dimensions.
    const coordinates = thinned(parts, REFERENCE_LINE_VERTICES).map((p) => p.map((c): [number, number] => [c[0]!, c[1]!]));
    if (parts.length) out.push({ label: ref.label, line: { type: 'MultiLineString', coordinates } });
  }
  return out;
}

/** Every k-th vertex of each part, its ends kept, so the whole stays within the budget. */
function thinned(parts: Position[][], budget: number): Position[][] {
  const total = parts.reduce((n, p) => n + p.length, 0);
  const step = Math.max(1, Math.ceil(total / budget));
  return step === 1 ? parts : parts.map((p) => p.filter((_, i) => i % step === 0 || i === p.length - 1));
}
