import { around, distance } from 'geokdbush';
import { cellToBoundary, getResolution, latLngToCell } from 'h3-js';
import { pointLayer, pointLayerOf, type Catalog, type Kind, type Layer, type PointSource } from '../catalog/catalog';
import type { PointIndexer } from '../catalog/index-worker';
import type { Slicer, UploadFeature } from '../uploads';
import { inBox } from './bbox';
import type { Measurement, Plan, RefPoint, Reference, Warning } from './plan';

/** One result: an item of a layer, its distance to the reference and any computed figures. */
export interface Item {
  k: Kind;
  i: number;
  /** Distance to the reference in meters, when there is one. */
  d?: number;
  /** Figures of an aggregate (per-country counts). */
  a?: Record<string, number | null>;
}

/** A saved result set: what `search_id` continues. */
export interface SavedSet {
  subject: Kind;
  items: Item[];
  uploads: UploadFeature[];
}

export interface ExecuteInput {
  plan: Plan;
  catalog: Catalog;
  uploads: { features: UploadFeature[]; layer: Layer };
  /** Request coordinates that the question did not name. */
  coordinates: RefPoint[];
  h3Cells: string[];
  areaCountry?: string;
  saved?: SavedSet;
  /**
   * Where long work goes: loops over many candidates pause between slices, large layers are
   * indexed by the worker. Without it everything runs at once (small sets, tests).
   */
  work?: { slice: Slicer; indexer: PointIndexer };
}

export interface MeasurementResult {
  kind: Measurement;
  value: number | null;
  unit: string;
  scope: string;
}

export interface Execution {
  subject: Kind;
  items: Item[];
  /** Reference used for distances, if any. */
  reference?: Reference;
  radiusKm?: number;
  /** Whether the items are ranked nearest first. */
  nearestFirst: boolean;
  /** Matches before a top N cut them ("the nearest of 5,210 airports"). */
  matched: number;
  measurement?: MeasurementResult;
  aggregated: boolean;
  /** The uploaded features that upload items index into. */
  uploads: UploadFeature[];
  warnings: Warning[];
}

export const PER_CAPITA_UNIT = 1e6;
export const PER_AREA_UNIT_KM2 = 1e4;

/** Candidates filtered between two looks at the slicer's clock. */
const SLICE_STEP = 1024;

