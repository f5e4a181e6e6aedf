import { around, distance } from 'geokdbush';
import { pointLayer, pointLayerOf, type Catalog, type Kind, type Layer, type PointSource } from '../catalog/catalog';
import type { PointIndexer } from '../catalog/index-worker';
import type { KindLayer } from '../catalog/kinds/registry';
import { UPLOADS } from '../catalog/kinds/uploads';
import type { Geometry } from 'geojson';
import type { Slicer, UploadFeature } from '../uploads';
import { inBox } from './bbox';
import { conditionKeys, conditionTests } from './layers/conditions';
import { piecesOf, referenceIndex } from './layers/ref-index';
import { h3Filter } from './h3';
import { aggregateByCountry, measure, type MeasurementResult } from './measure';
import { modifierTest } from './modifiers';
import { pastMin, type Plan, type RefPoint, type Reference, type Warning } from './plan';
import { measureNearest } from './nearest';
import type { Source } from './source';
import { catalogSource } from './sources/catalog';
import { reach } from './sources/points';
import { uploadSource } from './sources/upload';
import { holdsOf, refusalOfParts, unheldParts, UnreadQuestion } from './refusal';
import { defaultOrder, sortByDistance } from './sort';
import type { Execution, Item, SavedSet } from './item';

export { sortByDistance } from './sort';
export { PER_AREA_UNIT_KM2, PER_CAPITA_UNIT, type MeasurementResult } from './measure';

export { LAYER_ITEM, type Execution, type Item, type SavedSet } from './item';

export interface ExecuteInput {
  plan: Plan;
  catalog: Catalog;
  uploads: { features: UploadFeature[]; layer: Layer };
  /** Request coordinates that the question did not name. */
  coordinates: RefPoint[];
  h3Cells: string[];
  areaCountry?: string;
  saved?: SavedSet;
  /** The service clock: conditions on opening hours of uploaded features are read at this time. */
  now?: Date;
  /** Relations to layer features the plan asks for ("in Nordviertel"), as one test per item position. */
  keep?: (lon: number, lat: number) => boolean;
  /**
   * Where long work goes: loops over many candidates pause between slices, large layers are
   * indexed by the worker. Without it everything runs at once (small sets, tests).
   */
  work?: { slice: Slicer; indexer: PointIndexer };
}


/** Candidates filtered between two looks at the slicer's clock. */
const SLICE_STEP = 1024;


