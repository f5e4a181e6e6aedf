import { AREA_WORDS } from './bbox';
import type { Plan } from './plan';
import { createReader, type ParseContext } from './reader';
import { countWord, density, howMany, numberOf, perCountry, perMeasure } from './rules/measure';
import {
  byOrder, countBeforeOrder, nearestTo, nearestWord, populationFilter, sizeOrder, sortWord, topN,
} from './rules/order';
import type { Rule } from './rules/rule';
import { modifierWord, subjectNoun, uploadsOrSaved } from './rules/subject';
import { barePlace, box, demonym, inPlace, near, ofCountry, underRadius, withinRadius } from './rules/where';
import { SILENT } from './words';

export { NEAR_KM, IN_CITY_KM, tokenize } from './words';
export type { ParseContext } from './reader';

/** The reading rules, tried in this order at each word; the first that reads something wins. */
export const RULES: readonly Rule[] = [
  howMany, numberOf, countWord, perMeasure, density, perCountry,
  withinRadius, underRadius, near, inPlace, ofCountry, box,
  sortWord, byOrder, nearestWord, nearestTo, topN, sizeOrder, countBeforeOrder,
  populationFilter,
  modifierWord, subjectNoun, uploadsOrSaved, demonym, barePlace,
];

/** Reads a question into a plan: deterministic rules over the words, each reading said in warnings. */
export function parseQuery(query: string, ctx: ParseContext): Plan {
  const r = createReader(query, ctx);
  const { t, plan, w } = r;
  for (let i = 0; i < t.length; ) {
    let used = 0;
    for (const rule of RULES) {
      used = rule(r, i);
      if (used) break;
    }
    if (used) {
      i += used;
      continue;
    }
    if (!SILENT.has(w(i))) plan.ignored.push(t[i]!.raw);
    i++;
  }
  if (r.pending) {
    const pending = r.pending;
    const kinds = ctx.catalog.kinds.labels((k) => pending.some((x) => x.kind === k.kind));
    r.warn('ignored', `"${pending[0]!.label}" named no ${kinds}; ignored`);
  }
  // A box word left unread means an area was meant and not understood: never answer for everywhere.
  const areaWord = plan.ignored.find((x) => AREA_WORDS.has(x.toLowerCase()));
  if (areaWord && !plan.invalid && !plan.bbox)
    plan.invalid = `could not read the area after "${areaWord}"; write a box as "bbox west,south,east,north" or "between latitude 45.5 and 46 and longitude 4.5 and 5.5"`;
  if (plan.ignored.length) r.warn('ignored_words', `words not used: ${plan.ignored.join(', ')}`, { words: plan.ignored });
  return plan;
}
