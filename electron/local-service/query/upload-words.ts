import { foldLetters } from '../catalog/text';
import type { UploadFeature } from '../uploads';
import { numericValue } from './source';
import { RULE_WORDS, SILENT, UNIT_KM } from './words';

/** A word that is a value of an uploaded column ("open" of status): the column and the value. */
export interface UploadValue {
  key: string;
  value: string;
}

/** Uploaded columns of numbers, by their folded one-word name: "by capacity" ranks by them. */
export function uploadNumericWords(features: readonly UploadFeature[]): ReadonlyMap<string, string[]> {
  const out = new Map<string, string[]>();
  const keys = new Set(features.flatMap((f) => Object.keys(f.attributes)));
  for (const key of keys) {
    const word = foldLetters(key.trim());
    if (!/^\p{L}+$/u.test(word) || RULE_WORDS.has(word) || SILENT.has(word)) continue;
    const values = features.map((f) => f.attributes[key]).filter((v) => v !== undefined && v !== null && v !== '');
    if (values.length && values.every((v) => Number.isFinite(numericValue(v)))) out.set(word, [...(out.get(word) ?? []), key]);
  }
  return out;
}

/** Columns with more distinct values than this are names or ids, not categories. */
const MAX_DISTINCT = 50;

/**
 * The words of uploaded columns: each one-word text value of a column with few distinct values
 * ("open", "closed", "high"), by its folded spelling. A word two columns hold, or one the grammar
 * reads ("in", "within", "km"), is left out.
 */
export function uploadValueWords(features: readonly UploadFeature[]): ReadonlyMap<string, UploadValue> {
  const perKey = new Map<string, Set<string>>();
  for (const f of features)
    for (const [key, v] of Object.entries(f.attributes)) {
      if (typeof v !== 'string') continue;
      let set = perKey.get(key);
      if (!set) perKey.set(key, (set = new Set()));
      if (set.size <= MAX_DISTINCT) set.add(v);
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