export async function execute(input: ExecuteInput): Promise<Execution> {
  const { plan, catalog, saved, work } = input;
  const layerFrom = (kind: Kind, points: readonly PointSource[]): Promise<Layer> | Layer =>
    work ? pointLayerOf(kind, points, work) : pointLayer(kind, points.map((p) => p.lon), points.map((p) => p.lat), points.map((p) => p.country));
  const warnings: Warning[] = [];
  const warn = (code: string, message: string) => warnings.push({ code, message });

  let subject: Kind | null = plan.subject;
  if (saved && (subject === null || subject === saved.subject)) subject = saved.subject;
  else if (saved && subject !== saved.subject)
    warn('context', `the earlier results are ${saved.subject}s; this question asks for ${subject}s, so it searched anew`);
  const useSaved = saved && subject === saved.subject ? saved : undefined;
  if (subject === null) {
    subject = input.uploads.features.length ? 'upload' : 'city';
    warn('reading', `no subject named; searched ${subject === 'upload' ? 'the uploaded features' : 'cities'}`);
  }
  if (subject === 'upload' && !useSaved && !input.uploads.features.length)
    warn('no_uploads', 'the question is about uploaded features but no files were sent');

  const layerOf = (k: Kind): Layer =>
    k === 'city' ? catalog.cities : k === 'airport' ? catalog.airports : k === 'country' ? catalog.countries : uploadsLayer;
  const savedUploads = useSaved?.uploads ?? [];
  const uploadFeatures = useSaved ? savedUploads : input.uploads.features;
  // Saved uploads are read back without a layer: theirs is built here.
  const uploadsLayer = useSaved && savedUploads.length ? await layerFrom('upload', savedUploads) : input.uploads.layer;
  const L = layerOf(subject);

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
  const distTo = (ref: Reference | undefined): ((lon: number, lat: number, maxKm: number) => number) | null => {
    if (!ref) return null;
    if (ref.type === 'points')
      return (lon, lat) => {
        let best = Infinity;
        for (const p of ref.points) best = Math.min(best, distance(lon, lat, p.lon, p.lat));
        return best;
      };
    const RL = ref.type === 'saved' ? savedRefLayer : layerOf(ref.kind);
    if (!RL) return null;
    const pred = ref.type === 'class' ? classPredicate(ref, catalog) : undefined;
    return (lon, lat, maxKm) => {
      const hit = around(RL.index, lon, lat, 1, maxKm, pred);
      return hit.length ? distance(lon, lat, RL.lon[hit[0]!]!, RL.lat[hit[0]!]!) : Infinity;
    };
  };

  // Candidates: the saved set, or the cheapest index for the constraints.
  let ids: number[];
  // Whether ids come largest population first, which lets population filters stop early.
  let popSorted = false;
  // A place the question named and the catalog does not know: nothing, never everything.
  if (plan.unread.length) ids = [];
  else if (useSaved) ids = useSaved.items.filter((x) => x.k === subject).map((x) => x.i);
  else if (subject === 'upload') ids = uploadFeatures.map((_, i) => i);
  else if (plan.countries.length || input.areaCountry) {
    const codes = input.areaCountry ? [input.areaCountry] : plan.countries;
    ids = codes.length === 1 ? (L.byCountry.get(codes[0]!) ?? []) : codes.flatMap((c) => L.byCountry.get(c) ?? []);
    popSorted = codes.length === 1;
  } else if (plan.within?.reference.type === 'points') {
    const set = new Set<number>();
    for (const p of plan.within.reference.points)
      for (const id of around(L.index, p.lon, p.lat, Infinity, plan.within.radiusKm)) set.add(id);
    ids = [...set];
  } else if (plan.bbox && plan.bbox.west <= plan.bbox.east) {
    ids = L.index.range(plan.bbox.west, plan.bbox.south, plan.bbox.east, plan.bbox.north);
  } else {
    ids = L.byPopulation as unknown as number[];
    popSorted = true;
  }

  // Filters, each applied to every candidate whatever index produced it.
  const within = plan.within;
  const withinFn = within ? distTo(within.reference) : null;
  // "cities within 10 km of an airport": with fewer reference items than candidates, search
  // around each reference item once instead of around every candidate.
  let nearMap: Map<number, number> | null = null;
  if (within && within.reference.type !== 'points') {
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
        for (const id of around(L.index, rl, rt, Infinity, within.radiusKm)) {
          const km = distance(L.lon[id]!, L.lat[id]!, rl, rt);
          const prev = nearMap.get(id);
          if (prev === undefined || km < prev) nearMap.set(id, km);
        }
      }
    }
  }
  const distFn = distTo(reference);
  const h3 = h3Filter(input.h3Cells);
  const cc = (i: number) => L.country[i] ?? '';
  if (plan.popMin !== undefined || plan.popMax !== undefined) {
    if (subject === 'airport' || subject === 'upload')
      warn('ignored', `population filters apply to cities and countries; ignored for ${subject}s`);
  }
  const popFilter = subject === 'city' || subject === 'country';
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
    if (subject === 'airport' && plan.large !== undefined && (catalog.airports.cols.large[i] === 1) !== plan.large) continue;
    if (subject === 'city' && plan.capital && catalog.cities.cols.code[i] !== 'PPLC') continue;
    if (popFilter) {
      const pop = L.pop[i]!;
      if (plan.popMin !== undefined && !(pop >= plan.popMin)) continue;
      if (plan.popMax !== undefined && !(pop <= plan.popMax)) continue;
    }
    if (h3 && !h3.has(lon, lat)) continue;
    if (plan.bbox && !inBox(plan.bbox, lon, lat)) continue;
    let d: number | undefined;
    if (withinFn && within) {
      const km = nearMap ? (nearMap.get(i) ?? Infinity) : withinFn(lon, lat, within.radiusKm);
      if (!(km <= within.radiusKm)) continue;
      if (within.reference === reference) d = km * 1000;
    }
    if (d === undefined && distFn) {
      const km = distFn(lon, lat, 20_000);
      d = Number.isFinite(km) ? km * 1000 : undefined;
    }
    const item: Item = { k: subject, i };
    if (d !== undefined) item.d = d;
    const a = savedFigures?.get(i);
    if (a) item.a = a;
    items.push(item);
  }

  // Order.
  let order = plan.order;
  if (order === 'distance' && !distFn) {
    warn('reading', '"nearest" needs a place to measure from; ordered by population instead');
    order = 'population_desc';
  }
  // With something to measure from and no other order asked for, nearest first.
  if (!order && distFn) order = 'distance';
  // Items without a population figure sort last either way.
  const popOf = (x: Item, unknown: number) => {
    const p = L.pop[x.i]!;
    return Number.isNaN(p) ? unknown : p;
  };
  if (order === 'distance') sortByDistance(items);
  else if (order === 'population_desc' || order === 'population_asc') {
    if (!popFilter) warn('ignored', `population order applies to cities and countries; ${subject}s kept in their order`);
    else if (order === 'population_desc') items.sort((a, b) => popOf(b, -1) - popOf(a, -1) || a.i - b.i);
    else items.sort((a, b) => popOf(a, Infinity) - popOf(b, Infinity) || a.i - b.i);
  } else if (subject === 'airport' && !useSaved) {
    const cols = catalog.airports.cols;
    items.sort((a, b) => cols.large[b.i]! - cols.large[a.i]! || (cols.name[a.i]! < cols.name[b.i]! ? -1 : 1));
  }
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
    plan.byCountry || ((m === 'per_capita' || m === 'per_area') && scopeCountries.length === 0 && subject !== 'country' && !within);
  if (wantsAggregate && subject !== 'country') {
    if (!plan.byCountry) warn('reading', `${m} has no single area here; figures given per country`);
    out = aggregateByCountry(items, L, catalog, m ?? 'count');
    aggregated = true;
    measurement = { kind: m ?? 'count', value: out.length, unit: 'countries', scope: 'per country' };
  } else if (m) {
    measurement = measure(m, items.length, scopeCountries, within, catalog, warn);
  }

  return {
    subject: aggregated ? 'country' : subject,
    items: out,
    reference,
    radiusKm: within?.radiusKm,
    matched: aggregated ? out.length : matched,
    nearestFirst: order === 'distance' && !aggregated,
    measurement,
    aggregated,
    uploads: subject === 'upload' ? uploadFeatures : input.uploads.features,
    warnings,
  };
}

