import { bboxPolygon, booleanIntersects } from '@turf/turf';
import type { Catalog } from '../../catalog/catalog';
import type { Geometry } from 'geojson';
import { bboxOf, distanceToGeometry, type BBox } from '../../layers/store/geo';
import type { LayerStore } from '../../layers/store/layer-store';
import type { UploadFeature } from '../../uploads';
import { inBox } from '../bbox';
import { LAYER_ITEM, type Execution, type Item } from '../item';
import { countPerCountry, measure, type MeasurementResult } from '../measure';
import { pastMin, type Plan, type RefPoint, type Reference, type Warning } from '../plan';
import { refusalOfParts, unheldParts, UnreadQuestion } from '../refusal';
import { conditionTests, unheldConditions } from './conditions';
import { growBox as grow, referenceIndex } from './ref-index';
import { countsWholeSubject, itemCountsPerPolygon, storeCountsPerPolygon } from './per-polygon';
import { referenceGeometries, type LayerHit, type ResolveContext } from './resolve';
import { layerSource, type LayerSource } from '../sources/layer';
import type { Selection } from '../../vocabulary/vocabulary';

export { SCAN_LIMIT } from '../sources/layer';

export interface LayerExecuteInput {
  plan: Plan;
  catalog: Catalog;
  store: LayerStore;
  now: Date;
  coordinates: RefPoint[];
  uploads: readonly UploadFeature[];
  h3?: { has(lon: number, lat: number): boolean } | null;
  areaCountry?: string;
  /** Column summaries of the layers, by layer id: what a refusal says the data holds. */
  summaries?: ReadonlyMap<string, { columns: { key: string }[] }>;
  /** The subject when it is no layer selection of the plan: photos by what is seen in them (sources/detections.ts). */
  subject?: { selection: Selection; source: LayerSource };
}

type Base = Omit<Execution, 'items' | 'matched'>;

/** Reference geometries up to which each is asked of the layer's index; past it the subject is scanned. */
const PER_REFERENCE_QUERIES = 256;

/**
 * Answers a question whose subject is features of data layers: candidates from the spatial
 * index of each layer that holds the subject, then every relation and condition of the plan as
 * a test on each candidate, then order, top N, per-polygon counts and the measurement.
 */
