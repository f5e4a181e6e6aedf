import type { Geometry } from 'geojson';
import OpeningHours from 'opening_hours';
import { distanceTo } from '../town/distance';
import type { TownFeature } from '../town/town';
import { judge, type Expected, type Verdict } from './corpus';

/**
 * Town-layer plans of the paraphrase corpus: subjects of the town's OSM layer, distances to its
 * named features or to a typed position, rings, "beyond", nearest and farthest N, and tag
 * conditions, each written in several wordings; the answer is computed here by brute force
 * over the generator's features (turf), never by the engine.
 */

export interface TownPlan {
  subject: { tag: [string, string]; nouns: string[] };
  /** What distances are measured to: a named feature's geometry, or a typed position. */
  ref?: { written: string; geometry: Geometry };
  /** Distance bounds in metres: d ≤ max, d ≥ min (ring) or d > min (beyond). */
  max?: number;
  min?: number;
  minStrict?: boolean;
  order?: 'nearest' | 'farthest';
  top?: number;
  condition?: 'open_now' | 'wheelchair';
}

export interface TownQuestion {
  text: string;
  plan: TownPlan;
}

/** Metres either side of a bound where turf and the stores' distances may disagree. */
export const TOWN_EDGE_M = 2;

const SUBJECTS: TownPlan['subject'][] = [
  { tag: ['amenity', 'pharmacy'], nouns: ['pharmacies', 'chemists'] },
  { tag: ['shop', 'supermarket'], nouns: ['supermarkets'] },
  { tag: ['shop', 'bakery'], nouns: ['bakeries'] },
];
/** Named features distances are measured to (points, a line, a polygon). */
const REFERENCES = ['Lennbrück Hauptbahnhof', 'Umspannwerk Süd', 'Windrad Lennhöhe', 'Lenne', 'Rathaus'];
const UNITS: [string, number][] = [['m', 1], ['metres', 1], ['meters', 1], ['km', 1000], ['ft', 0.3048], ['feet', 0.3048], ['yd', 0.9144], ['yards', 0.9144]];
const POLITE = ['', 'please show ', 'show me ', 'find ', 'list all '];
const CONDITIONS = { open_now: ['open now'], wheelchair: ['wheelchair accessible'] } as const;

function rng(seed: number) {
  return () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
}

/** A figure in the unit, as people write it, and the metres it stands for. */
function figure(m: number, perUnit: number): { written: string; metres: number } {
  const v = m / perUnit;
  const rounded = v >= 100 ? Math.round(v) : Math.round(v * 10) / 10;
  return { written: String(rounded), metres: rounded * perUnit };
}

/** `perPlan` wordings of each of `plans` generated plans over the town's features. */
export function generateTownCorpus(features: TownFeature[], plans: number, perPlan: number, seed = 5): TownQuestion[] {
  const next = rng(seed);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(next() * xs.length)]!;
  const named = (n: string) => features.find((f) => f.properties['name'] === n)!;
  const out: TownQuestion[] = [];
  for (let p = 0; p < plans; p++) {
    const subject = pick(SUBJECTS);
    const shape = pick(['within', 'ring', 'beyond', 'nearest', 'farthest', 'point', 'condition'] as const);
    const refName = pick(REFERENCES);
    const base: TownPlan = { subject };
    if (next() < 0.3 || shape === 'condition') base.condition = next() < 0.5 ? 'open_now' : 'wheelchair';
    if (shape === 'point') {
      // A typed position by the station, four decimals as written.
      const [lon, lat] = (named('Lennbrück Hauptbahnhof').geometry as { coordinates: number[] }).coordinates as [number, number];
      const la = Math.round((lat + (next() - 0.5) * 0.01) * 1e4) / 1e4;
      const lo = Math.round((lon + (next() - 0.5) * 0.01) * 1e4) / 1e4;
      base.ref = { written: `${la}, ${lo}`, geometry: { type: 'Point', coordinates: [lo, la] } };
    } else if (shape !== 'condition') base.ref = { written: refName, geometry: named(refName).geometry };
    for (let k = 0; k < perPlan; k++) {
      const plan: TownPlan = { ...base };
      const noun = pick(subject.nouns);
      const cond = plan.condition ? pick(CONDITIONS[plan.condition]) : '';
      const subj = plan.condition === 'wheelchair' ? `${cond} ${noun}` : noun;
      const tail = plan.condition === 'open_now' ? ` ${cond}` : '';
      const polite = pick(POLITE);
      const [unit, perUnit] = pick(UNITS);
      const r = figure(200 + Math.floor(next() * 1200), perUnit);
      const to = plan.ref?.written ?? '';
      let text: string;
      if (shape === 'within') {
        plan.max = r.metres;
        text = pick([`${polite}${subj}${tail} within ${r.written} ${unit} of ${to}`, `which ${subj}${tail} are within ${r.written} ${unit} of ${to}?`, `${polite}${subj}${tail} less than ${r.written} ${unit} from ${to}`]);
      } else if (shape === 'ring') {
        const b = figure(r.metres * 2.5, perUnit);
        plan.min = r.metres;
        plan.max = b.metres;
        text = pick([`${polite}${subj}${tail} between ${r.written} and ${b.written} ${unit} of ${to}`, `${polite}${subj}${tail} between ${r.written} ${unit} and ${b.written} ${unit} from ${to}`]);
      } else if (shape === 'beyond') {
        plan.min = r.metres;
        plan.minStrict = true;
        text = pick([`${polite}${subj}${tail} more than ${r.written} ${unit} from ${to}`, `${polite}${subj}${tail} further than ${r.written} ${unit} from ${to}`]);
      } else if (shape === 'nearest' || shape === 'point') {
        plan.order = 'nearest';
        plan.top = 1 + Math.floor(next() * 3);
        text = pick([`${polite}the ${plan.top} nearest ${subj}${tail} to ${to}`, `which are the ${plan.top} closest ${subj}${tail} to ${to}?`]);
      } else if (shape === 'farthest') {
        plan.order = 'farthest';
        plan.top = 1 + Math.floor(next() * 3);
        text = pick([`${polite}the ${plan.top} farthest ${subj}${tail} from ${to}`, `which are the ${plan.top} most distant ${subj}${tail} from ${to}?`]);
      } else text = pick([`${polite}${subj}${tail}`, `which ${subj} are there${tail}?`.replace(' are there open now', ' are open now')]);
      out.push({ text: text.replace(/\s+/g, ' ').trim(), plan });
    }
  }
  return out;
}

