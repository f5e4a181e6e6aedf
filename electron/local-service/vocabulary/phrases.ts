import { normalizeName } from '../catalog/text';

/** A phrase as the vocabulary keys it: normalized words joined by one space. */
export const phraseKey = (text: string): string => normalizeName(text);

/**
 * Singular forms an English plural may stand for, most likely first ("pharmacies" -> "pharmacy",
 * "churches" -> "church", "shops" -> "shop"); the word itself comes first.
 */
export function singularForms(word: string): string[] {
  const out = [word];
  if (word.length < 4) return out;
  if (word.endsWith('ies')) out.push(word.slice(0, -3) + 'y');
  if (/(?:s|x|z|ch|sh)es$/.test(word)) out.push(word.slice(0, -2));
  if (word.endsWith('s') && !word.endsWith('ss')) out.push(word.slice(0, -1));
  return out;
}

/** Whether a word is written as a plural ("nearest pharmacies" ranks them all). */
export const looksPlural = (word: string): boolean => singularForms(word).length > 1;