export async function execute(input: ExecuteInput): Promise<Execution> {
  const { plan, catalog, saved, work } = input;
  const layerFrom = (kind: Kind, points: readonly PointSource[]): Promise<Layer> | Layer =>
    work ? pointLayerOf(kind, points, work) : pointLayer(kind, points.map((p) => p.lon), points.map((p) => p.lat), points.map((p) => p.country));
  const warnings: Warning[] = [];
  const warn = (code: string, message: string) => warnings.push({ code, message });
  const { kinds } = catalog;

  let subject: Kind | null = plan.subject;
  if (saved && (subject === null || subject === saved.subject)) subject = saved.subject;
  else if (saved && subject !== saved.subject)
    warn('context', `the earlier results are ${kinds.label(saved.subject).many}; this question asks for ${kinds.label(subject!).many}, so it searched anew`);
  const useSaved = saved && subject === saved.subject ? saved : undefined;
  if (subject === null) {
    subject = input.uploads.features.length ? UPLOADS.name : kinds.fallback;
    warn('reading', `no subject named; searched ${subject === UPLOADS.name ? 'the uploaded features' : kinds.label(subject).many}`);
  }
  const isUploads = subject === UPLOADS.name;
  if (isUploads && !useSaved && !input.uploads.features.length)
    warn('no_uploads', 'the question is about uploaded features but no files were sent');

  // Uploads are their own source; any other name must be a kind of the catalog (else an error).
  const layerOf = (k: Kind): Layer => (k === UPLOADS.name ? uploadsLayer : kinds.get(k));
  const savedUploads = useSaved?.uploads ?? [];
  const uploadFeatures = useSaved ? savedUploads : input.uploads.features;
  // Saved uploads are read back without a layer: theirs is built here.
  const uploadsLayer = useSaved && savedUploads.length ? await layerFrom(UPLOADS.name, savedUploads) : input.uploads.layer;
  const L = layerOf(subject);
  const K: KindLayer | null = isUploads ? null : kinds.get(subject);

  // Reference points for distances.
  let reference: Reference | undefined = plan.within?.reference ?? plan.distanceRef;
  if (plan.distanceRef) reference = plan.distanceRef;
  if (!reference && input.coordinates.length) {
    reference = { type: 'points', points: input.coordinates, label: input.coordinates.map((c) => c.label).join(', ') };
    if (!plan.within) warn('reading', `distances measured from the request coordinates (${reference.label})`);
  }
  // "near those": the saved items as one layer, built before any distance is asked of it.
  const savedRefLayer =
    saved && [plan.within?.reference, reference].some((r) => r?.type === 'saved')
      ? await savedAsLayer(saved, layerOf, layerFrom)
      : null;
  // Uploaded lines and polygons are measured as geometries: to the nearest point of a route, 0 inside an area.
  const uploadsRefFeatures = useSaved && savedUploads.length ? savedUploads : input.uploads.features;
  const geomsOf = (ref: Reference): Geometry[] | null => {
    if (ref.type === 'class' && ref.kind === UPLOADS.name) return uploadsRefFeatures.flatMap((f) => piecesOf(f.geometry));
    if (ref.type === 'saved' && saved?.items.some((x) => x.k === UPLOADS.name))
      return saved.items.flatMap((x): Geometry[] => {
        if (x.k === UPLOADS.name) return piecesOf(saved.uploads[x.i]!.geometry);
        const RL = layerOf(x.k);
        return [{ type: 'Point', coordinates: [RL.lon[x.i]!, RL.lat[x.i]!] }];
      });
    return null;
  };
  const indexes = new Map<Reference, ReturnType<typeof referenceIndex> | null>();
  const indexOf = (ref: Reference) => {
    if (!indexes.has(ref)) {
      const geoms = ref.type === 'geoms' ? ref.geoms : geomsOf(ref);
      indexes.set(ref, geoms ? referenceIndex(geoms) : null);
    }
    return indexes.get(ref)!;
  };
  const distTo = (ref: Reference | undefined): ((lon: number, lat: number, maxKm: number) => number) | null => {
    if (!ref) return null;
    const index = indexOf(ref);
    if (index) {
      return (lon, lat, maxKm) => {
        const p = { type: 'Point' as const, coordinates: [lon, lat] };
        return (Number.isFinite(maxKm) && maxKm < 20_000 ? index.within(p, maxKm * 1000) : index.nearest(p)) / 1000;
      };
    }
    if (ref.type === 'points')
      return (lon, lat) => {
        let best = Infinity;
        for (const p of ref.points) best = Math.min(best, distance(lon, lat, p.lon, p.lat));
        return best;
      };
    if (ref.type === 'selection' || ref.type === 'geoms') return null;
    const RL = ref.type === 'saved' ? savedRefLayer : layerOf(ref.kind);
    if (!RL) return null;
    const pred = ref.type === 'class' ? classPredicate(ref, catalog) : undefined;
    return (lon, lat, maxKm) => {
      const hit = around(RL.index, lon, lat, 1, reach(maxKm), pred);
      return hit.length ? distance(lon, lat, RL.lon[hit[0]!]!, RL.lat[hit[0]!]!) : Infinity;
    };
  };

  // The subject's source: a kind of the catalog, or the uploaded files as a layer of the question.
  const source: Source<number> = K ? catalogSource(K, catalog) : uploadSource(uploadFeatures, L, catalog);
  // Candidates: the saved set, or the cheapest question of the source for the constraints.
  let ids: number[];
  // Whether ids come largest population first, which lets population filters stop early.
  let popSorted = false;
  if (useSaved) ids = useSaved.items.filter((x) => x.k === subject).map((x) => x.i);
  else if (isUploads) ids = await source.all();
  else if (plan.countries.length || input.areaCountry) {
    const codes = input.areaCountry ? [input.areaCountry] : plan.countries;
    ids = codes.length === 1 ? await source.inCountry(codes[0]!) : (await Promise.all(codes.map((c) => source.inCountry(c)))).flat();
    popSorted = codes.length === 1;
  } else if (plan.within?.reference.type === 'points' && Number.isFinite(plan.within.radiusKm)) {
    const set = new Set<number>();
    for (const p of plan.within.reference.points) for (const id of await source.within([p.lon, p.lat], plan.within.radiusKm)) set.add(id);
    ids = [...set];
  } else if (plan.bbox && plan.bbox.west <= plan.bbox.east) {
    ids = await source.inBox([plan.bbox.west, plan.bbox.south, plan.bbox.east, plan.bbox.north]);
  } else {
    ids = await source.all();
    popSorted = true;
  }

  // Filters, each applied to every candidate whatever index produced it.
  const within = plan.within;
  const withinFn = within ? distTo(within.reference) : null;
  // "cities within 10 km of an airport": with fewer reference items than candidates, search
  // around each reference item once instead of around every candidate.
  let nearMap: Map<number, number> | null = null;
  if (within && Number.isFinite(within.radiusKm) && (within.reference.type === 'class' || within.reference.type === 'saved') && !geomsOf(within.reference)) {
    const ref = within.reference;
    const RL = ref.type === 'saved' ? savedRefLayer : layerOf(ref.kind);
    const pred = ref.type === 'class' ? classPredicate(ref, catalog) : undefined;
    let refCount = 0;
    if (RL) for (let r = 0; r < RL.size; r++) if (!pred || pred(r)) refCount++;
    if (RL && refCount < ids.length) {
      nearMap = new Map();
      for (let r = 0; r < RL.size; r++) {
        if (pred && !pred(r)) continue;
        const rl = RL.lon[r]!;
        const rt = RL.lat[r]!;
        for (const id of around(L.index, rl, rt, Infinity, reach(within.radiusKm))) {
          const km = distance(L.lon[id]!, L.lat[id]!, rl, rt);
          const prev = nearMap.get(id);
          if (prev === undefined || km < prev) nearMap.set(id, km);
        }
      }
    }
  }
  const distFn = distTo(reference);
  // "the 5 nearest airports to my route": distances to a line or polygon are dear, so only the
  // items that can be among the first N are measured (see nearestOf); the rest keep no distance.
  const rankIndex =
    reference && reference !== within?.reference && plan.top !== undefined && (plan.order ?? 'distance') === 'distance' ? indexOf(reference) : null;
  const h3 = h3Filter(input.h3Cells);
  const cc = (i: number) => source.country(i);
  const popFilter = source.populated;
  // What the subject's source cannot answer is refused, never dropped: dropping it would widen the answer.
  const unheld = unheldParts(plan, { label: kinds.label(subject).many, populated: popFilter, countryFigures: true, reference: !!distFn });
  // Conditions on columns ("open now", "operated by X") are tested on the columns the source holds.
  // Only when a question needs them: an upload's columns are a scan of every row.
  let held: string[] | undefined;
  const columns = () => (held ??= isUploads ? source.columns() : Object.keys(source.attributes(0)).filter((c) => c !== 'id'));
  for (const c of plan.conditions) {
    const keys = conditionKeys(c);
    if (!keys.some((k) => columns().includes(k)))
      unheld.push({ words: c.label, why: `${kinds.label(subject).many} have no ${keys.join(' or ')} column`, part: c });
  }
  if (unheld.length) throw new UnreadQuestion(refusalOfParts(plan, catalog, subject, unheld, { holds: holdsOf(subject, catalog, columns()) }));
  const cond = plan.conditions.length ? conditionTests(plan.conditions, input.now ?? new Date()) : null;
  // The subject's modifiers the question chose ("large", "capital"), as one test per item.
  const keep = K ? modifierTest(K, plan) : undefined;
  const items: Item[] = [];
  // Figures of a saved aggregate (per-country counts) stay with their items in follow-ups.
  const savedFigures = useSaved?.items.some((x) => x.a) ? new Map(useSaved.items.map((x) => [x.i, x.a])) : null;
  const popCutoff = popFilter && popSorted && plan.popMin !== undefined ? plan.popMin : undefined;
  // Largest-first ranking with a top N and nothing else reordering: the first N matches are the answer.
  const stopAt =
    popFilter && popSorted && plan.top !== undefined && plan.order === 'population_desc' ? plan.top : Infinity;
  let seen = 0;
  for (const i of ids) {
    if (work && ++seen % SLICE_STEP === 0 && work.slice.due()) await work.slice.pause();
    if (popCutoff !== undefined && !(L.pop[i]! >= popCutoff)) break;
    if (items.length >= stopAt) break;
    const lon = L.lon[i]!;
    const lat = L.lat[i]!;
    if (plan.countries.length && !plan.countries.includes(cc(i))) continue;
    if (input.areaCountry && cc(i) !== input.areaCountry) continue;
    if (keep && !keep(i)) continue;
    if (popFilter) {
      const pop = L.pop[i]!;
      if (plan.popMin !== undefined && !(pop >= plan.popMin)) continue;
      if (plan.popMax !== undefined && !(pop <= plan.popMax)) continue;
    }
    if (h3 && !h3.has(lon, lat)) continue;
    if (plan.bbox && !inBox(plan.bbox, lon, lat)) continue;
    if (input.keep && !input.keep(lon, lat)) continue;
    if (cond && !cond.pass(source.attributes(i))) continue;
    let d: number | undefined;
    if (withinFn && within) {
      const km = nearMap ? (nearMap.get(i) ?? Infinity) : withinFn(lon, lat, within.radiusKm);
      if (!(km <= within.radiusKm)) continue;
      if (!pastMin(within, km)) continue;
      if (within.reference === reference) d = km * 1000;
    }
    if (d === undefined && distFn && !rankIndex) {
      const km = distFn(lon, lat, 20_000);
      d = Number.isFinite(km) ? km * 1000 : undefined;
    }
    const item: Item = { k: subject, i };
    if (d !== undefined) item.d = d;
    const a = savedFigures?.get(i);
    if (a) item.a = a;
    items.push(item);
  }

  if (rankIndex) await measureNearest(items, plan.top!, rankIndex, L, work?.slice);

  // Order.
  let order = plan.order;
  // With something to measure from and no other order asked for, nearest first.
  if (!order && distFn) order = 'distance';
  // Items without a population figure sort last either way.
  const popOf = (x: Item, unknown: number) => {
    const p = L.pop[x.i]!;
    return Number.isNaN(p) ? unknown : p;
  };
  if (order === 'distance') sortByDistance(items);
  else if (order === 'distance_desc') {
    sortByDistance(items);
    items.reverse();
  } else if (order === 'population_desc' || order === 'population_asc') {
    if (order === 'population_desc') items.sort((a, b) => popOf(b, -1) - popOf(a, -1) || a.i - b.i);
    else items.sort((a, b) => popOf(a, Infinity) - popOf(b, Infinity) || a.i - b.i);
  } else if (K?.entry.order && !useSaved) {
    items.sort(defaultOrder(K));
  }
  if (cond) warnings.push(...cond.warnings());
  const matched = items.length;
  const top = plan.top;
  if (top !== undefined && items.length > top) items.length = top;

  // Measurement.
  let measurement: MeasurementResult | undefined;
  let aggregated = false;
  let out = items;
  const m = plan.measurement;
  const scopeCountries = input.areaCountry ? [input.areaCountry] : plan.countries;
  const wantsAggregate =
    plan.byCountry || ((m === 'per_capita' || m === 'per_area') && scopeCountries.length === 0 && subject !== catalog.countries.kind && !within);
  if (wantsAggregate && subject !== catalog.countries.kind) {
    if (!plan.byCountry) warn('reading', `${m} has no single area here; figures given per country`);
    out = aggregateByCountry(items, L, catalog, m ?? 'count');
    aggregated = true;
    measurement = { kind: m ?? 'count', value: out.length, unit: 'countries', scope: 'per country' };
  } else if (m) {
    measurement = measure(m, items.length, scopeCountries, within, catalog, warn);
  }

  return {
    subject: aggregated ? catalog.countries.kind : subject,
    items: out,
    reference,
    radiusKm: within?.radiusKm,
    matched: aggregated ? out.length : matched,
    nearestFirst: order === 'distance' && !aggregated,
    measurement,
    aggregated,
    uploads: isUploads ? uploadFeatures : input.uploads.features,
    warnings,
  };
}

