import { booleanIntersects } from '@turf/turf';
import type { Geometry } from 'geojson';
import type { Plan, Reference } from '../plan';
import { LAYER_ITEM, type Item } from '../item';
import { selectionFeatures, type LayerHit, type ResolveContext } from './resolve';

type SelectionRef = Extract<Reference, { type: 'selection' }>;

const isPolygon = (h: LayerHit) => h.f.geometry.type === 'Polygon' || h.f.geometry.type === 'MultiPolygon';

/**
 * Whether "X per district" counts every feature of the subject, nothing else limiting it: then
 * the store counts per polygon itself (one GROUP BY on PostGIS) and no subject feature is read.
 */
export function countsWholeSubject(plan: Plan, input: { coordinates: readonly unknown[]; h3?: unknown; areaCountry?: string }): boolean {
  return (
    plan.perRef?.type === 'selection' &&
    !plan.within && !plan.inside && !plan.outside && !plan.intersecting && !plan.bbox && !plan.distanceRef &&
    !plan.conditions.length && !plan.countries.length && plan.top === undefined &&
    !input.coordinates.length && !input.h3 && !input.areaCountry
  );
}

/** The polygons of `perRef`, each with how many subject features the store counted in it. */
export async function storeCountsPerPolygon(subject: SelectionRef['selection'], perRef: SelectionRef, ctx: ResolveContext): Promise<Item[]> {
  const counts = new Map<string, number>();
  if (!ctx.store) return [];
  for (const p of perRef.selection.sources) {
    for (const s of subject.sources) {
      for (const c of await ctx.store.countPerPolygon({ layerId: p.layer.id, match: p.match }, { layerId: s.layer.id, match: s.match })) {
        const key = `${p.layer.id}/${c.fid}`;
        counts.set(key, (counts.get(key) ?? 0) + c.count);
      }
    }
  }
  return (await selectionFeatures(perRef, ctx)).filter(isPolygon).map((p) => ({ k: LAYER_ITEM, i: p.f.fid, hit: p, count: counts.get(`${p.layer.id}/${p.f.fid}`) ?? 0 }));
}

/** The polygons of `perRef`, each with how many of the items (already read and tested) it intersects. */
export async function itemCountsPerPolygon(items: readonly Item[], geometryOf: (x: Item) => Geometry, perRef: SelectionRef, ctx: ResolveContext): Promise<Item[]> {
  const geoms = items.map(geometryOf);
  return (await selectionFeatures(perRef, ctx))
    .filter(isPolygon)
    .map((p) => ({ k: LAYER_ITEM, i: p.f.fid, hit: p, count: geoms.filter((g) => booleanIntersects(p.f.geometry, g)).length }));
}
