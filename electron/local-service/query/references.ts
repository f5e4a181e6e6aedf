import { around, distance } from 'geokdbush';
import type { Geometry, Position } from 'geojson';
import type { Catalog, Kind, Layer } from '../catalog/catalog';
import type { BBox } from '../layers/store/geo';
import { referenceIndex } from './layers/ref-index';
import { classPredicate } from './modifiers';
import type { Reference } from './plan';
import { reach } from './sources/points';

/** Km from an item (its position, and its geometry unless it is a point) to a reference: Infinity past `maxKm` or with nothing to measure to. */
export type DistanceFn = (p: Position, g: Geometry | null, maxKm: number) => number;

export type ReferenceIndex = ReturnType<typeof referenceIndex>;

/** How distances to one reference are measured, and where its parts lie for a candidate search. */
export interface Measurer {
  distance: DistanceFn;
  /** The reference's geometries with their index, when it is lines, polygons or layer features (built on first use otherwise). */
  index(): ReferenceIndex;
  /** Whether the reference is geometries to measure to, not points of an index. */
  readonly geometric: boolean;
  /** Its parts as geometries, for searching around each (as many as `count()`). */
  parts(): Geometry[];
  count(): number;
}

export interface ReferenceContext {
  catalog: Catalog;
  /** The point layer of a kind or of the uploads. */
  layerOf(k: Kind): Layer;
  /** The earlier results as one point layer, when a reference names them. */
  savedLayer: Layer | null;
  /** What a reference stands for when it is routes or areas (uploads, earlier uploads), else null. */
  geometriesOf(ref: Reference): Geometry[] | null;
  /** The box the subject lies in: a class is read only there when its distances go to geometries. */
  near?: BBox;
}

/** Great-circle distances up to this are asked of an index with a bound; past it the nearest is searched. */
const BOUNDED_KM = 20_000;

const pointOf = (p: Position): Geometry => ({ type: 'Point', coordinates: p });

/** Distances to geometries through their index: to a line or a polygon, never to its vertices' mean. */
function byIndex(index: () => ReferenceIndex): DistanceFn {
  return (p, g, maxKm) => {
    const to = g ?? pointOf(p);
    return (Number.isFinite(maxKm) && maxKm < BOUNDED_KM ? index().within(to, maxKm * 1000) : index().nearest(to)) / 1000;
  };
}

function once<T>(make: () => T): () => T {
  let v: T | undefined;
  let made = false;
  return () => {
    if (!made) [v, made] = [make(), true];
    return v as T;
  };
}

/**
 * How distances to a reference are measured. Points measured to points use the sphere of the
 * geodesic index (kinds, uploads, positions typed in the question); anything with a shape, on
 * either side, is measured to the geometry. Null when the reference has nothing to measure to here.
 */
export function measurer(ref: Reference | undefined, ctx: ReferenceContext): Measurer | null {
  if (!ref || ref.type === 'selection') return null;
  const geoms = ref.type === 'geoms' ? ref.geoms : ctx.geometriesOf(ref);
  if (geoms) {
    const index = once(() => referenceIndex(geoms));
    return { distance: byIndex(index), index, geometric: true, parts: () => geoms, count: () => geoms.length };
  }
  if (ref.type === 'points') {
    const parts = ref.points.map((q): Geometry => pointOf([q.lon, q.lat]));
    const index = once(() => referenceIndex(parts));
    const toShape = byIndex(index);
    return {
      distance: (p, g, maxKm) => {
        if (g && g.type !== 'Point') return toShape(p, g, maxKm);
        let best = Infinity;
        for (const q of ref.points) best = Math.min(best, distance(p[0]!, p[1]!, q.lon, q.lat));
        return best;
      },
      index,
      geometric: false,
      parts: () => parts,
      count: () => parts.length,
    };
  }
  if (ref.type !== 'class' && ref.type !== 'saved') return null;
  const RL = ref.type === 'saved' ? ctx.savedLayer : ctx.layerOf(ref.kind);
  if (!RL) return null;
  const pred = ref.type === 'class' ? classPredicate(ref, ctx.catalog) : undefined;
  const ids = once(() => {
    const near = ctx.near;
    const all = near ? RL.index.range(near[0], near[1], near[2], near[3]) : Array.from({ length: RL.size }, (_, i) => i);
    return pred ? all.filter(pred) : all;
  });
  const parts = once(() => ids().map((i): Geometry => pointOf([RL.lon[i]!, RL.lat[i]!])));
  const index = once(() => referenceIndex(parts()));
  const toShape = byIndex(index);
  return {
    distance: (p, g, maxKm) => {
      if (g && g.type !== 'Point') return toShape(p, g, maxKm);
      const hit = around(RL.index, p[0]!, p[1]!, 1, reach(maxKm), pred);
      return hit.length ? distance(p[0]!, p[1]!, RL.lon[hit[0]!]!, RL.lat[hit[0]!]!) : Infinity;
    },
    index,
    geometric: false,
    parts,
    count: () => ids().length,
  };
}
