/**
 * Letters NFD does not decompose, spelled as ASCII keyboards write them ("Lodz", "Tromso",
 * "Strasse"), so a name typed without them still matches.
 */
const FOLD: Record<string, string> = {
  ł: 'l', ø: 'o', ß: 'ss', æ: 'ae', œ: 'oe', đ: 'd', ð: 'd', þ: 'th', ı: 'i', ħ: 'h',
};
const FOLD_RE = new RegExp(`[${Object.keys(FOLD).join('')}]`, 'g');
const ASCII_RE = /^[ -~]*$/;

/** Lower case without accents and with the letters above spelled in ASCII. */
export function foldLetters(s: string): string {
  // Printable ASCII has nothing to decompose or spell out: only its case changes (most words asked).
  if (ASCII_RE.test(s)) return s.toLowerCase();
  return s.normalize('NFD').replace(/\p{M}+/gu, '').toLowerCase().replace(FOLD_RE, (c) => FOLD[c]!);
}

/** Lower-case, accents removed, punctuation collapsed: the one form names are matched in. */
export function normalizeName(s: string): string {
  return foldLetters(s)
    .replace(/['\u2019`]/g, '')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}
