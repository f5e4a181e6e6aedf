import { narrowSelection } from '../../vocabulary/vocabulary';
import type { Reader } from '../reader';

/**
 * What a place sells or is for, said in words: "gas stations selling octane 80 fuel" or "offering
 * LPG" (a key some layer holds under a namespace: fuel:octane_80, fuel:lpg), "shops for hearing
 * aids" or "an office for a lawyer" (a value of the key the subject was read from:
 * shop=hearing_aids, office=lawyer). Keys and values come from the layers and the presets.
 */

const SELLS = new Set(['selling', 'sells', 'sell', 'offering', 'offers', 'offer', 'providing', 'provides', 'serving', 'serves']);
const ARTICLES = new Set(['a', 'an', 'the', 'some']);
/** Most words a sold thing or a value is said in. */
const MAX_WORDS = 3;

/** The words from i (up to MAX_WORDS) as letters and figures only, [text, tokens] from longest. */
function wordRuns(r: Reader, i: number): [string[], number][] {
  const out: [string[], number][] = [];
  for (let len = MAX_WORDS; len >= 1; len--) {
    const words = r.t.slice(i, i + len).map((x) => x.w);
    if (words.length === len && words.every((x) => /^[\p{L}\p{N}]+$/u.test(x))) out.push([words, len]);
  }
  return out;
}

/** "selling octane 80 fuel", "offering LPG": a held key NS:WORDS (values yes), the namespace said after it or not. */
export function sellsCondition(r: Reader, i: number): number {
  const v = r.ctx.vocabulary;
  if (!v || !SELLS.has(r.w(i))) return 0;
  let j = i + 1;
  while (ARTICLES.has(r.w(j))) j++;
  for (const [words, len] of wordRuns(r, j)) {
    const part = words.join('_');
    for (const s of v.summaries.values())
      for (const c of s.columns) {
        const [ns, rest] = c.key.split(/:(.*)/s) as [string, string | undefined];
        if (rest !== part || (c.values && !c.values.includes('yes'))) continue;
        // "octane 80 fuel": the namespace said after the words is theirs.
        const end = j + len + (r.w(j + len) === ns ? 1 : 0);
        r.plan.conditions.push({ type: 'equals', key: c.key, values: ['yes'], label: `${c.key}=yes` });
        r.warn('reading', `read "${r.said(i, end)}" as ${c.key}=yes`);
        return end - i;
      }
  }
  return 0;
}

/** "shops for hearing aids", "an office for a lawyer": a value of the key the subject names (shop=*, office=*). */
export function forValue(r: Reader, i: number): number {
  const v = r.ctx.vocabulary;
  const subject = r.plan.layerSubject;
  if (!v || r.w(i) !== 'for' || !subject?.sources.length) return 0;
  const keys = new Set(subject.sources.flatMap((s) => s.match?.flatMap((m) => (m.length === 1 && !m[0]!.values ? [m[0]!.key] : ['']))) ?? ['']);
  if (keys.size !== 1 || keys.has('')) return 0;
  const key = [...keys][0]!;
  let j = i + 1;
  while (ARTICLES.has(r.w(j))) j++;
  for (const [words, len] of wordRuns(r, j)) {
    const value = words.join('_');
    if (!v.knowsValue(key, value)) continue;
    const said = `${subject.said} ${r.said(i, j + len)}`;
    const narrowed = narrowSelection(subject, v.tagSelection(key, [value], said), v.summaries, said);
    if (!narrowed.sources.length) continue;
    r.plan.layerSubject = { ...narrowed, label: said, reading: `${key}=${value}` };
    r.warn('reading', `read "${said}" as ${key}=${value}`);
    return j + len - i;
  }
  return 0;
}
