import { bboxPolygon, booleanIntersects } from '@turf/turf';
import type { BBox } from '../layers/store/geo';
import type { Geometry, Position } from 'geojson';
import { pointLayerAt, pointLayerOf, pointList, type Catalog, type Kind, type Layer, type PointList, type PointSource } from '../catalog/catalog';
import type { PointIndexer } from '../catalog/index-worker';
import { UPLOADS } from '../catalog/kinds/uploads';
import type { Slicer, UploadSet } from '../uploads';
import { inBox } from './bbox';
import { candidatesOf } from './candidates';
import { h3Filter } from './h3';
import type { Execution, Item, SavedSet } from './item';
import { numericValue } from './source';
import { conditionTests, unheldConditions } from './layers/conditions';
import { growBox, piecesOf } from './layers/ref-index';
import { pointPlaceAsRadius } from './layers/point-place';
import { referenceGeometries, uploadGeometries, type ResolveContext } from './layers/resolve';
import { countPerCountry, measure, type MeasurementResult } from './measure';
import { measureNearest } from './nearest';
import { countsWholeSubject, itemCountsPerPolygon, storeCountsPerPolygon } from './layers/per-polygon';
import { pastMin, type Plan, type RefPoint, type Reference, type Warning } from './plan';
import { measurer, type ReferenceContext } from './references';
import { referenceLines } from './reference-line';
import { refusalOfParts, unheldParts, UnreadQuestion, type UnreadPart } from './refusal';
import { sortByDistance } from './sort';
import { CompactItems } from './item-list';
import { subjectOf, type LayersInput, type SeenInput, type Subject } from './subject';
import type { UploadLayer } from './sources/upload';

export { sortByDistance } from './sort';
export { PER_AREA_UNIT_KM2, PER_CAPITA_UNIT, type MeasurementResult } from './measure';
export { LAYER_ITEM, type Execution, type Item, type SavedSet } from './item';

export interface ExecuteInput {
  plan: Plan;
  catalog: Catalog;
  /** The uploads and their point layer, or how to build it: its index is made only for a spatial call. */
  uploads: { features: UploadSet; layer: UploadLayer };
  /** Request coordinates that the question did not name. */
  coordinates: RefPoint[];
  h3Cells: string[];
  areaCountry?: string;
  saved?: SavedSet;
  /** The service clock: conditions on opening hours are read at this time. */
  now?: Date;
  /** The data layers: a subject of layer features is read from them, and so are relations to their features. */
  layers?: LayersInput;
  /** A subject read from another source than the layers' features: photos by what is seen in them. */
  seen?: SeenInput;
  /**
   * Where long work goes: loops over many candidates pause between slices, large layers are
   * indexed by the worker. Without it everything runs at once (small sets, tests).
   */
  work?: { slice: Slicer; indexer: PointIndexer };
}

/** Candidates filtered between two looks at the slicer's clock. */
const SLICE_STEP = 1024;

/**
 * Runs a plan on its subject's source, whichever it is (a kind, the uploads, features of data
 * layers): candidates from the source's narrowest index question, then every filter and relation
 * of the plan as a test on each candidate, then order, top N, and the figures asked for.
 */
