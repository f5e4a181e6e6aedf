import { areaWordAt } from './bbox';
import { narrowSelection } from '../vocabulary/vocabulary';
import { conditionKeys } from './layers/conditions';
import type { Plan } from './plan';
import { createReader, type ParseContext, type Reader } from './reader';
import { CONSTRUCTS } from './constructs';
import { negatedAmongKey } from './rules/tags';
import { foldLetters } from '../catalog/text';
import { UPLOADS } from '../catalog/kinds/uploads';
import { POPULATION_WORDS, SILENT, UNIT_NAMES } from './words';

export { NEAR_KM, IN_CITY_KM, tokenize } from './words';
export type { ParseContext } from './reader';

/**
 * Reads a question into a plan: deterministic rules over the words, each reading said in warnings.
 * Words no rule could use are read once more as the known word one edit away, if there is one
 * ("Swtizerland"); the reading is kept only when it then reads in full, and says so.
 */
export function parseQuery(query: string, ctx: ParseContext): Plan {
  const plan = readOnce(query, ctx);
  if (!plan.notRead.some((u) => !u.understood) || !ctx.typos) return plan;
  const fixes: { from: string; to: string }[] = [];
  let text = query;
  const words = new Set(plan.notRead.filter((u) => !u.understood).flatMap((u) => u.words.split(/[^\p{L}]+/u).filter(Boolean)));
  for (const word of words) {
    const to = ctx.typos.correct(foldLetters(word));
    if (!to) continue;
    const written = /^\p{Lu}/u.test(word) ? to.charAt(0).toUpperCase() + to.slice(1) : to;
    const escaped = word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    text = text.replace(new RegExp(`(?<![\\p{L}\\p{N}])${escaped}(?![\\p{L}\\p{N}])`, 'gu'), written);
    fixes.push({ from: word, to: written });
  }
  if (!fixes.length) return plan;
  const second = readOnce(text, ctx);
  if (second.notRead.length) return plan;
  // A correction must not take the subject the question named ("long airports" read as "along airports").
  if (namesSubject(plan) && !namesSubject(second)) return plan;
  for (const f of fixes) second.warnings.unshift({ code: 'typo', message: `read "${f.from}" as "${f.to}"`, from: f.from, to: f.to });
  return second;
}

/** Called with each construct that reads words: its id, the first token and how many it used. */
type ConstructTrace = (id: string, from: number, used: number) => void;

/** The constructs that read a question, in the order they read it (without the second reading of misspelt words). */
export function constructsReading(query: string, ctx: ParseContext): { id: string; from: number; used: number }[] {
  const out: { id: string; from: number; used: number }[] = [];
  readOnce(query, ctx, (id, from, used) => out.push({ id, from, used }));
  return out;
}

const namesSubject = (p: Plan): boolean => p.subject !== null || !!p.layerSubject || !!p.seen || !!p.uploadsExcept;

