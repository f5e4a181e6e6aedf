import { foldLetters } from '../catalog/text';
import { MAX_DISTINCT } from '../upload/column-stats';
import type { UploadSet } from '../uploads';
import { POPULATION_WORDS, RULE_WORDS, SILENT, UNIT_KM } from './words';

/** A word that is a value of an uploaded column ("open" of status): the column and the value. */
export interface UploadValue {
  key: string;
  value: string;
}

/** What the reader learns from uploaded columns (see `uploadWords`). */
export interface UploadWords {
  /** One-word text values of category columns ("open" of status), by folded spelling. */
  values: ReadonlyMap<string, UploadValue>;
  /** Columns holding only numbers, by their folded one-word name: "by capacity" ranks by them. */
  numeric: ReadonlyMap<string, string[]>;
}

/**
 * The words of uploaded columns, from what was gathered of them as the files were read (columns
 * with more than MAX_DISTINCT values are names or ids, not categories). A value word is a one-word text value of a column with few
 * distinct values ("open", "closed", "high"); a word two columns hold, or one the grammar reads
 * ("in", "within", "km"), is left out. A numeric column has a value in some row and only numbers.
 */
export async function uploadWords(features: UploadSet): Promise<UploadWords> {
  const columns = features.stats().states();
  const perKey = new Map(columns.flatMap((c) => (c.texts ? [[c.key, c.texts] as const] : [])));
  // Per column: every value a number (true), one is not (false), none filled (undefined).
  const isNumeric = new Map(columns.map((c) => [c.key, c.nonNumeric ? false : c.filled ? true : undefined]));

  const values = new Map<string, UploadValue>();
  const taken = new Set<string>();
  for (const [key, seen] of perKey) {
    if (seen.length > MAX_DISTINCT) continue;
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