export async function execute(input: ExecuteInput): Promise<Execution> {
  const { catalog, saved, work } = input;
  let { plan } = input;
  const warnings: Warning[] = [];
  const warn = (w: Warning) => warnings.push(w);
  const layerFrom = (kind: Kind, points: PointList): Promise<Layer> | Layer => (work ? pointLayerOf(kind, points, work) : pointLayerAt(kind, points));
  const subject = await subjectOf({ ...input, layerFrom }, warn);
  const { source } = subject;
  const unheld: UnreadPart[] = [];

  // References: layer features named by the vocabulary are read into geometries first. Where the
  // subject's features lie bounds what a relation or a bounded distance can reach; a distance
  // without a bound ("nearest", "more than 100 km") may go anywhere.
  const extent = source.extent?.() ?? undefined;
  const rctx: ResolveContext = { store: input.layers?.store, catalog, uploads: input.uploads.features, warn };
  const geometries = async (ref: Reference | undefined, near?: BBox): Promise<Geometry[] | null> => (ref ? referenceGeometries(ref, rctx, near) : null);
  const asGeoms = async (ref: Reference | undefined, near?: BBox): Promise<Reference | undefined> => {
    if (ref?.type !== 'selection') return ref;
    const geoms = (await geometries(ref, near)) ?? [];
    // Nothing to measure from: refused, never every item at a distance of nothing.
    if (!geoms.length) unheld.push({ words: ref.label, why: 'matched no feature of any layer, so there is nothing to measure from' });
    return { type: 'geoms', geoms, label: ref.label };
  };
  const pointPlace = pointPlaceAsRadius(plan, plan.inside?.type === 'selection' ? await geometries(plan.inside) : null, warn);
  plan = pointPlace.plan;
  if (pointPlace.unheld) unheld.push(pointPlace.unheld);
  const radiusKm = plan.within?.radiusKm ?? Infinity;
  const withinNear = extent && Number.isFinite(radiusKm) ? growBox(extent, radiusKm * 1000) : undefined;
  const withinRef = await asGeoms(plan.within?.reference, withinNear);
  const within = plan.within && withinRef ? { ...plan.within, reference: withinRef } : undefined;
  let reference: Reference | undefined = plan.distanceRef && plan.distanceRef !== plan.within?.reference ? await asGeoms(plan.distanceRef) : within?.reference;
  if (!reference && input.coordinates.length) {
    reference = { type: 'points', points: input.coordinates, label: input.coordinates.map((c) => c.label).join(', ') };
    if (!within) warn({ code: 'reading', message: `distances measured from the request coordinates (${reference.label})` });
  }
  // The answer names the reference as the question did ("the nearest fountain"), not as it was read.
  const shown = plan.distanceRef ?? plan.within?.reference ?? reference;
  const relation = async (ref: Reference | undefined) => {
    const g = await geometries(ref, extent);
    if (ref && g && !g.length) warn({ code: 'reading', message: `"${ref.label}" matched no feature, so nothing can be related to it` });
    return g;
  };
  const insideGeoms = await relation(plan.inside);
  const outsideGeoms = await relation(plan.outside);
  const crossGeoms = await relation(plan.intersecting);

  // "near those": the saved items as one layer; uploaded routes and areas are measured as geometries.
  const savedLayer = saved && [within?.reference, reference].some((r) => r?.type === 'saved') ? await savedAsLayer(saved, catalog, layerFrom) : null;
  const uploadsRef = saved?.uploads.length && subject.uploads === saved.uploads ? saved.uploads : input.uploads.features;
  const rc: ReferenceContext = {
    catalog,
    layerOf: (k) => catalog.kinds.get(k),
    savedLayer,
    geometriesOf: (ref) => {
      if (ref.type === 'class' && ref.kind === UPLOADS.name) return uploadGeometries(uploadsRef, ref.shape);
      if (ref.type === 'saved' && saved?.items.some((x) => x.k === UPLOADS.name))
        return [...saved.items].flatMap((x): Geometry[] => {
          if (x.k === UPLOADS.name) return piecesOf(saved.uploads.geometry(x.i));
          const RL = catalog.kinds.get(x.k);
          return [{ type: 'Point', coordinates: [RL.lon[x.i]!, RL.lat[x.i]!] }];
        });
      return null;
    },
  };
  const withinM = measurer(within?.reference, { ...rc, near: withinNear });
  const distM = reference === within?.reference ? withinM : measurer(reference, rc);

  // What the source cannot answer is refused, never dropped: dropping it would widen the answer.
  const label = source.label;
  unheld.push(...unheldParts(plan, { label, populated: source.populated, countryFigures: true, reference: !!distM }));
  if (within && !withinM && !unheld.length) unheld.push({ words: within.reference.label, why: 'nothing here to measure the distance from', part: plan.within!.reference });
  if (plan.conditions.length) unheld.push(...unheldConditions(plan.conditions, source.conditionColumns?.() ?? [source.columns()], label));
  if (plan.perRef && plan.perRef.type !== 'selection') unheld.push({ words: `per ${plan.perRef.label}`, why: 'counts are given per polygon of a layer', part: 'measurement' });
  const rankBy = plan.orderBy?.keys.filter((k) => source.numericColumns().includes(k)) ?? [];
  if (plan.orderBy && !rankBy.length) unheld.push({ words: `by ${plan.orderBy.label}`, why: `${label} have no ${plan.orderBy.keys.join(' or ')} figures to rank by`, part: 'order' });
  if (unheld.length) {
    throw new UnreadQuestion(refusalOfParts(plan, catalog, subject.layers ? undefined : subject.kind, unheld, { holds: subject.holds }));
  }

  const perRef = plan.perRef;
  // Counts per polygon are said as layer answers are, whatever the subject.
  const layers = subject.layers ?? (perRef?.type === 'selection' ? { selection: perRef.selection, label, perPolygon: false } : undefined);
  const base = { subject: subject.kind, layers, uploads: subject.uploads, warnings, referenceLines: referenceLines([within?.reference, reference]) };
  if (perRef?.type === 'selection' && subject.layers && !input.seen && rctx.store && countsWholeSubject(plan, { coordinates: input.coordinates, h3: input.h3Cells.length ? true : undefined, areaCountry: input.areaCountry })) {
    return perPolygon(base, await storeCountsPerPolygon(subject.layers.selection, perRef, rctx), perRef.label, label);
  }

  const run = await filtered(subject, {
    input: { ...input, plan },
    within,
    withinM,
    distM,
    rank: reference && reference !== within?.reference && plan.top !== undefined && (plan.order ?? 'distance') === 'distance' ? distM : null,
    insideGeoms,
    outsideGeoms,
    crossGeoms,
  });
  const items = run.items;

  // Order: what was asked; with something to measure from and nothing asked, nearest first; else the source's own.
  let order = plan.order;
  if (!order && distM) order = 'distance';
  const own = source.compare;
  const handle = subject.of;
  const byOwn = own ? (a: Item, b: Item) => own(handle(a), handle(b)) : null;
  // "the 3 largest parkings by capacity": the first of the columns with a number; none sorts last.
  const valueOf = (x: Item) => {
    const attrs = source.attributes(handle(x));
    for (const k of rankBy) {
      const v = numericValue(attrs[k]);
      if (!Number.isNaN(v)) return v;
    }
    return NaN;
  };
  if (items instanceof CompactItems) {
    // Numbers are the uploads' own order, so ties by number are ties in their own order.
    const one = (j: number): Item => ({ k: items.k, i: items.index(j) });
    const slice = work?.slice;
    if (order === 'distance' || order === 'distance_desc') await items.sortByDistance(order === 'distance_desc', slice);
    else if ((order === 'population_desc' || order === 'population_asc') && rankBy.length) await items.sortBy((j) => valueOf(one(j)), order === 'population_desc', slice);
    else if ((order === 'population_desc' || order === 'population_asc') && source.population) await items.sortBy((j) => source.population!(handle(one(j))), order === 'population_desc', slice);
    else if (!subject.saved) await items.sortBy(() => 0, false, slice);
  } else if (order === 'distance' || order === 'distance_desc') {
    sortByDistance(items);
    if (order === 'distance_desc') items.reverse();
    // Equal distances (0 inside an area) in the source's own order.
    if (byOwn) tieBreak(items, byOwn);
  } else if ((order === 'population_desc' || order === 'population_asc') && rankBy.length) {
    const values = new Map(items.map((x) => [x, valueOf(x)]));
    const sign = order === 'population_desc' ? -1 : 1;
    const known = (x: Item) => (Number.isNaN(values.get(x)!) ? 1 : 0);
    items.sort((a, b) => known(a) - known(b) || sign * (values.get(a)! - values.get(b)!) || (byOwn ? byOwn(a, b) : 0) || a.i - b.i);
  } else if ((order === 'population_desc' || order === 'population_asc') && source.population) {
    const pop = source.population;
    // Items without a population figure sort last either way.
    const popOf = (x: Item, unknown: number) => {
      const p = pop(handle(x));
      return Number.isNaN(p) ? unknown : p;
    };
    if (order === 'population_desc') items.sort((a, b) => popOf(b, -1) - popOf(a, -1) || a.i - b.i);
    else items.sort((a, b) => popOf(a, Infinity) - popOf(b, Infinity) || a.i - b.i);
  } else if (byOwn && !subject.saved) {
    items.sort(byOwn);
  }
  warnings.push(...run.warnings);
  const matched = items.length;
  if (plan.top !== undefined && items.length > plan.top) {
    if (items instanceof CompactItems) items.truncate(plan.top);
    else items.length = plan.top;
  }

  if (perRef?.type === 'selection') {
    const geometryOf = (x: Item) => source.geometry(handle(x));
    return perPolygon(base, await itemCountsPerPolygon([...items], geometryOf, perRef, rctx), perRef.label, label);
  }

  // Figures per country: each item's country from its source.
  const m = plan.measurement;
  const scopeCountries = input.areaCountry ? [input.areaCountry] : plan.countries;
  const countries = catalog.countries.kind;
  let measurement: MeasurementResult | undefined;
  if (subject.kind !== countries && (plan.byCountry || ((m === 'per_capita' || m === 'per_area') && !scopeCountries.length && !within))) {
    if (!plan.byCountry) warn({ code: 'reading', message: `${m} has no single area here; figures given per country` });
    // One country and position at a time: a set of millions of rows is never copied.
    const counted = (function* () {
      for (const x of items) {
        const h = handle(x);
        const [lon, lat] = source.position(h);
        yield { country: source.country(h), lon: lon!, lat: lat! };
      }
    })();
    const out = countPerCountry(counted, catalog, m ?? 'count');
    measurement = { kind: m ?? 'count', value: out.length, unit: 'countries', scope: 'per country' };
    return { ...base, subject: countries, items: out, matched: out.length, reference: shown, radiusKm: within?.radiusKm, nearestFirst: false, measurement, aggregated: true };
  }
  if (m === 'count') measurement = { kind: 'count', value: items.length, unit: label, scope: 'all matches' };
  else if (m) measurement = measure(m, items.length, scopeCountries, within, catalog, (code, message) => warn({ code, message }));
  return {
    ...base,
    items,
    reference: distM ? shown : undefined,
    radiusKm: within?.radiusKm,
    matched,
    ...(run.nearestOnly ? { matchedUnknown: true } : {}),
    nearestFirst: order === 'distance' && !!distM,
    measurement,
    aggregated: false,
  };
}

