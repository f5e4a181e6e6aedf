import { foldLetters } from '../catalog/text';
import type { Slicer, UploadFeature } from '../uploads';
import { numericValue } from './source';
import { POPULATION_WORDS, RULE_WORDS, SILENT, UNIT_KM } from './words';

/** A word that is a value of an uploaded column ("open" of status): the column and the value. */
export interface UploadValue {
  key: string;
  value: string;
}

/** Columns with more distinct values than this are names or ids, not categories. */
const MAX_DISTINCT = 50;

/** What the reader learns from uploaded columns (see `uploadWords`). */
export interface UploadWords {
  /** One-word text values of category columns ("open" of status), by folded spelling. */
  values: ReadonlyMap<string, UploadValue>;
  /** Columns holding only numbers, by their folded one-word name: "by capacity" ranks by them. */
  numeric: ReadonlyMap<string, string[]>;
}

/**
 * The words of uploaded columns, in one pass over the rows between slices of `slice` (a large
 * upload is otherwise read in one go). A value word is a one-word text value of a column with few
 * distinct values ("open", "closed", "high"); a word two columns hold, or one the grammar reads
 * ("in", "within", "km"), is left out. A numeric column has a value in some row and only numbers.
 */
export async function uploadWords(features: readonly UploadFeature[], slice?: Slicer): Promise<UploadWords> {
  const perKey = new Map<string, Set<string>>();
  // Per column: every value so far a number (true), one is not (false), none yet (undefined).
  const isNumeric = new Map<string, boolean | undefined>();
  for (let i = 0; i < features.length; i++) {
    const attributes = features[i]!.attributes;
    for (const key in attributes) {
      const v = attributes[key];
      if (typeof v === 'string') {
        let set = perKey.get(key);
        if (!set) perKey.set(key, (set = new Set()));
        if (set.size <= MAX_DISTINCT) set.add(v);
      }
      if (isNumeric.get(key) === false) continue;
      if (v === undefined || v === null || v === '') {
        if (!isNumeric.has(key)) isNumeric.set(key, undefined);
      } else isNumeric.set(key, Number.isFinite(numericValue(v)));
    }
    if ((i & 1023) === 1023 && slice?.due()) await slice.pause();
  }

  const values = new Map<string, UploadValue>();
  const taken = new Set<string>();
  for (const [key, seen] of perKey) {
    if (seen.size > MAX_DISTINCT) continue;
    for (const value of seen) {
      const word = foldLetters(value.trim());
      if (!/^\p{L}[\p{L}\p{N}]*$/u.test(word) || word.length > 40 || SILENT.has(word) || RULE_WORDS.has(word) || UNIT_KM[word] !== undefined) continue;
      if (values.has(word) && values.get(word)!.key !== key) taken.add(word);
      else values.set(word, { key, value });
    }
  }
  for (const w of taken) values.delete(w);

  const numeric = new Map<string, string[]>();
  for (const [key, yes] of isNumeric) {
    if (!yes) continue;
    const word = foldLetters(key.trim());
    // A population column is kept: "over 1000 inhabitants" reads it (the words are otherwise silent).
    if (!/^\p{L}+$/u.test(word) || RULE_WORDS.has(word) || (SILENT.has(word) && !POPULATION_WORDS.includes(word))) continue;
    numeric.set(word, [...(numeric.get(word) ?? []), key]);
  }
  return { values, numeric };
}
