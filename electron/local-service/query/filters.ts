import { MULTIPLIER, numberAt, unitAt, type Token } from './words';

/** A population range read from the words: either bound may be missing. */
export interface PopulationFilter {
  min?: number;
  max?: number;
}

/**
 * "over 1 million", "at least 50k", "under 50,000", "between 100k and 500k" at i:
 * [filter, tokens used], else null.
 */
export function populationFilterAt(t: Token[], i: number): [PopulationFilter, number] | null {
  const w = (k: number) => t[k]?.w ?? '';
  let j = i;
  let kind: 'min' | 'max' | 'range' | null = null;
  if (['over', 'above', 'exceeding', '>'].includes(w(j))) {
    kind = 'min';
    j++;
  } else if ((w(j) === 'more' || w(j) === 'greater') && w(j + 1) === 'than') {
    kind = 'min';
    j += 2;
  } else if (w(j) === 'at' && w(j + 1) === 'least') {
    kind = 'min';
    j += 2;
  } else if (['under', 'below', '<'].includes(w(j))) {
    kind = 'max';
    j++;
  } else if ((w(j) === 'less' || w(j) === 'fewer') && w(j + 1) === 'than') {
    kind = 'max';
    j += 2;
  } else if (w(j) === 'at' && w(j + 1) === 'most') {
    kind = 'max';
    j += 2;
  } else if (w(j) === 'between') {
    kind = 'range';
    j++;
  }
  if (!kind) return null;
  const a = numberAt(t, j, true);
  if (!a) return null;
  // "over 100 km", "between 1 and 2 km": distances, read by the distance rules, never populations.
  const unit = (k: number) => unitAt(t, k) !== null && MULTIPLIER[w(k)] === undefined;
  if (unit(j + a[1]) || (kind === 'range' && unit(j + a[1] + 2))) return null;
  j += a[1];
  if (kind === 'range') {
    if (!['and', 'to', '-'].includes(w(j))) return null;
    const b = numberAt(t, j + 1, true);
    if (!b) return null;
    j += 1 + b[1];
    // "between 100k and 500k": a multiplier on the second figure applies to a bare first one.
    let lo = a[0];
    const hi = b[0];
    if (a[1] === 1 && b[1] === 2 && lo < hi / 1000) lo *= hi / numberAt(t, j - b[1], false)![0];
    return [{ min: Math.min(lo, hi), max: Math.max(lo, hi) }, j - i];
  }
  return [kind === 'min' ? { min: a[0] } : { max: a[0] }, j - i];
}

/** Words that join a filter to the noun before it: "a city with over 1 million people". */
const JOINERS = new Set(['with', 'of', 'having', 'that', 'which', 'has', 'have', 'where']);

/**
 * A population filter right after a noun phrase ending before i, with its joining words
 * ("with", "that have"): [filter, tokens used], else null.
 */
export function trailingPopulationFilter(t: Token[], i: number): [PopulationFilter, number] | null {
  let j = i;
  while (JOINERS.has(t[j]?.w ?? '') && j - i < 2) j++;
  if (t[j]?.w === 'a' && t[j + 1]?.w === 'population') j += 2;
  else if (t[j]?.w === 'population') j++;
  const f = populationFilterAt(t, j);
  return f ? [f[0], j - i + f[1]] : null;
}