interface FilterInput {
  input: ExecuteInput;
  within: Plan['within'];
  withinM: ReturnType<typeof measurer>;
  distM: ReturnType<typeof measurer>;
  /** The reference of "the N nearest" when only those that can be among the first N are measured. */
  rank: ReturnType<typeof measurer>;
  insideGeoms: Geometry[] | null;
  outsideGeoms: Geometry[] | null;
  crossGeoms: Geometry[] | null;
}

/** The subject's candidates that pass every filter and relation of the plan, with their distances. */
async function filtered<T>(subject: Subject<T>, f: FilterInput): Promise<{ items: Item[] | CompactItems; warnings: Warning[]; nearestOnly: boolean }> {
  const { input, within, withinM, distM, insideGeoms, outsideGeoms, crossGeoms } = f;
  const { plan, work } = input;
  const { source } = subject;
  const h3 = h3Filter(input.h3Cells);
  const keep = source.modifiers?.(plan);
  const countries = input.areaCountry ? [input.areaCountry] : plan.countries;
  const cond = conditionTests(plan.conditions, input.now ?? new Date());
  const pop = source.populated ? source.population : undefined;
  const toItem = source.item ?? ((x: T): Item => ({ k: subject.kind, i: x as number }));
  const key = source.item
    ? (x: T) => {
        const it = toItem(x);
        return `${it.hit?.layer.id}/${it.i}`;
      }
    : (x: T) => x as number;
  // "the 5 nearest airports to my route": distances to a line or polygon are dear, so only the
  // items that can be among the first N are measured (see measureNearest); the rest keep no distance.
  const rankIndex = f.rank?.geometric ? f.rank.index() : null;
  const narrowed = !!(plan.conditions.length || keep || h3 || outsideGeoms || plan.popMin !== undefined || plan.popMax !== undefined);
  const { list, byPopulation, nearestOnly } = subject.saved
    ? { list: subject.saved, byPopulation: false, nearestOnly: false }
    : await candidatesOf({ plan, source, countries, within: withinM && within ? withinM : null, rank: f.rank, inside: insideGeoms, crossing: crossGeoms, narrowed, key });

  // Largest-first candidates with a population floor or "the N largest": the first that fail end the search.
  const popCutoff = pop && byPopulation && plan.popMin !== undefined ? plan.popMin : undefined;
  const stopAt = pop && byPopulation && plan.top !== undefined && plan.order === 'population_desc' && !plan.orderBy ? plan.top : Infinity;
  const box = plan.bbox && plan.bbox.west <= plan.bbox.east ? bboxPolygon([plan.bbox.west, plan.bbox.south, plan.bbox.east, plan.bbox.north]).geometry : null;
  const shapes = insideGeoms || outsideGeoms || crossGeoms;
  // Uploaded rows (millions of them) are kept as numbers; other sources' items as objects.
  const compact = subject.kind === UPLOADS.name && !source.item && !subject.savedFigures && !rankIndex ? new CompactItems(subject.kind, list.length) : null;
  const items: Item[] = [];
  const count = () => compact?.length ?? items.length;
  let seen = 0;
  for (const x of list) {
    if (work && ++seen % SLICE_STEP === 0 && work.slice.due()) await work.slice.pause();
    if (popCutoff !== undefined && !(pop!(x) >= popCutoff)) break;
    if (count() >= stopAt) break;
    if (countries.length && !countries.includes(source.country(x))) continue;
    if (keep && !keep(x)) continue;
    if (pop && (plan.popMin !== undefined || plan.popMax !== undefined)) {
      const p = pop(x);
      if (plan.popMin !== undefined && !(p >= plan.popMin)) continue;
      if (plan.popMax !== undefined && !(p <= plan.popMax)) continue;
    }
    // A point is its position; anything else is tested and measured as its geometry.
    let g: Geometry | null = source.pointLike ? null : source.geometry(x);
    if (g?.type === 'Point') g = null;
    let at: Position | undefined;
    const pos = () => (at ??= source.position(x));
    if (h3 && !h3.has(pos()[0]!, pos()[1]!)) continue;
    if (plan.bbox) {
      if (g && box ? !booleanIntersects(box, g) : !inBox(plan.bbox, pos()[0]!, pos()[1]!)) continue;
    }
    if (shapes) {
      const me: Geometry = g ?? { type: 'Point', coordinates: pos() };
      if (insideGeoms && !insideGeoms.some((p) => booleanIntersects(p, me))) continue;
      if (crossGeoms && !crossGeoms.some((p) => booleanIntersects(p, me))) continue;
      if (outsideGeoms && outsideGeoms.some((p) => booleanIntersects(p, me))) continue;
    }
    if (plan.conditions.length && !cond.pass(source.attributes(x), { sourceId: source.sourceId?.(x), geometry: () => source.geometry(x) })) continue;
    let d: number | undefined;
    if (withinM && within) {
      const km = withinM.distance(pos(), g, within.radiusKm);
      if (!(km <= within.radiusKm)) continue;
      if (!pastMin(within, km)) continue;
      if (withinM === distM) d = km * 1000;
    }
    if (d === undefined && distM && !rankIndex) {
      const km = distM.distance(pos(), g, Infinity);
      if (Number.isFinite(km)) d = km * 1000;
    }
    if (compact) {
      compact.push(x as number, d);
      continue;
    }
    const item = toItem(x);
    if (d !== undefined) item.d = d;
    const a = subject.savedFigures?.get(item.i);
    if (a) item.a = a;
    items.push(item);
  }
  if (rankIndex) {
    const handle = subject.of;
    const geometryOf = (it: Item) => {
      if (source.pointLike) return null;
      const g = source.geometry(handle(it));
      return g.type === 'Point' ? null : g;
    };
    await measureNearest(items, plan.top!, rankIndex, (it) => source.position(handle(it)), geometryOf, work?.slice);
  }
  return { items: compact ?? items, warnings: plan.conditions.length ? cond.warnings() : [], nearestOnly: !!nearestOnly };
}

