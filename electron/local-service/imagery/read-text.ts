import { foldText } from './geocoder';

/** A query word as the matchers take it: folded (no case, no diacritics). */
interface Word {
  folded: string;
}

/**
 * Query words shorter than this match text read in photos only as whole words; longer ones also
 * inside a glued run ("parking" in "NOPARKING"): short ones would be found in too many words.
 */
export const GLUED_MIN = 4;

const squeeze = (s: string) => foldText(s).replace(/[^\p{L}\p{N}]+/gu, '');
const tokens = (s: string) => foldText(s).split(/[^\p{L}\p{N}]+/u).filter(Boolean);

/**
 * Which query words (bit i = word i) the lines read in a photo hold. Signs are read with their
 * spaces lost or added ("NOPARKING", "Car Parks"), so case and spaces are ignored. The content
 * words (not places or numbers, which the photo's own address and date answer) match together or
 * not at all: several words must be found in a row, as one phrase ("Sports Centre" is not "the copy
 * centre"); one word anywhere in the text, whole when short.
 */
export function readTextMask(lines: readonly string[], words: readonly Word[], isPlace: (folded: string) => boolean = () => false): number {
  if (!lines.length) return 0;
  const content = words.map((w, i) => ({ w, i })).filter(({ w }) => !/^\d+$/.test(w.folded) && !isPlace(w.folded));
  if (!content.length) return 0;
  const all = content.reduce((m, { i }) => m | (1 << i), 0);
  if (content.length > 1) return squeeze(lines.join(' ')).includes(content.map(({ w }) => squeeze(w.folded)).join('')) ? all : 0;
  const word = squeeze(content[0]!.w.folded);
  if (!word) return 0;
  if (word.length >= GLUED_MIN) return lines.some((l) => squeeze(l).includes(word)) ? all : 0;
  return lines.some((l) => tokens(l).includes(word)) ? all : 0;
}

/** The lines that hold one of the words (case and spaces ignored, short words whole): shown with a search record. */
export function linesHolding(lines: readonly string[], words: readonly string[]): string[] {
  return lines.filter((l) =>
    words.some((w) => {
      const word = squeeze(w);
      return word && (word.length >= GLUED_MIN ? squeeze(l).includes(word) : tokens(l).includes(word));
    }),
  );
}
