import { foldLetters } from '../catalog/text';
import type { Slicer, UploadFeature } from '../uploads';
import { numericValue } from './source';
import { RULE_WORDS, SILENT, UNIT_KM } from './words';

/** A word that is a value of an uploaded column ("open" of status): the column and the value. */
export interface UploadValue {
  key: string;
  value: string;
}

/** Uploaded columns of numbers, by their folded one-word name: "by capacity" ranks by them. */
export async function uploadNumericWords(features: readonly UploadFeature[], slice?: Slicer): Promise<ReadonlyMap<string, string[]>> {
  // One pass over the rows, between slices: per column, whether every value so far is a number
  // (true), one is not (false), or none has a value yet (undefined).
  const numeric = new Map<string, boolean | undefined>();
  for (let i = 0; i < features.length; i++) {
    const attributes = features[i]!.attributes;
    for (const key in attributes) {
      const v = attributes[key];
      const was = numeric.get(key);
      if (was === false) continue;
      if (v === undefined || v === null || v === '') {
        if (!numeric.has(key)) numeric.set(key, undefined);
        continue;
      }
      numeric.set(key, Number.isFinite(numericValue(v)));
    }
    if ((i & 1023) === 1023 && slice?.due()) await slice.pause();
  }
  const out = new Map<string, string[]>();
  for (const [key, isNumeric] of numeric) {
    if (!isNumeric) continue;
    const word = foldLetters(key.trim());
    if (!/^\p{L}+$/u.test(word) || RULE_WORDS.has(word) || SILENT.has(word)) continue;
    out.set(word, [...(out.get(word) ?? []), key]);
  }
  return out;
}

/** Columns with more distinct values than this are names or ids, not categories. */
const MAX_DISTINCT = 50;

/**
 * The words of uploaded columns: each one-word text value of a column with few distinct values
 * ("open", "closed", "high"), by its folded spelling. A word two columns hold, or one the grammar
 * reads ("in", "within", "km"), is left out. A large upload is read between slices of `slice`.
 */
export async function uploadValueWords(features: readonly UploadFeature[], slice?: Slicer): Promise<ReadonlyMap<string, UploadValue>> {
  const perKey = new Map<string, Set<string>>();
  for (let i = 0; i < features.length; i++) {
    const attributes = features[i]!.attributes;
    for (const key in attributes) {
      const v = attributes[key];
      if (typeof v !== 'string') continue;
      let set = perKey.get(key);
      if (!set) perKey.set(key, (set = new Set()));
      if (set.size <= MAX_DISTINCT) set.add(v);
    }
    if ((i & 1023) === 1023 && slice?.due()) await slice.pause();
  }
  const out = new Map<string, UploadValue>();
  const taken = new Set<string>();
  for (const [key, values] of perKey) {
    if (values.size > MAX_DISTINCT) continue;
    for (const value of values) {
      const word = foldLetters(value.trim());
      if (!/^\p{L}[\p{L}\p{N}]*$/u.test(word) || word.length > 40 || SILENT.has(word) || RULE_WORDS.has(word) || UNIT_KM[word] !== undefined) continue;
      if (out.has(word) && out.get(word)!.key !== key) taken.add(word);
      else out.set(word, { key, value });
    }
  }
  for (const w of taken) out.delete(w);
  return out;
}
