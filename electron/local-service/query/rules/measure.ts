import type { Reader } from '../reader';

/** "how many": a count. */
export function howMany(r: Reader, i: number): number {
  return r.w(i) === 'how' && r.w(i + 1) === 'many' ? ((r.plan.measurement = 'count'), 2) : 0;
}

/** "number of": a count. */
export function numberOf(r: Reader, i: number): number {
  return r.w(i) === 'number' && r.w(i + 1) === 'of' ? ((r.plan.measurement = 'count'), 2) : 0;
}

/** "count", "counts", "tally": a count. */
export function countWord(r: Reader, i: number): number {
  return ['count', 'counts', 'tally'].includes(r.w(i)) ? ((r.plan.measurement = 'count'), 1) : 0;
}

/** "per capita", "per million people", "per area", "per square km": a ratio. */
export function perMeasure(r: Reader, i: number): number {
  const { w, plan } = r;
  if (w(i) !== 'per') return 0;
  if (['capita', 'person', 'inhabitant', 'head'].includes(w(i + 1))) return (plan.measurement = 'per_capita'), 2;
  if (w(i + 1) === 'million' && ['people', 'inhabitants', 'residents', 'persons'].includes(w(i + 2)))
    return (plan.measurement = 'per_capita'), 3;
  if (['area', 'km2', 'km²'].includes(w(i + 1))) return (plan.measurement = 'per_area'), 2;
  if (['square', 'sq'].includes(w(i + 1)) && r.distanceUnit(i + 2) !== undefined) return (plan.measurement = 'per_area'), 3;
  return 0;
}

/** "density": per area. */
export function density(r: Reader, i: number): number {
  return r.w(i) === 'density' ? ((r.plan.measurement = 'per_area'), 1) : 0;
}

/** "per country", "by country", "in each country", "for every nation": figures per country. */
export function perCountry(r: Reader, i: number): number {
  const { w } = r;
  let j = i;
  if (['in', 'for'].includes(w(j)) && ['each', 'every'].includes(w(j + 1))) j += 2;
  else if (['per', 'by', 'each', 'every'].includes(w(j))) j += 1;
  else return 0;
  const noun = r.lexicon.nouns.get(w(j));
  if (noun?.kind !== r.catalog.countries.kind || noun.sets) return 0;
  r.plan.byCountry = true;
  return j - i + 1;
}
