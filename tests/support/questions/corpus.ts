import { airports, apLat, apLon, city, km, type RawAirport } from '../../contract/local-service/raw';

/**
 * The paraphrase corpus: each plan written in many wordings (word orders, synonyms, units,
 * number formats, polite forms, questions and commands, typos), with its answer computed here
 * by brute force from the raw airports and the generated sites (never by the engine).
 */

/** What a question asks, independently of any wording. */
export interface CorpusPlan {
  subject: 'airports' | 'sites';
  size?: 'large' | 'medium';
  country?: { cca2: string; name: string; demonym: string };
  place: { name: string; lon: number; lat: number; written: string };
  /** Distance bounds in km: d ≤ max, d ≥ min (ring) or d > min (beyond). */
  max?: number;
  min?: number;
  minStrict?: boolean;
  order?: 'nearest' | 'farthest';
  top?: number;
}

export interface CorpusQuestion {
  text: string;
  plan: CorpusPlan;
  /** A wording with a typo: the engine may refuse it, never answer it wider. */
  typo: boolean;
}

/** Kilometres either side of a bound where the raw data's and the catalog's rounded positions may disagree. */
export const EDGE_KM = 0.05;

export interface Site {
  id: string;
  name: string;
  lon: number;
  lat: number;
  status: 'open' | 'closed';
  priority: 'high' | 'low';
}

/** Sites spread around Western Europe from a seed, written as an upload with attribute columns. */
export function makeSites(n: number, seed = 7): { sites: Site[]; csv: string } {
  const next = rng(seed);
  const sites: Site[] = [];
  for (let i = 0; i < n; i++)
    sites.push({
      id: `s${i + 1}`,
      name: `Site ${i + 1}`,
      lon: round5(-4 + next() * 20),
      lat: round5(38 + next() * 16),
      status: next() < 0.5 ? 'open' : 'closed',
      priority: next() < 0.3 ? 'high' : 'low',
    });
  const csv = 'site_id,name,latitude,longitude,status,priority\n' + sites.map((s) => `${s.id},${s.name},${s.lat},${s.lon},${s.status},${s.priority}`).join('\n') + '\n';
  return { sites, csv };
}

const round5 = (x: number) => Math.round(x * 1e5) / 1e5;

function rng(seed: number) {
  return () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
}

const PLACES = [
  ['Paris', 'FR'], ['Athens', 'GR'], ['Madrid', 'ES'], ['Oslo', 'NO'], ['Lyon', 'FR'], ['Rome', 'IT'], ['Lisbon', 'PT'], ['Berlin', 'DE'],
] as const;
const COUNTRIES = [
  { cca2: 'FR', name: 'France', demonym: 'French' }, { cca2: 'GR', name: 'Greece', demonym: 'Greek' }, { cca2: 'ES', name: 'Spain', demonym: 'Spanish' },
  { cca2: 'NO', name: 'Norway', demonym: 'Norwegian' }, { cca2: 'IT', name: 'Italy', demonym: 'Italian' }, { cca2: 'DE', name: 'Germany', demonym: 'German' },
  { cca2: 'PT', name: 'Portugal', demonym: 'Portuguese' },
];

/** Units as written, with km per unit. */
const UNITS: [string, number][] = [
  ['km', 1], ['kilometres', 1], ['kilometers', 1], ['mi', 1.609344], ['miles', 1.609344], ['nmi', 1.852], ['nautical miles', 1.852],
  ['m', 0.001], ['metres', 0.001], ['ft', 0.0003048], ['feet', 0.0003048], ['yd', 0.0009144], ['yards', 0.0009144],
];
const NOUNS = { airports: ['airports', 'airfields', 'aerodromes'], sites: ['my sites', 'the uploaded sites', 'my locations'] };
const SIZE_WORDS = { large: ['large', 'major', 'big'], medium: ['medium', 'regional'] };
const POLITE = ['', 'please show ', 'show me ', 'could you please list ', 'find ', 'I would like to see ', 'list all '];

/** A figure in the unit, written as people do: "50", "50.0", "1,500", "2.5". */
function figure(km: number, perUnit: number, style: number): string {
  const v = km / perUnit;
  const rounded = v >= 100 ? Math.round(v) : Math.round(v * 10) / 10;
  if (style % 3 === 1 && rounded >= 1000) return rounded.toLocaleString('en-US');
  if (style % 3 === 2 && Number.isInteger(rounded) && rounded < 1000) return `${rounded}.0`;
  return String(rounded);
}

/** The value a written figure stands for, in km. */
const kmOf = (written: string, perUnit: number) => Number(written.replace(/,/g, '')) * perUnit;

/** Swaps two letters inside the first long word: "airports" → "airpotrs". */
function typo(text: string): string {
  return text.replace(/\b([a-z]{3,})([a-z])([a-z])([a-z]*)\b/, (_, a: string, b: string, c: string, d: string) => `${a}${c}${b}${d}`);
}