/** Runs of equal distance put in the source's own order. */
function tieBreak(items: Item[], compare: (a: Item, b: Item) => number): void {
  for (let i = 0; i < items.length; ) {
    let j = i + 1;
    while (j < items.length && items[j]!.d === items[i]!.d) j++;
    if (j - i > 1) {
      const run = items.slice(i, j).sort(compare);
      for (let k = 0; k < run.length; k++) items[i + k] = run[k]!;
    }
    i = j;
  }
}

/** "X per district": the polygons with their counts, most first, and the total as the measurement. */
function perPolygon(base: Omit<Execution, 'items' | 'matched' | 'nearestFirst' | 'aggregated'>, per: Item[], perLabel: string, label: string): Execution {
  per.sort((a, b) => b.count! - a.count! || String(a.hit!.f.tags['name'] ?? '').localeCompare(String(b.hit!.f.tags['name'] ?? '')));
  const total = per.reduce((n, p) => n + p.count!, 0);
  return {
    ...base,
    layers: { ...base.layers!, perPolygon: true },
    items: per,
    matched: per.length,
    nearestFirst: false,
    aggregated: false,
    measurement: { kind: 'count', value: total, unit: label, scope: `per ${perLabel}` },
  };
}

/** The saved items as one point layer, for "near those" (uploads from their kept positions). */
async function savedAsLayer(saved: SavedSet, catalog: Catalog, layerFrom: (kind: Kind, points: PointList) => Promise<Layer> | Layer): Promise<Layer> {
  const points = [...saved.items].map((x): PointSource => {
    if (x.k === UPLOADS.name) {
      const u = saved.uploads;
      return { lon: u.lon(x.i), lat: u.lat(x.i), country: u.country(x.i) };
    }
    const L = catalog.kinds.get(x.k);
    return { lon: L.lon[x.i]!, lat: L.lat[x.i]!, country: L.country[x.i] ?? '' };
  });
  return layerFrom(saved.subject, pointList(points));
}
