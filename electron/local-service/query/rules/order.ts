import { populationFilterAt } from '../filters';
import type { Reader } from '../reader';
import { SILENT, UPLOAD_NOUNS } from '../words';

const SORT_WORDS = ['sort', 'sorted', 'order', 'ordered', 'rank', 'ranked', 'arrange', 'arranged'];

/** "sort", "ranked": no meaning alone ("sort my sites by distance to Paris" reads like "my sites by distance to Paris"). */
export function sortWord(r: Reader, i: number): number {
  return SORT_WORDS.includes(r.w(i)) ? 1 : 0;
}

/** "by population", "by size", "by distance to REF": an order. */
export function byOrder(r: Reader, i: number): number {
  const { w, plan } = r;
  if (w(i) !== 'by') return 0;
  if (w(i + 1) === 'population' || w(i + 1) === 'size') return (plan.order = 'population_desc'), 2;
  // "by capacity": a column of numbers of a layer or an upload, largest first unless "smallest" was said.
  const keys = r.ctx.vocabulary?.numeric.get(w(i + 1)) ?? r.ctx.uploadNumeric?.get(w(i + 1));
  if (keys) {
    if (plan.order !== 'population_asc') plan.order = 'population_desc';
    plan.orderBy = { keys, label: r.t[i + 1]!.raw };
    return 2;
  }
  if (w(i + 1) !== 'distance' && w(i + 1) !== 'proximity') return 0;
  let j = i + 2;
  if (['to', 'from'].includes(w(j))) j++;
  const ref = r.referenceAt(j, 'sort by distance to');
  plan.order = 'distance';
  if (ref?.[0]) plan.distanceRef = ref[0];
  return j - i + (ref ? ref[1] : 0);
}

/** "nearest", "closest", "nearest 3", "farthest", "most distant": distance order, and how many. */
export function nearestWord(r: Reader, i: number): number {
  const { w, plan } = r;
  let j = i + 1;
  if (['nearest', 'closest'].includes(w(i))) plan.order = 'distance';
  else if (['farthest', 'furthest'].includes(w(i))) plan.order = 'distance_desc';
  else if (w(i) === 'most' && ['distant', 'remote'].includes(w(i + 1))) {
    plan.order = 'distance_desc';
    j++;
  } else return 0;
  // "nearest first", "farthest first": the order alone.
  if (w(j) === 'first') return j - i + 1;
  const num = r.countAt(j);
  if (num && r.distanceUnit(j + num[1]) === undefined) {
    plan.top = num[0];
    j += num[1];
  } else if (plan.top === undefined) r.singularNearest(i);
  return j - i;
}

/** "to REF" after "nearest" and its subject ("nearest airport to Oslo"): what distances are measured from. */
export function nearestTo(r: Reader, i: number): number {
  const { plan } = r;
  if ((r.w(i) !== 'to' && r.w(i) !== 'from') || (plan.order !== 'distance' && plan.order !== 'distance_desc') || plan.distanceRef) return 0;
  const ref = r.referenceAt(i + 1, 'nearest to');
  if (!ref) return 0;
  if (ref[0]) plan.distanceRef = ref[0];
  return 1 + ref[1];
}

/** "top N": how many. */
export function topN(r: Reader, i: number): number {
  if (r.w(i) !== 'top') return 0;
  const num = r.countAt(i + 1);
  if (!num) return 0;
  r.plan.top = num[0];
  return 1 + num[1];
}

/** "largest", "most populous", "smallest", "least populous": population order. */
export function sizeOrder(r: Reader, i: number): number {
  const { w, plan } = r;
  if (['largest', 'biggest'].includes(w(i))) return (plan.order = 'population_desc'), w(i + 1) === 'first' ? 2 : 1;
  if (w(i) === 'most' && ['populous', 'populated'].includes(w(i + 1))) return (plan.order = 'population_desc'), 2;
  if (w(i) === 'smallest') return (plan.order = 'population_asc'), 1;
  if (w(i) === 'least' && ['populous', 'populated'].includes(w(i + 1))) return (plan.order = 'population_asc'), 2;
  return 0;
}

/** Words that order the subject and may stand between "my" and its noun ("my 3 nearest sites"). */
export const ORDER_WORDS = new Set(['top', 'largest', 'biggest', 'smallest', 'nearest', 'closest', 'farthest', 'furthest']);

/** "5 largest", "3 nearest": how many, before the order word that follows. */
export function countBeforeOrder(r: Reader, i: number): number {
  const num = r.countAt(i);
  if (!num) return 0;
  const next = r.w(i + num[1]);
  const distant = next === 'most' && ['distant', 'remote'].includes(r.w(i + num[1] + 1));
  if (!distant && (next === 'top' || !ORDER_WORDS.has(next)) && !orderAfterNoun(r, i + num[1])) return 0;
  r.plan.top = num[0];
  return num[1];
}

/**
 * "the 5 airports farthest from X", "which 2 parks are closest to Y": a noun phrase at i, then
 * (after words that say nothing, "are") an order word. Whether the count before it goes with that order.
 */
function orderAfterNoun(r: Reader, i: number): boolean {
  const { w, lexicon } = r;
  let j = i;
  // "2 of my sites": the noun after "of", a possessive or a determiner.
  while (['of', 'my', 'our', 'the', 'these', 'those'].includes(w(j))) j++;
  while (lexicon.adjectives.has(w(j))) j++;
  if (lexicon.nouns.has(w(j)) || UPLOAD_NOUNS.has(w(j))) j++;
  else {
    const sel = r.selectionAt(j);
    if (!sel) return false;
    j += sel.len;
  }
  while (SILENT.has(w(j))) j++;
  return (ORDER_WORDS.has(w(j)) && w(j) !== 'top') || (w(j) === 'most' && ['distant', 'remote'].includes(w(j + 1)));
}

/** "over 1 million", "between 100k and 500k", "under 50,000": the subject's population range. */
export function populationFilter(r: Reader, i: number): number {
  const f = populationFilterAt(r.t, i);
  if (!f) return 0;
  const { plan } = r;
  const { popMin, popMax } = plan;
  if (f[0].min !== undefined) plan.popMin = f[0].min;
  if (f[0].max !== undefined) plan.popMax = f[0].max;
  r.figures.push({
    from: i,
    end: i + f[1],
    undo: () => {
      plan.popMin = popMin;
      plan.popMax = popMax;
    },
  });
  return f[1];
}
