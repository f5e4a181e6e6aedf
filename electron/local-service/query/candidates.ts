import type { Geometry, Position } from 'geojson';
import { bboxOf, distanceToGeometry, type BBox } from '../layers/store/geo';
import { growBox as grow } from './layers/ref-index';
import type { Plan } from './plan';
import type { Measurer } from './references';
import type { Source } from './source';

/** Reference parts up to which each is asked of the subject's index; past it the subject is read whole. */
const PER_REFERENCE_QUERIES = 256;
/** Reference points up to which "the N nearest" asks the index for N around each. */
const NEAREST_POINTS = 16;
/** Reference vertices asked for their nearest features, and boxes the reference is searched in. */
const SAMPLED_VERTICES = 64;
const REFERENCE_BOXES = 32;

export interface CandidateInput<T> {
  plan: Plan;
  source: Source<T>;
  /** Countries the answer is limited to (the plan's, or the request's area). */
  countries: string[];
  within: Measurer | null;
  /** The reference of "nearest" when it is not the within's. */
  rank: Measurer | null;
  inside: Geometry[] | null;
  crossing: Geometry[] | null;
  /** Whether anything besides the relation itself drops features (conditions, modifiers, cells, "outside"). */
  narrowed: boolean;
  key: (x: T) => string | number;
}

export interface Candidates<T> {
  list: T[];
  /** Whether they come largest population first (population filters and "largest" may stop early). */
  byPopulation: boolean;
  /** Only the nearest N were read ("the 3 nearest …"): how many match in all is not known. */
  nearestOnly?: boolean;
}

/**
 * The narrowest question the plan allows, asked of the subject's source: at least every feature
 * that passes, perhaps a few more; the executor's exact tests on each decide.
 */
export async function candidatesOf<T>(c: CandidateInput<T>): Promise<Candidates<T>> {
  const { plan, source } = c;
  const seen = new Map<string | number, T>();
  const add = (xs: T[]) => {
    for (const x of xs) seen.set(c.key(x), x);
  };
  const done = (byPopulation = false): Candidates<T> => ({ list: [...seen.values()], byPopulation });
  const boxOf = (g: Geometry, metres: number): BBox | null => {
    const b = bboxOf(g);
    return b && grow(b, metres);
  };
  if (c.countries.length) {
    if (c.countries.length === 1) return { list: await source.inCountry(c.countries[0]!), byPopulation: source.populated };
    for (const cc of c.countries) add(await source.inCountry(cc));
    return done();
  }
  const radiusKm = plan.within?.radiusKm ?? Infinity;
  if (c.within && Number.isFinite(radiusKm) && c.within.count() <= PER_REFERENCE_QUERIES) {
    for (const g of c.within.parts()) {
      if (g.type === 'Point') add(await source.within(g.coordinates, radiusKm));
      else {
        const b = boxOf(g, radiusKm * 1000);
        if (b) add(await source.inBox(b, 'near the reference'));
      }
    }
    return done();
  }
  for (const [geoms, label] of [[c.inside, plan.inside?.label], [c.crossing, plan.intersecting?.label]] as const) {
    if (!geoms) continue;
    for (const g of geoms) {
      if (source.intersecting) add(await source.intersecting(g, `in "${label}"`));
      else {
        const b = bboxOf(g);
        if (b) add(await source.inBox(b));
      }
    }
    return done();
  }
  if (plan.bbox && plan.bbox.west <= plan.bbox.east) {
    add(await source.inBox([plan.bbox.west, plan.bbox.south, plan.bbox.east, plan.bbox.north]));
    return done();
  }
  // "the 3 nearest pharmacies to X", nothing else dropping features: the nearest N hold the answer.
  // Points held in memory are all measured instead, so the answer can say of how many.
  const nearestOnly = plan.top !== undefined && (plan.order ?? 'distance') === 'distance' && c.rank && !c.within && !c.narrowed && !source.pointLike;
  if (nearestOnly && !c.rank!.geometric && c.rank!.count() <= NEAREST_POINTS) {
    for (const g of c.rank!.parts()) add(await source.nearest((g as { coordinates: Position }).coordinates, plan.top!));
    return { ...done(), nearestOnly: true };
  }
  if (nearestOnly && c.rank!.geometric) {
    const near = await nearToGeometries(source, c.rank!, plan.top!, c.key);
    if (near) {
      add(near);
      return { ...done(), nearestOnly: true };
    }
  }
  return { list: await source.all(), byPopulation: source.populated };
}

/**
 * Candidates for the `top` features nearest a line or polygon (null when the source holds fewer).
 * Each sampled vertex lies on the reference, so a feature's distance to it bounds the feature's
 * distance to the reference: the top-th least of those bounds the answer, and only features that
 * near the reference's pieces are read.
 */
async function nearToGeometries<T>(source: Source<T>, ref: Measurer, top: number, key: (x: T) => string | number): Promise<T[] | null> {
  const upper = new Map<string | number, number>();
  for (const v of ref.index().vertices(SAMPLED_VERTICES)) {
    for (const x of await source.nearest(v, top)) {
      const k = key(x);
      upper.set(k, Math.min(upper.get(k) ?? Infinity, distanceToGeometry(v, source.geometry(x))));
    }
  }
  const bounds = [...upper.values()].sort((a, b) => a - b);
  if (bounds.length < top) return null;
  const bound = bounds[top - 1]! * 1.001 + 1;
  const geoms = ref.parts();
  const out: T[] = [];
  const per = Math.ceil(geoms.length / REFERENCE_BOXES);
  for (let k = 0; k < geoms.length; k += per) {
    const b = geoms.slice(k, k + per).reduce<BBox | null>((acc, g) => {
      const x = bboxOf(g);
      if (!x) return acc;
      return acc ? [Math.min(acc[0], x[0]), Math.min(acc[1], x[1]), Math.max(acc[2], x[2]), Math.max(acc[3], x[3])] : x;
    }, null);
    if (b) out.push(...(await source.inBox(grow(b, bound), 'near the reference')));
  }
  return out;
}