/** Millimetres up to 2^35 (34,000 km) cover every great-circle distance. */
const MM_BITS = 35;
const byDistance = (a: Item, b: Item) => (a.d ?? Infinity) - (b.d ?? Infinity) || a.i - b.i;

/**
 * Nearest first, ties by item number. Large sets sort one packed number per item (distance in
 * steps of 1 mm, or coarser when item numbers need more than 18 of the 53 bits, times 2^bits
 * plus the item number) with the native numeric sort, several times faster than a comparator
 * over objects; one insertion pass then orders the items that share a step exactly.
 */
export function sortByDistance(items: Item[]): void {
  const n = items.length;
  let maxI = 0;
  for (let j = 0; j < n; j++) if (items[j]!.i > maxI) maxI = items[j]!.i;
  const iBits = Math.max(18, Math.ceil(Math.log2(maxI + 1)));
  if (n < 2000 || iBits > 24) {
    items.sort(byDistance);
    return;
  }
  const scale = 2 ** iBits;
  const stepMm = 2 ** Math.max(0, MM_BITS - (53 - iBits));
  const maxStep = 2 ** (53 - iBits) - 1;
  const keys = new Float64Array(n);
  const at = new Int32Array(maxI + 1);
  for (let j = 0; j < n; j++) {
    const x = items[j]!;
    const step = x.d === undefined ? maxStep : Math.min(maxStep, Math.floor((x.d * 1000) / stepMm));
    keys[j] = step * scale + x.i;
    at[x.i] = j;
  }
  keys.sort();
  const copy = items.slice();
  for (let j = 0; j < n; j++) items[j] = copy[at[keys[j]! % scale]!]!;
  // Within one step the packed order is by item number; the exact distances decide.
  for (let j = 1; j < n; j++) {
    const x = items[j]!;
    let k = j - 1;
    if (byDistance(items[k]!, x) <= 0) continue;
    while (k >= 0 && byDistance(items[k]!, x) > 0) {
      items[k + 1] = items[k]!;
      k--;
    }
    items[k + 1] = x;
  }
}

/** Which items of a reference class count: size, capitals and the class's own population filter. */
function classPredicate(ref: Extract<Reference, { type: 'class' }>, catalog: Catalog): ((i: number) => boolean) | undefined {
  const tests: ((i: number) => boolean)[] = [];
  if (ref.kind === 'airport' && ref.large !== undefined) {
    const want = ref.large ? 1 : 0;
    tests.push((i) => catalog.airports.cols.large[i] === want);
  }
  if (ref.kind === 'city' && ref.capital) tests.push((i) => catalog.cities.cols.code[i] === 'PPLC');
  if ((ref.kind === 'city' || ref.kind === 'country') && (ref.popMin !== undefined || ref.popMax !== undefined)) {
    const pop = (ref.kind === 'city' ? catalog.cities : catalog.countries).pop;
    const lo = ref.popMin ?? -Infinity;
    const hi = ref.popMax ?? Infinity;
    tests.push((i) => pop[i]! >= lo && pop[i]! <= hi);
  }
  if (!tests.length) return undefined;
  return tests.length === 1 ? tests[0] : (i) => tests.every((f) => f(i));
}

