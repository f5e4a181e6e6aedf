import type { Geometry } from 'geojson';
import type { Plan, Warning } from '../plan';
import type { UnreadPart } from '../refusal';
import { IN_CITY_KM } from '../words';

/**
 * "in Hamburg" where the layers know Hamburg only as a point (a place node, no boundary): inside
 * a point holds nothing, so the place is read as a city is, within IN_CITY_KM of it, and the
 * reading says so. With a distance of its own besides, the question is refused instead.
 */
export function pointPlaceAsRadius(
  plan: Plan,
  geoms: Geometry[] | null,
  warn: (w: Warning) => void,
): { plan: Plan; unheld?: UnreadPart } {
  const ref = plan.inside;
  if (!ref || ref.type !== 'selection' || !geoms?.length || !geoms.every((g) => g.type === 'Point' || g.type === 'MultiPoint')) return { plan };
  if (plan.within) return { plan, unheld: { words: ref.label, why: 'is known only as a point, not an area: nothing lies inside it', part: ref } };
  warn({ code: 'reading', message: `"${ref.label}" is known only as a point, not an area: read "in ${ref.label}" as within ${IN_CITY_KM} km of it, as for a city` });
  const { inside: _, ...rest } = plan;
  return { plan: { ...rest, within: { reference: { type: 'geoms', geoms, label: ref.label }, radiusKm: IN_CITY_KM } } };
}
