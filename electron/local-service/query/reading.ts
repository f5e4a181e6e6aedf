import type { Catalog } from '../catalog/catalog';
import { formatInt } from '../catalog/format';
import { UPLOADS } from '../catalog/kinds/uploads';
import { boxText } from './bbox';
import { modifierValue, type Plan, type Reference, type Within } from './plan';
import type { ReferenceLine } from './reference-line';
import type { PlanPart } from './refusal';
import { radiusText } from './units';

/**
 * How a question was read, step by step: what the answer shows as one line ("airports · within
 * 60 nmi (111 km) of Athens, Greece · nearest first") and the warnings carry as structure.
 */
export interface Reading {
  subject: string;
  source: string;
  filters: string[];
  relations: { relation: string; reference: string; min_km?: number; max_km?: number; said?: string; line?: ReferenceLine['line'] }[];
  order?: string;
  top?: number;
  measurement?: string;
  text: string;
}

const ORDER_TEXT: Record<NonNullable<Plan['order']>, string> = {
  distance: 'nearest first',
  distance_desc: 'farthest first',
  population_desc: 'largest first',
  population_asc: 'smallest first',
};

/** The distance relation in words, in the unit asked: "within 60 nmi (111 km)", "between 1 and 2 km", "more than 100 km". */
export function withinText(w: Within): string {
  const hi = Number.isFinite(w.radiusKm) ? radiusText(w.radiusKm, w.said) : null;
  if (w.minKm === undefined) return `within ${hi}`;
  const lo = radiusText(w.minKm, w.saidMin);
  if (hi === null) return `${w.minInclusive ? 'at least' : 'more than'} ${lo}`;
  return `between ${lo} and ${hi}`;
}

/** The reading of a plan; `subject` overrides the plan's own (the saved set's, the fallback's). */
export function readingOf(plan: Plan, catalog: Catalog, subject?: string | null): Reading {
  return readingSteps(plan, catalog, subject).reading;
}

/**
 * The reading of a plan, and the step of the reading that holds a part of the plan, named as the
 * chips name steps ("subject", "filter:1", "relation:0", "order", "measurement"): a refusal says
 * which steps hold what was not read, so the rest is asked without exactly those.
 */
export function readingSteps(plan: Plan, catalog: Catalog, subject?: string | null): { reading: Reading; stepOf: (part: PlanPart) => string | undefined } {
  const kind = subject !== undefined ? subject : plan.subject;
  let subjectText: string;
  let source: string;
  if (plan.seen) {
    subjectText = plan.seen.said;
    source = 'photos, by what the detector saw in them';
  } else if (plan.layerSubject) {
    subjectText = plan.layerSubject.said;
    source = plan.layerSubject.sources.length ? plan.layerSubject.sources.map((s) => `layer "${s.layer.name}"`).join(', ') : 'no layer';
  } else if (kind === UPLOADS.name) {
    subjectText = UPLOADS.label.many;
    source = 'the uploaded files';
  } else if (kind) {
    const K = catalog.kinds.get(kind);
    // Each modifier in its own words from the entry: its adjective ("large"), or the noun that sets
    // it used before the kind's noun ("capital cities"), so the reading reads back as itself.
    const mods = (K.entry.modifiers ?? []).flatMap((m) => {
      const v = modifierValue(plan, m.key);
      if (v === undefined) return [];
      const label = m.words?.find((x) => x.value === v)?.label ?? K.entry.nouns.find((n) => n.sets?.[m.key] === v)?.one[0];
      return [label ?? `${m.key}: ${v}`];
    });
    subjectText = [...mods, K.entry.label.many].join(' ');
    source = K.entry.source.name;
  } else {
    subjectText = '(no subject)';
    source = '';
  }
  const filters: string[] = [];
  if (plan.countries.length)
    filters.push(`in ${plan.countries.map((c) => catalog.countries.rows[catalog.countryByCode.get(c) ?? -1]?.name ?? c).join(' or ')}`);
  if (plan.bbox) filters.push(`in ${boxText(plan.bbox)}`);
  if (plan.popMin !== undefined && plan.popMax !== undefined) filters.push(`population ${formatInt(plan.popMin)} to ${formatInt(plan.popMax)}`);
  else if (plan.popMin !== undefined) filters.push(`population over ${formatInt(plan.popMin)}`);
  else if (plan.popMax !== undefined) filters.push(`population under ${formatInt(plan.popMax)}`);
  const steps = new Map<PlanPart, string>([['subject', 'subject']]);
  if (plan.popMin !== undefined || plan.popMax !== undefined) steps.set('population', `filter:${filters.length - 1}`);
  for (const c of plan.conditions) steps.set(c, `filter:${filters.push(c.label) - 1}`);
  const relations: Reading['relations'] = [];
  const relate = (reference: Reference, r: Reading['relations'][number]) => {
    if (!steps.has(reference)) steps.set(reference, `relation:${relations.length}`);
    relations.push(r);
  };
  if (plan.within) {
    const w = plan.within;
    const r: Reading['relations'][number] = { relation: withinText(w), reference: w.reference.label };
    if (Number.isFinite(w.radiusKm)) r.max_km = w.radiusKm;
    if (w.minKm !== undefined) r.min_km = w.minKm;
    if (w.said) r.said = `${w.said.value} ${w.said.unit}`;
    relate(w.reference, r);
  }
  if (plan.inside) relate(plan.inside, { relation: 'inside', reference: plan.inside.label });
  if (plan.outside) relate(plan.outside, { relation: 'outside', reference: plan.outside.label });
  if (plan.intersecting) relate(plan.intersecting, { relation: 'intersecting', reference: plan.intersecting.label });
  if (plan.distanceRef && plan.distanceRef !== plan.within?.reference)
    relate(plan.distanceRef, { relation: 'distance to', reference: plan.distanceRef.label });
  const order = !plan.order
    ? undefined
    : plan.orderBy && (plan.order === 'population_desc' || plan.order === 'population_asc')
      ? `${plan.order === 'population_desc' ? 'largest' : 'smallest'} ${plan.orderBy.label} first`
      : ORDER_TEXT[plan.order];
  const measurement = plan.byCountry ? `${plan.measurement ?? 'count'} per country` : plan.perRef ? `count per ${plan.perRef.label}` : plan.measurement;
  if (order) steps.set('order', 'order');
  if (measurement) {
    steps.set('measurement', 'measurement');
    if (plan.perRef) steps.set(plan.perRef, 'measurement');
  }
  const line = [
    subjectText,
    ...filters,
    ...relations.map((r) => `${r.relation}${/^(within|between|more|at least)/.test(r.relation) ? ' of' : ''} ${r.reference}`),
    ...(order ? [order] : []),
    ...(plan.top !== undefined ? [`first ${plan.top}`] : []),
    ...(measurement ? [measurement.replace('_', ' ')] : []),
  ];
  const out: Reading = { subject: subjectText, source, filters, relations, text: line.join(' · ') };
  if (order) out.order = order;
  if (plan.top !== undefined) out.top = plan.top;
  if (measurement) out.measurement = measurement;
  return { reading: out, stepOf: (part) => steps.get(part) };
}
