import type { Catalog, Kind } from '../catalog/catalog';
import type { KindEntry } from '../catalog/kinds/entry';
import { UPLOADS } from '../catalog/kinds/uploads';
import type { Condition, Plan, Reference } from './plan';
import { readingSteps, type Reading } from './reading';

/** A part of a plan that words were read into: the subject, a filter, a reference, the order, the figure asked. */
export type PlanPart = 'subject' | 'population' | 'order' | 'measurement' | Reference | Condition;

/** A part of a question that no rule could use, with why; `part` when the plan holds it all the same (a place it did not find). */
export interface UnreadPart {
  words: string;
  why: string;
  part?: PlanPart;
  /** The words were read; the request lacks what they need (no misspelling to look for in them). */
  understood?: true;
}

/** An unread part as a refusal says it: with the step of the reading that holds it, when one does. */
export interface RefusedPart {
  words: string;
  why: string;
  /** The reading's step, named as chips are ("subject", "filter:0", "relation:1", "order", "measurement"). */
  step?: string;
}

/** What the source a question asked about holds: the subject's label and its columns. */
export interface Holds {
  subject: string;
  columns: string[];
}

/**
 * A question not answered because part of it was not read. Answering the rest would broaden the
 * answer (every airport of a country for "airports with runways over 3,000 m"), so the route
 * answers 422 problem+json naming the unread parts, what the data holds and the partial reading.
 */
export interface Refusal {
  unread: RefusedPart[];
  /** How the question was read, unread steps included (`unread[].step` names them). */
  reading: Reading;
  holds?: Holds;
  /** Names of the data layers there are (when the subject itself was not read). */
  layers?: string[];
  /** The built-in subjects, in words (when the subject itself was not read). */
  builtIn?: string;
}

/** Thrown by the executor when the plan asks for something its source does not hold; the route answers 422. */
export class UnreadQuestion extends Error {
  constructor(readonly refusal: Refusal) {
    super(refusalText(refusal));
    this.name = 'UnreadQuestion';
  }
}

/** Problem code of a question that was not read in full. */
export const UNREAD_CODE = 'unread_question';

/** A refusal of a plan: its unread parts with the steps of its reading that hold them, and what the data holds. */
export function refusalOfParts(
  plan: Plan,
  catalog: Catalog,
  subject: string | null | undefined,
  unread: readonly UnreadPart[],
  holds: Pick<Refusal, 'holds' | 'layers' | 'builtIn'>,
): Refusal {
  const { reading, stepOf } = readingSteps(plan, catalog, subject);
  const parts = unread.map(({ words, why, part }): RefusedPart => {
    const step = part === undefined ? undefined : stepOf(part);
    return step ? { words, why, step } : { words, why };
  });
  return { unread: parts, reading, ...holds };
}

/**
 * The members of a 422 problem+json: `reading` in one line, and `plan`, the reading in the shape
 * of an answer's `plan` warning (`shared/service/reading.ts`).
 */
export function refusalProblem(r: Refusal): Record<string, unknown> {
  const { reading, ...rest } = r;
  return { code: UNREAD_CODE, ...rest, reading: reading.text, plan: reading };
}

/** The columns a kind holds, as people name them: name, properties, address parts, modifiers. */
export function kindHolds(entry: KindEntry): Holds {
  const cols = new Set<string>(['name']);
  if (entry.columns.population) cols.add('population');
  for (const p of entry.properties) cols.add(p.name);
  for (const a of entry.address) cols.add(a);
  for (const m of entry.modifiers ?? []) {
    const words = (m.words ?? []).map((x) => x.label);
    const name = m.topic ?? m.key;
    cols.delete(name);
    cols.add(words.length ? `${name} (${words.join(', ')})` : name);
  }
  return { subject: entry.label.many, columns: [...cols] };
}

/** What the subject of a plan holds, when one is known: a kind's columns, or the uploads' attribute columns. */
export function holdsOf(subject: Kind | null, catalog: Catalog, uploadColumns: string[]): Holds | undefined {
  if (subject === null) return undefined;
  if (subject === UPLOADS.name) return { subject: UPLOADS.label.many, columns: ['name', ...uploadColumns.filter((c) => c !== 'name')] };
  return kindHolds(catalog.kinds.get(subject).entry);
}

/** One paragraph for problem+json `detail`: what was not read, what the data holds, and the reading of the rest. */
export function refusalText(r: Refusal): string {
  const parts = r.unread.map((u) => `"${u.words}" (${u.why})`);
  const out = [`The question was not answered: part of it could not be read: ${parts.join('; ')}.`];
  if (r.holds) out.push(`${capital(r.holds.subject)} have: ${r.holds.columns.join(', ')}.`);
  if (r.builtIn) out.push(`Built in: ${r.builtIn}.`);
  if (r.layers) out.push(`Layers: ${r.layers.length ? r.layers.join(', ') : 'none'}.`);
  out.push(`Read so far: ${r.reading.text}.`);
  return out.join(' ');
}

const capital = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** What the subject's source can answer besides plain features. */
export interface SourceAbilities {
  /** The subject's label ("airports", "pharmacies"). */
  label: string;
  populated: boolean;
  /** Figures per country and per capita / per area. */
  countryFigures: boolean;
  /** Whether distances have something to be measured from. */
  reference: boolean;
}

/**
 * Parts of a plan that the subject's source cannot answer: a population on features without one,
 * "nearest" with nothing to measure from, figures per country of a source without them.
 */
export function unheldParts(plan: Plan, s: SourceAbilities): UnreadPart[] {
  const out: UnreadPart[] = [];
  if ((plan.popMin !== undefined || plan.popMax !== undefined) && !s.populated)
    out.push({ words: 'population filter', why: `${s.label} have no population data`, part: 'population' });
  if ((plan.order === 'population_desc' || plan.order === 'population_asc') && !s.populated && !plan.orderBy)
    out.push({ words: plan.order === 'population_desc' ? 'largest' : 'smallest', why: `${s.label} have no population data to rank by`, part: 'order' });
  if ((plan.order === 'distance' || plan.order === 'distance_desc') && !s.reference)
    out.push({ words: plan.order === 'distance' ? 'nearest' : 'farthest', why: 'needs a place or position to measure from', part: 'order' });
  if (!s.countryFigures && plan.byCountry) out.push({ words: 'per country', why: `figures per country are not computed for ${s.label}`, part: 'measurement' });
  if (!s.countryFigures && (plan.measurement === 'per_capita' || plan.measurement === 'per_area'))
    out.push({ words: plan.measurement.replace('_', ' '), why: `${plan.measurement.replace('_', ' ')} is not computed for ${s.label}`, part: 'measurement' });
  return out;
}