/** The brute-force answer of a town plan over the generator's features, by name, at the service clock `now`. */
export function expectedTown(plan: TownPlan, features: TownFeature[], now: Date): Expected {
  const undecided = new Set<string>();
  const [key, value] = plan.subject.tag;
  const d = (f: TownFeature) => distanceTo((f.geometry as { coordinates: number[] }).coordinates, plan.ref!.geometry);
  let hits = features.filter((f) => {
    if (f.properties[key] !== value) return false;
    if (plan.condition === 'wheelchair' && f.properties['wheelchair'] !== 'yes') return false;
    if (plan.condition === 'open_now') {
      const oh = f.properties['opening_hours'];
      if (!oh || !new OpeningHours(oh, null).getState(now)) return false;
    }
    if (plan.max === undefined && plan.min === undefined) return true;
    const x = d(f);
    const near = (b: number | undefined) => b !== undefined && Math.abs(x - b) < TOWN_EDGE_M;
    if (near(plan.max) || near(plan.min)) undecided.add(f.properties['name']!);
    if (plan.max !== undefined && !(x <= plan.max)) return false;
    if (plan.min !== undefined && !(plan.minStrict ? x > plan.min : x >= plan.min)) return false;
    return true;
  });
  const name = (f: TownFeature) => f.properties['name']!;
  const allowed = new Set(hits.map(name));
  if (!plan.order) return { ids: hits.map(name), ordered: false, undecided, allowed };
  hits = hits.sort((a, b) => (plan.order === 'nearest' ? d(a) - d(b) : d(b) - d(a)));
  return { ids: hits.slice(0, plan.top).map(name), ordered: true, undecided, allowed };
}

/** Tallies of a town corpus run, in the bench's JSON names. */
export interface TownCorpusFigures {
  town_corpus_questions: number;
  town_corpus_correct: number;
  town_corpus_wrong: number;
  town_corpus_broadened: number;
  town_corpus_refused: number;
  /** Questions whose brute-force answer holds something: the rest only show nothing was added. */
  town_corpus_nonempty: number;
}

/** Asks every question through `ask` (names, or null: refused with 422) and judges each against the brute force. */
export async function runTownCorpus(
  questions: TownQuestion[],
  features: TownFeature[],
  now: Date,
  ask: (text: string) => Promise<string[] | null>,
): Promise<{ figures: TownCorpusFigures; failures: string[] }> {
  const tally: Record<Verdict, number> = { correct: 0, wrong: 0, broadened: 0, refused: 0 };
  const failures: string[] = [];
  let nonempty = 0;
  for (const q of questions) {
    const want = expectedTown(q.plan, features, now);
    if (want.ids.length) nonempty++;
    const verdict = judge(await ask(q.text), want);
    tally[verdict]++;
    if (verdict !== 'correct' && failures.length < 20) failures.push(`${verdict}: ${q.text} (want ${want.ids.join(', ') || 'none'})`);
  }
  return {
    figures: {
      town_corpus_questions: questions.length,
      town_corpus_correct: tally.correct,
      town_corpus_wrong: tally.wrong,
      town_corpus_broadened: tally.broadened,
      town_corpus_refused: tally.refused,
      town_corpus_nonempty: nonempty,
    },
    failures,
  };
}
