import type { Catalog } from '../catalog/catalog';
import { MULTIPLIER, NUMBER_WORDS, RULE_WORDS, SILENT, UNIT_KM, UPLOAD_NOUNS } from './words';

/**
 * Close readings of misspelt words: a word one edit (a letter added, dropped, changed, or two
 * letters swapped) from a word the reader knows. Only words a first reading could not use are
 * corrected, and each correction is said in a warning ("read "Swtizerland" as "Switzerland"").
 */

/** Words of the reading rules that no other list holds. */
const RULE_ONLY = [
  'nearest', 'closest', 'farthest', 'furthest', 'distant', 'remote', 'between', 'beyond', 'further', 'farther', 'away',
  'around', 'near', 'nearby', 'within', 'inside', 'outside', 'along', 'crossing', 'intersecting', 'nautical', 'largest',
  'biggest', 'smallest', 'populous', 'populated', 'capita', 'density', 'sorted', 'distance', 'proximity', 'greater',
  'exceeding', 'operated', 'wheelchair', 'accessible', 'sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday',
  'saturday', 'million', 'thousand', 'closer', 'nearer', 'please', 'which', 'would', 'could', 'should', 'there',
];

/** Big enough for a name to be a likely meaning of a typo: smaller towns are not guessed. */
const MIN_CITY_POPULATION = 100_000;
const MIN_LENGTH = 4;

export interface TypoReader {
  /** The known word one edit from `word` (folded letters only), grammar before places; else null. */
  correct(word: string): string | null;
}

/** Built once per catalog: the grammar's words, the kinds' nouns, country names and large cities. */
export function createTypoReader(catalog: Catalog): TypoReader {
  const grammar = new Set<string>([
    ...SILENT, ...RULE_WORDS, ...Object.keys(UNIT_KM), ...Object.keys(MULTIPLIER), ...Object.keys(NUMBER_WORDS), ...UPLOAD_NOUNS, ...RULE_ONLY,
    ...catalog.kinds.lexicon.nouns.keys(), ...catalog.kinds.lexicon.adjectives.keys(),
  ]);
  const places = new Set<string>();
  for (const k of catalog.countryByName.keys()) if (!k.includes(' ')) places.add(k);
  for (const k of catalog.countryByDemonym.keys()) if (!k.includes(' ')) places.add(k);
  for (const [k, ids] of catalog.cityByName) {
    if (k.includes(' ')) continue;
    const top = ids[0];
    if (top !== undefined && catalog.cities.pop[top]! >= MIN_CITY_POPULATION) places.add(k);
  }
  // The first edit that gives a known word, in the order of edits (two letters swapped first).
  const find = (word: string, set: Set<string>): string | null => {
    for (const v of edits(word)) if (set.has(v)) return v;
    return null;
  };
  return {
    correct(word) {
      if (word.length < MIN_LENGTH || !/^[a-z]+$/.test(word) || grammar.has(word) || places.has(word)) return null;
      return find(word, grammar) ?? find(word, places);
    },
  };
}

const LETTERS = 'abcdefghijklmnopqrstuvwxyz';

/** Every word one edit away: swaps first (the commonest typo), then drops, changes and additions. */
function* edits(w: string): Generator<string> {
  for (let i = 0; i + 1 < w.length; i++) yield w.slice(0, i) + w[i + 1] + w[i] + w.slice(i + 2);
  for (let i = 0; i < w.length; i++) yield w.slice(0, i) + w.slice(i + 1);
  for (let i = 0; i < w.length; i++) for (const c of LETTERS) if (c !== w[i]) yield w.slice(0, i) + c + w.slice(i + 1);
  for (let i = 0; i <= w.length; i++) for (const c of LETTERS) yield w.slice(0, i) + c + w.slice(i);
}