function readOnce(query: string, ctx: ParseContext, trace?: ConstructTrace): Plan {
  const r = createReader(query, ctx);
  const { t, plan, w } = r;
  // Runs of words no rule used, as phrases ("runways longer 3000 m"), from their first token: each is named in a refusal.
  const runs: { from: number; words: string[] }[] = [];
  let lastIgnored = -2;
  let areaWord: string | undefined;
  for (let i = 0; i < t.length; ) {
    let used = 0;
    for (const c of CONSTRUCTS) {
      used = c.rule(r, i);
      if (used) {
        trace?.(c.id, i, used);
        break;
      }
    }
    if (used) {
      i += used;
      continue;
    }
    if (!SILENT.has(w(i))) {
      plan.ignored.push(t[i]!.raw);
      if (areaWordAt(t, i)) areaWord ??= t[i]!.raw;
      // Filler between two unread words stays in the phrase: "runways longer than 3000 m".
      if (lastIgnored >= 0 && t.slice(lastIgnored + 1, i).every((x) => SILENT.has(x.w))) runs.at(-1)!.words.push(...t.slice(lastIgnored + 1, i + 1).map((x) => x.raw));
      else runs.push({ from: i, words: [t[i]!.raw] });
      lastIgnored = i;
    } else if (lastIgnored >= 0 && i - lastIgnored > 2) lastIgnored = -2;
    i++;
  }
  for (const run of runs) {
    // A figure followed by a word no rule reads ("more than 100 furlongs") is no population or
    // value: the word is a unit or a noun the reader does not have, and the figure goes with it.
    const figure = r.figures.find((f) => f.end === run.from);
    if (!figure) {
      r.notRead(run.words.join(' '), 'no rule reads these words');
      continue;
    }
    figure.undo();
    r.notRead(`${r.said(figure.from, figure.end)} ${run.words.join(' ')}`, `"${t[run.from]!.raw}" after a figure is no unit the reader has (${UNIT_NAMES.join(', ')})`);
  }
  // Places that name nothing known (the place reader keeps them as unread): never a count of 0.
  for (const u of plan.unread) if (!plan.notRead.some((x) => x.words.includes(u) || u.includes(x.words))) r.notRead(u, 'not a place the catalog knows');
  if (r.pending) {
    const pending = r.pending;
    const kinds = ctx.catalog.kinds.labels((k) => pending.some((x) => x.kind === k.kind));
    r.notRead(pending[0]!.label, `describes ${kinds} only`);
    r.warn('ignored', `"${pending[0]!.label}" named no ${kinds}; ignored`);
  }
  // A box word left unread means an area was meant and not understood: never answer for everywhere.
  if (areaWord && !plan.invalid && !plan.bbox)
    plan.invalid = `could not read the area after "${areaWord}"; write a box as "bbox west,south,east,north" or "between latitude 45.5 and 46 and longitude 4.5 and 5.5"`;
  // A kind and a layer phrase both read as the subject: the one some data holds answers.
  if (plan.subject !== null && plan.layerSubject) {
    const dropped = plan.layerSubject.sources.length ? plan.subject : plan.layerSubject.said;
    if (plan.layerSubject.sources.length) plan.subject = null;
    else delete plan.layerSubject;
    r.notRead(dropped, 'a second subject: the question has another');
    r.warn('ignored', `"${dropped}" ignored: the question has another subject`);
  }
  // Photos by what is seen in them are the subject: a kind or layer phrase besides is a second one.
  if (plan.seen && (plan.subject !== null || plan.layerSubject)) {
    const dropped = plan.layerSubject?.said ?? ctx.catalog.kinds.label(plan.subject!).many;
    plan.subject = null;
    delete plan.layerSubject;
    r.notRead(dropped, `a second subject: the question asks for ${plan.seen.said}`);
  }
  promoteTagSubject(r);
  negatedAmongKey(r);
  if (plan.layerSubject && !plan.layerSubject.sources.length)
    r.notRead(plan.layerSubject.said, `read as ${plan.layerSubject.reading}, but no layer holds such features`, 'subject');
  // "my sites over 10,000 population": the uploads' own population column, if they have one.
  const popKeys = POPULATION_WORDS.flatMap((x) => ctx.uploadNumeric?.get(x) ?? []);
  if (plan.subject === UPLOADS.name && (plan.popMin !== undefined || plan.popMax !== undefined) && popKeys.length) {
    const bounds = [plan.popMin !== undefined ? `≥ ${plan.popMin}` : '', plan.popMax !== undefined ? `≤ ${plan.popMax}` : ''].filter(Boolean).join(' and ');
    plan.conditions.push({ type: 'number', keys: popKeys, min: plan.popMin, max: plan.popMax, label: `${popKeys.join(' or ')} ${bounds} (the uploaded column)` });
    delete plan.popMin;
    delete plan.popMax;
  }
  // "which of my sites lie inside my polygon": the polygons are the reference, the other files the subject.
  const shaped = [plan.inside, plan.outside, plan.intersecting, plan.within?.reference, plan.distanceRef].find((x) => x?.type === 'class' && x.kind === plan.subject && x.shape);
  if (shaped?.type === 'class' && plan.subject === UPLOADS.name) plan.uploadsExcept = shaped.shape;
  if (plan.ignored.length) r.warn('ignored_words', `words not used: ${plan.ignored.join(', ')}`, { words: plan.ignored });
  return plan;
}

/**
 * "amenity=bench in X", "admin level 8 in Y", "nodes in the current view": with no other subject,
 * the features of the layers that have the condition's column (any feature for an element type)
 * are the subject, and the condition tests them.
 */
function promoteTagSubject(r: Reader): void {
  const { plan, ctx } = r;
  const v = ctx.vocabulary;
  if (!v || plan.subject !== null || plan.seen || ctx.fileNames.length || ctx.savedSubject !== undefined) return;
  // "admin level 9 boundaries": a key said in words narrows the subject to the presets that have it.
  const inWords = r.tagWords.find((c) => c.type === 'equals' && c.inWords);
  if (plan.layerSubject) {
    if (!inWords || !plan.layerSubject.sources.length) return;
    const by = v.keySelection(conditionKeys(inWords)[0]!, inWords.label);
    const narrowed = narrowSelection(plan.layerSubject, by, v.summaries, plan.layerSubject.said);
    if (narrowed.sources.length) plan.layerSubject = { ...narrowed, label: plan.layerSubject.label };
    return;
  }
  if (!r.tagWords.length) return;
  plan.impliedSubject = true;
  const keyed = r.tagWords.find((c) => c.type === 'equals' || c.type === 'present' || c.type === 'text' || c.type === 'number' || c.type === 'contains');
  if (keyed) {
    const key = conditionKeys(keyed)[0]!;
    plan.layerSubject = keyed.type === 'equals' && keyed.inWords ? v.keySelection(key, 'features') : { ...v.tagSelection(key, undefined, 'features'), label: 'features' };
    return;
  }
  plan.layerSubject = { label: 'features', said: 'features', reading: 'every feature of the layers', plural: true, sources: v.layers.map((layer) => ({ layer })) };
}