export async function executeLayers(input: LayerExecuteInput): Promise<Execution> {
  const { plan, store } = input;
  const selection = input.subject?.selection ?? plan.layerSubject!;
  const warnings: Warning[] = [];
  const warn = (w: Warning) => warnings.push(w);
  const ctx: ResolveContext = { store, catalog: input.catalog, uploads: input.uploads, warn };
  // Said in the question's own words ("pharmacies"), not the preset's name ("Pharmacy Counter").
  const label = selection.said;
  const base: Base = { subject: LAYER_ITEM, layers: { selection, label, perPolygon: false }, nearestFirst: false, aggregated: false, uploads: [], warnings };
  warn({ code: 'reading', message: `read "${selection.said}" as ${selection.reading}` });
  const source = input.subject?.source ?? layerSource({ selection, store, catalog: input.catalog, summaries: input.summaries, warn });

  // Everything the candidates are measured or tested against, read once.
  const subjectBox = selection.sources.reduce<BBox | null>((b, s) => {
    const x = s.layer.bbox;
    if (!x) return b;
    return b ? [Math.min(b[0], x[0]), Math.min(b[1], x[1]), Math.max(b[2], x[2]), Math.max(b[3], x[3])] : [...x];
  }, null);
  const radiusM = plan.within ? plan.within.radiusKm * 1000 : undefined;
  const hint = subjectBox ? grow(subjectBox, radiusM ?? 0) : undefined;
  const geomsOf = async (ref: Reference | undefined) => (ref ? await referenceGeometries(ref, ctx, hint) : null);
  let reference: Reference | undefined = plan.within?.reference ?? plan.distanceRef;
  if (!reference && input.coordinates.length) {
    reference = { type: 'points', points: input.coordinates, label: input.coordinates.map((c) => c.label).join(', ') };
    if (!plan.within) warn({ code: 'reading', message: `distances measured from the request coordinates (${reference.label})` });
  }
  const withinGeoms = await geomsOf(plan.within?.reference);
  const refGeoms = reference === plan.within?.reference ? withinGeoms : await geomsOf(reference);
  // What layer features cannot answer is refused, never dropped: dropping it would widen the answer.
  const unheld = unheldParts(plan, { label, populated: false, countryFigures: true, reference: !!refGeoms?.length });
  unheld.push(...unheldConditions(plan.conditions, source.layerColumns(), label));
  if (unheld.length) throw new UnreadQuestion(refusalOfParts(plan, input.catalog, undefined, unheld, { holds: { subject: label, columns: source.columns() } }));
  const insideGeoms = await geomsOf(plan.inside);
  const outsideGeoms = await geomsOf(plan.outside);
  const crossGeoms = await geomsOf(plan.intersecting);
  for (const [ref, g] of [[plan.within?.reference, withinGeoms], [plan.inside, insideGeoms], [plan.outside, outsideGeoms], [plan.intersecting, crossGeoms]] as const) {
    if (ref && g && !g.length) warn({ code: 'reading', message: `"${ref.label}" matched no feature, so nothing can be related to it` });
  }

  if (plan.perRef?.type === 'selection' && !input.subject && countsWholeSubject(plan, input)) {
    return perPolygon(base, await storeCountsPerPolygon(selection, plan.perRef, ctx), plan.perRef.label, label);
  }

  // Candidates: the narrowest index question the plan allows, asked of the subject's source.
  const candidates = new Map<string, LayerHit>();
  const add = (hits: LayerHit[]) => {
    for (const h of hits) candidates.set(`${h.layer.id}/${h.f.fid}`, h);
  };
  if (plan.within && Number.isFinite(radiusM) && withinGeoms && withinGeoms.length <= PER_REFERENCE_QUERIES) {
    for (const g of withinGeoms) {
      if (g.type === 'Point') add(await source.within(g.coordinates, plan.within.radiusKm));
      else {
        const b = bboxOf(g);
        if (b) add(await source.inBox(grow(b, radiusM!), 'near the reference'));
      }
    }
  } else if (insideGeoms) {
    for (const g of insideGeoms) add(await source.intersecting(g, `in "${plan.inside!.label}"`));
  } else if (crossGeoms) {
    for (const g of crossGeoms) add(await source.intersecting(g, `crossing "${plan.intersecting!.label}"`));
  } else if (plan.bbox && plan.bbox.west <= plan.bbox.east) {
    add(await source.inBox([plan.bbox.west, plan.bbox.south, plan.bbox.east, plan.bbox.north]));
  } else if (plan.top !== undefined && plan.order === 'distance' && refGeoms?.length && refGeoms.every((g) => g.type === 'Point') && refGeoms.length <= 16 && !plan.conditions.length && !outsideGeoms) {
    // "the 3 nearest pharmacies to X": the k nearest per reference point hold the answer.
    for (const g of refGeoms) add(await source.nearest((g as { coordinates: number[] }).coordinates, plan.top));
  } else if (plan.top !== undefined && plan.order === 'distance' && refGeoms?.length && !plan.within && !plan.conditions.length && !outsideGeoms && !plan.countries.length && !input.areaCountry && !input.h3) {
    // "the 3 nearest pharmacies to my route": only what lies as near as the nearest to its vertices.
    add((await nearToGeometries(source, refGeoms, plan.top)) ?? (await source.all()));
  } else {
    add(await source.all());
  }

  // Every relation and condition, tested on every candidate whatever index produced it.
  const cond = conditionTests(plan.conditions, input.now);
  const box = plan.bbox && plan.bbox.west <= plan.bbox.east ? bboxPolygon([plan.bbox.west, plan.bbox.south, plan.bbox.east, plan.bbox.north]).geometry : null;
  const items: Item[] = [];
  const withinIndex = withinGeoms ? referenceIndex(withinGeoms) : null;
  const refIndex = refGeoms === withinGeoms ? withinIndex : refGeoms ? referenceIndex(refGeoms) : null;
  for (const hit of candidates.values()) {
    const g = hit.f.geometry;
    if (plan.countries.length || input.areaCountry || input.h3 || (plan.bbox && !box)) {
      const [lon, lat] = source.position(hit) as [number, number];
      if (plan.countries.length || input.areaCountry) {
        const cc = source.country(hit);
        if (plan.countries.length && !plan.countries.includes(cc)) continue;
        if (input.areaCountry && cc !== input.areaCountry) continue;
      }
      if (input.h3 && !input.h3.has(lon, lat)) continue;
      if (plan.bbox && !box && !inBox(plan.bbox, lon, lat)) continue;
    }
    if (box && !booleanIntersects(box, g)) continue;
    if (insideGeoms && !insideGeoms.some((p) => booleanIntersects(p, g))) continue;
    if (crossGeoms && !crossGeoms.some((p) => booleanIntersects(p, g))) continue;
    if (outsideGeoms && outsideGeoms.some((p) => booleanIntersects(p, g))) continue;
    let d: number | undefined;
    if (withinIndex && plan.within) {
      d = Number.isFinite(radiusM) ? withinIndex.within(g, radiusM!) : withinIndex.nearest(g);
      if (!(d <= radiusM!)) continue;
      if (!pastMin(plan.within, d / 1000)) continue;
    }
    if (!cond.pass(source.attributes(hit))) continue;
    if (refIndex && reference !== plan.within?.reference) d = refIndex.nearest(g);
    items.push(d === undefined ? { k: LAYER_ITEM, i: hit.f.fid, hit } : { k: LAYER_ITEM, i: hit.f.fid, hit, d });
  }
  warnings.push(...cond.warnings());

  const order = plan.order;
  const nearestFirst = !!refGeoms?.length;
  const farthestFirst = nearestFirst && order === 'distance_desc';
  const nameOf = (x: Item) => String(x.hit!.f.tags['name'] ?? '');
  const byD = (a: Item, b: Item) => (nearestFirst ? (farthestFirst ? b.d! - a.d! : a.d! - b.d!) : 0);
  items.sort((a, b) => byD(a, b) || nameOf(a).localeCompare(nameOf(b)) || a.hit!.layer.id.localeCompare(b.hit!.layer.id) || a.i - b.i);
  const matched = items.length;
  if (plan.top !== undefined && items.length > plan.top) items.length = plan.top;

  if (plan.perRef?.type === 'selection') return perPolygon(base, await itemCountsPerPolygon(items, plan.perRef, ctx), plan.perRef.label, label);
  if (plan.perRef) return perPolygon(base, [], plan.perRef.label, label);
  // Figures per country, as for kinds: each feature's country from the source.
  const m = plan.measurement;
  const scopeCountries = input.areaCountry ? [input.areaCountry] : plan.countries;
  if (plan.byCountry || ((m === 'per_capita' || m === 'per_area') && !scopeCountries.length && !plan.within)) {
    if (!plan.byCountry) warn({ code: 'reading', message: `${m} has no single area here; figures given per country` });
    const countries = countPerCountry(items.map((x) => source.country(x.hit!)), input.catalog, m ?? 'count');
    return { ...base, subject: input.catalog.countries.kind, items: countries, matched: countries.length, aggregated: true, measurement: { kind: m ?? 'count', value: countries.length, unit: 'countries', scope: 'per country' } };
  }
  const measurement: MeasurementResult | undefined =
    m === 'count'
      ? { kind: 'count', value: matched, unit: label, scope: '' }
      : m
        ? measure(m, matched, scopeCountries, plan.within, input.catalog, (code, message) => warn({ code, message }))
        : undefined;
  return { ...base, items, matched, reference: refGeoms?.length ? reference : undefined, radiusKm: plan.within?.radiusKm, nearestFirst: nearestFirst && !farthestFirst, measurement };
}