/** The saved items as one point layer, for "near those" (uploads from their kept positions). */
async function savedAsLayer(
  saved: SavedSet,
  layerOf: (k: Kind) => Layer,
  layerFrom: (kind: Kind, points: readonly PointSource[]) => Promise<Layer> | Layer,
): Promise<Layer> {
  const points = saved.items.map((x): PointSource => {
    if (x.k === 'upload') {
      const f = saved.uploads[x.i]!;
      return { lon: f.lon, lat: f.lat, country: f.country };
    }
    const L = layerOf(x.k);
    return { lon: L.lon[x.i]!, lat: L.lat[x.i]!, country: L.country[x.i] ?? '' };
  });
  return layerFrom(saved.subject, points);
}

/** H3 restriction: a point passes when its cell at a given cell's resolution is that cell. */
function h3Filter(cells: string[]): { has(lon: number, lat: number): boolean } | null {
  if (!cells.length) return null;
  const byRes = new Map<number, Set<string>>();
  let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
  for (const c of cells) {
    const r = getResolution(c);
    let s = byRes.get(r);
    if (!s) byRes.set(r, (s = new Set()));
    s.add(c);
    for (const [lat, lon] of cellToBoundary(c)) {
      x0 = Math.min(x0, lon!);
      x1 = Math.max(x1, lon!);
      y0 = Math.min(y0, lat!);
      y1 = Math.max(y1, lat!);
    }
  }
  // A bounding box prefilter skips the cell computation for most points (not across the antimeridian).
  const boxed = x1 - x0 < 180;
  return {
    has(lon, lat) {
      if (boxed && (lon < x0 - 0.01 || lon > x1 + 0.01 || lat < y0 - 0.01 || lat > y1 + 0.01)) return false;
      for (const [r, s] of byRes) if (s.has(latLngToCell(lat, lon, r))) return true;
      return false;
    },
  };
}

function countryFigures(catalog: Catalog, cca2: string) {
  const ci = catalog.countryByCode.get(cca2);
  const row = ci !== undefined ? catalog.countries.rows[ci] : undefined;
  return { ci, population: row?.population ?? null, area: row?.area ?? null, name: row?.name ?? cca2 };
}

function ratio(count: number, denom: number | null, unit: number): number | null {
  return denom && denom > 0 ? Math.round((count / denom) * unit * 1000) / 1000 : null;
}

function aggregateByCountry(items: Item[], L: Layer, catalog: Catalog, m: Measurement): Item[] {
  const counts = new Map<string, number>();
  for (const x of items) {
    const c = L.country[x.i] ?? '';
    counts.set(c, (counts.get(c) ?? 0) + 1);
  }
  const out: Item[] = [];
  for (const [cca2, count] of counts) {
    const f = countryFigures(catalog, cca2);
    if (f.ci === undefined) continue;
    out.push({
      k: 'country',
      i: f.ci,
      a: {
        count,
        population: f.population,
        area_km2: f.area,
        per_capita: ratio(count, f.population, PER_CAPITA_UNIT),
        per_area: ratio(count, f.area, PER_AREA_UNIT_KM2),
      },
    });
  }
  const key = (x: Item) => x.a?.[m] ?? -1;
  out.sort((a, b) => key(b)! - key(a)! || a.i - b.i);
  return out;
}

function measure(
  m: Measurement,
  count: number,
  countries: string[],
  within: Plan['within'],
  catalog: Catalog,
  warn: (code: string, message: string) => void,
): MeasurementResult {
  if (m === 'count') return { kind: m, value: count, unit: 'features', scope: 'all matches' };
  const figs = countries.map((c) => countryFigures(catalog, c));
  const scope = figs.map((f) => f.name).join(', ');
  if (m === 'per_capita') {
    const pop = figs.length && figs.every((f) => f.population) ? figs.reduce((s, f) => s + f.population!, 0) : null;
    if (pop === null) warn('measurement', 'per_capita needs the population of a country; none known here');
    return { kind: m, value: ratio(count, pop, PER_CAPITA_UNIT), unit: 'per million people', scope };
  }
  let area: number | null = figs.length && figs.every((f) => f.area) ? figs.reduce((s, f) => s + f.area!, 0) : null;
  let areaScope = scope;
  if (area === null && within && within.reference.type === 'points' && within.reference.points.length === 1) {
    area = Math.PI * within.radiusKm ** 2;
    areaScope = `${within.radiusKm} km around ${within.reference.label}`;
  }
  if (area === null) warn('measurement', 'per_area needs a country or a radius around one place; none here');
  return { kind: m, value: ratio(count, area, PER_AREA_UNIT_KM2), unit: 'per 10,000 km²', scope: areaScope };
}