/** The corpus: `perPlan` wordings of each generated plan (about plans × perPlan questions). */
export function generateCorpus(plans: number, perPlan: number, seed = 11): CorpusQuestion[] {
  const next = rng(seed);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(next() * xs.length)]!;
  const out: CorpusQuestion[] = [];
  for (let p = 0; p < plans; p++) {
    const [pname, pcc] = pick(PLACES);
    const c = city(pname, pcc);
    const shape = pick(['within', 'within', 'ring', 'beyond', 'nearest', 'farthest', 'point'] as const);
    const subject = next() < 0.75 ? 'airports' : 'sites';
    const base: CorpusPlan = {
      subject,
      place: { name: pname, lon: c.loc.coordinates[0], lat: c.loc.coordinates[1], written: pname },
    };
    if (subject === 'airports' && next() < 0.3) base.size = next() < 0.5 ? 'large' : 'medium';
    for (let k = 0; k < perPlan; k++) {
      const [unit, perUnit] = pick(UNITS.filter(([, f]) => f >= (shape === 'nearest' || shape === 'farthest' ? 0 : 0.001)));
      const style = Math.floor(next() * 3);
      const plan: CorpusPlan = { ...base, place: { ...base.place } };
      const noun = pick(NOUNS[subject]);
      const size = plan.size ? `${pick(SIZE_WORDS[plan.size])} ` : '';
      const subj = subject === 'airports' ? `${size}${noun}` : noun;
      const polite = pick(POLITE);
      let text: string;
      // Radii drawn in km, then written in the unit and read back from the written figure.
      const r1 = 20 + Math.floor(next() * 180);
      const a = figure(r1, perUnit, style);
      if (shape === 'within') {
        plan.max = kmOf(a, perUnit);
        const where = `${a} ${unit} of ${pname}`;
        text = pick([
          `${polite}${subj} within ${where}`,
          `which ${subj} are within ${where}?`,
          `${polite}${subj} less than ${a} ${unit} from ${pname}`,
          `within ${where}, ${subj}`,
          `${subj} no more than ${a} ${unit} from ${pname} please`,
        ]);
      } else if (shape === 'ring') {
        const b = figure(r1 * 2.5, perUnit, style);
        plan.min = kmOf(a, perUnit);
        plan.max = kmOf(b, perUnit);
        text = pick([
          `${polite}${subj} between ${a} and ${b} ${unit} of ${pname}`,
          `${polite}${subj} between ${a} ${unit} and ${b} ${unit} from ${pname}`,
          `which ${subj} are between ${a} and ${b} ${unit} from ${pname}?`,
        ]);
      } else if (shape === 'beyond') {
        const country = COUNTRIES.find((x) => x.cca2 === pcc)!;
        // Sites carry no country of their own in the raw data: theirs is asked without one.
        if (subject === 'airports') plan.country = country;
        plan.min = kmOf(a, perUnit);
        plan.minStrict = true;
        const inC = plan.country ? pick([`in ${country.name}`, `of ${country.name}`]) : '';
        text = pick([
          `${polite}${subj} ${inC} more than ${a} ${unit} from ${pname}`,
          `${polite}${subj} ${inC} beyond ${a} ${unit} of ${pname}`,
          `which ${subj} ${inC} are further than ${a} ${unit} from ${pname}?`,
          `${polite}${subj} ${inC} over ${a} ${unit} away from ${pname}`,
        ]);
        if (subject === 'airports' && next() < 0.3) text = `${polite}${country.demonym} ${subj} more than ${a} ${unit} from ${pname}`;
      } else if (shape === 'nearest' || shape === 'point') {
        plan.order = 'nearest';
        plan.top = 1 + Math.floor(next() * 8);
        const n = plan.top;
        const to = shape === 'point' ? pointText(plan, next) : pname;
        text = pick([
          `${polite}the ${n} nearest ${subj} to ${to}`,
          `${polite}nearest ${n} ${subj} to ${to}`,
          `which are the ${n} closest ${subj} to ${to}?`,
          `${polite}${subj} closest to ${to}, top ${n}`,
        ]);
      } else {
        const country = COUNTRIES.find((x) => x.cca2 === pcc)!;
        if (subject === 'airports') plan.country = country;
        const inC = plan.country ? ` in ${country.name}` : '';
        plan.order = 'farthest';
        plan.top = 1 + Math.floor(next() * 5);
        text = pick([
          `${polite}the ${plan.top} farthest ${subj}${inC} from ${pname}`,
          `which are the ${plan.top} most distant ${subj}${inC} from ${pname}?`,
        ]);
      }
      const isTypo = k === perPlan - 1 && perPlan > 2;
      out.push({ text: isTypo ? typo(text) : text, plan, typo: isTypo });
    }
  }
  return out;
}

/** A position for "nearest to <lat, lon>" near the place, written in decimal or with hemisphere letters. */
function pointText(plan: CorpusPlan, next: () => number): string {
  const lat = Math.round((plan.place.lat + (next() - 0.5)) * 1e4) / 1e4;
  const lon = Math.round((plan.place.lon + (next() - 0.5)) * 1e4) / 1e4;
  plan.place = { name: `${lat}, ${lon}`, lon, lat, written: '' };
  const ns = lat < 0 ? 'S' : 'N';
  const ew = lon < 0 ? 'W' : 'E';
  const text = next() < 0.5 ? `${lat}, ${lon}` : `${Math.abs(lat)} ${ns} ${Math.abs(lon)} ${ew}`;
  plan.place.written = text;
  return text;
}