/** Which items of a reference class count: its modifiers ("a large airport") and its own population filter. */
export function classPredicate(ref: Extract<Reference, { type: 'class' }>, catalog: Catalog): ((i: number) => boolean) | undefined {
  if (ref.kind === UPLOADS.name) return undefined;
  const K = catalog.kinds.get(ref.kind);
  const byModifiers = modifierTest(K, ref);
  if (!K.entry.columns.population || (ref.popMin === undefined && ref.popMax === undefined)) return byModifiers;
  const pop = K.pop;
  const lo = ref.popMin ?? -Infinity;
  const hi = ref.popMax ?? Infinity;
  const byPop = (i: number) => pop[i]! >= lo && pop[i]! <= hi;
  return byModifiers ? (i) => byModifiers(i) && byPop(i) : byPop;
}

/** The saved items as one point layer, for "near those" (uploads from their kept positions). */
async function savedAsLayer(
  saved: SavedSet,
  layerOf: (k: Kind) => Layer,
  layerFrom: (kind: Kind, points: readonly PointSource[]) => Promise<Layer> | Layer,
): Promise<Layer> {
  const points = saved.items.map((x): PointSource => {
    if (x.k === UPLOADS.name) {
      const f = saved.uploads[x.i]!;
      return { lon: f.lon, lat: f.lat, country: f.country };
    }
    const L = layerOf(x.k);
    return { lon: L.lon[x.i]!, lat: L.lat[x.i]!, country: L.country[x.i] ?? '' };
  });
  return layerFrom(saved.subject, points);
}