/** Reference vertices asked for their nearest features, and boxes the reference is searched in. */
const SAMPLED_VERTICES = 64;
const REFERENCE_BOXES = 32;

/**
 * Candidates for the `top` features nearest a line or polygon (null when the layers hold fewer).
 * Each sampled vertex lies on the reference, so a feature's distance to it bounds the feature's
 * distance to the reference: the top-th least of those bounds the answer, and only features that
 * near the reference's pieces are read.
 */
async function nearToGeometries(source: LayerSource, geoms: Geometry[], top: number): Promise<LayerHit[] | null> {
  const upper = new Map<string, number>();
  for (const v of referenceIndex(geoms).vertices(SAMPLED_VERTICES)) {
    for (const h of await source.nearest(v, top)) {
      const key = `${h.layer.id}/${h.f.fid}`;
      upper.set(key, Math.min(upper.get(key) ?? Infinity, distanceToGeometry(v, h.f.geometry)));
    }
  }
  const bounds = [...upper.values()].sort((a, b) => a - b);
  if (bounds.length < top) return null;
  const bound = bounds[top - 1]! * 1.001 + 1;
  const out: LayerHit[] = [];
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

/** "X per district": the polygons with their counts, most first, and the total as the measurement. */
function perPolygon(base: Base, per: Item[], perLabel: string, label: string): Execution {
  per.sort((a, b) => b.count! - a.count! || String(a.hit!.f.tags['name'] ?? '').localeCompare(String(b.hit!.f.tags['name'] ?? '')));
  const total = per.reduce((n, p) => n + p.count!, 0);
  return { ...base, layers: { ...base.layers!, perPolygon: true }, items: per, matched: per.length, measurement: { kind: 'count', value: total, unit: label, scope: `per ${perLabel}` } };
}