/** One feature a plan may match: its id, position and country. */
export interface Candidate {
  id: string;
  lon: number;
  lat: number;
  country: string;
  size?: 'large' | 'medium';
}

export const airportCandidates = (): Candidate[] =>
  airports.map((a: RawAirport) => ({ id: String(a.id), lon: apLon(a), lat: apLat(a), country: a.iso_country, size: a.type === 'large_airport' ? 'large' : 'medium' }));

/**
 * The answer by brute force: the ids that must come back, in order when the plan orders them,
 * and the ids too close to a bound to decide (either answer is right for them).
 */
export interface Expected {
  ids: string[];
  ordered: boolean;
  /** Ids too close to a bound to decide. */
  undecided: Set<string>;
  /** Every id the plan's filters allow before a top N: an answer holding any other is broadened. */
  allowed: Set<string>;
}

export function expected(plan: CorpusPlan, all: Candidate[]): Expected {
  const undecided = new Set<string>();
  const d = (c: Candidate) => km(c.lon, c.lat, plan.place.lon, plan.place.lat);
  let hits = all.filter((c) => {
    if (plan.size && c.size !== plan.size) return false;
    if (plan.country && c.country !== plan.country.cca2) return false;
    const x = d(c);
    const near = (b: number | undefined) => b !== undefined && Math.abs(x - b) < EDGE_KM;
    if (near(plan.max) || near(plan.min)) undecided.add(c.id);
    if (plan.max !== undefined && !(x <= plan.max)) return false;
    if (plan.min !== undefined && !(plan.minStrict ? x > plan.min : x >= plan.min)) return false;
    return true;
  });
  const allowed = new Set(hits.map((c) => c.id));
  if (!plan.order) return { ids: hits.map((c) => c.id), ordered: false, undecided, allowed };
  hits = hits.sort((a, b) => (plan.order === 'nearest' ? d(a) - d(b) : d(b) - d(a)));
  return { ids: hits.slice(0, plan.top).map((c) => c.id), ordered: true, undecided, allowed };
}

export type Verdict = 'correct' | 'wrong' | 'broadened' | 'refused';

/** Compares an answer with the brute-force one: 'broadened' when any result lies outside the plan. */
export function judge(got: string[] | null, want: Expected): Verdict {
  if (got === null) return 'refused';
  if (got.some((id) => !want.allowed.has(id) && !want.undecided.has(id))) return 'broadened';
  const clean = (xs: string[]) => xs.filter((x) => !want.undecided.has(x));
  const a = clean(got);
  const b = clean(want.ids);
  if (want.ordered) return a.length === b.length && a.every((x, i) => x === b[i]) ? 'correct' : 'wrong';
  const sa = [...a].sort();
  const sb = [...b].sort();
  return sa.length === sb.length && sa.every((x, i) => x === sb[i]) ? 'correct' : 'wrong';
}

/** Sites as candidates of the brute-force answer. */
export const siteCandidates = (sites: Site[]): Candidate[] => sites.map((s) => ({ id: s.id, lon: s.lon, lat: s.lat, country: '' }));

/** Tallies of a corpus run, in the bench's JSON names. */
export interface CorpusFigures {
  corpus_questions: number;
  corpus_correct: number;
  corpus_refused_wrongly: number;
  corpus_wrong: number;
  corpus_broadened: number;
  corpus_typo_questions: number;
  corpus_typo_refused: number;
}

/**
 * Asks every question through `ask` (null: refused with 422) and judges each against the brute
 * force; `failures` keeps the first few wrong or broadened answers for the report.
 */
export async function runCorpus(
  questions: CorpusQuestion[],
  ask: (q: CorpusQuestion) => Promise<string[] | null>,
  candidates: { airports: Candidate[]; sites: Candidate[] },
): Promise<{ figures: CorpusFigures; failures: { text: string; verdict: Verdict }[] }> {
  const f: CorpusFigures = {
    corpus_questions: 0, corpus_correct: 0, corpus_refused_wrongly: 0, corpus_wrong: 0, corpus_broadened: 0, corpus_typo_questions: 0, corpus_typo_refused: 0,
  };
  const failures: { text: string; verdict: Verdict }[] = [];
  for (const q of questions) {
    const want = expected(q.plan, q.plan.subject === 'airports' ? candidates.airports : candidates.sites);
    const verdict = judge(await ask(q), want);
    f.corpus_questions++;
    if (q.typo) f.corpus_typo_questions++;
    if (verdict === 'correct') f.corpus_correct++;
    else if (verdict === 'refused') {
      if (q.typo) f.corpus_typo_refused++;
      f.corpus_refused_wrongly++;
    } else if (verdict === 'broadened') f.corpus_broadened++;
    else f.corpus_wrong++;
    if (verdict !== 'correct' && failures.length < 20) failures.push({ text: q.text, verdict });
  }
  return { figures: f, failures };
}
