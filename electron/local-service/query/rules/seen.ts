import type { Reader } from '../reader';
import { DETERMINERS, isGrammarWord, isPlural, UNIT_KM } from '../words';

/** Words for photos as a subject ("photos showing cars"). */
const PHOTO_NOUNS = new Set(['photo', 'photos', 'picture', 'pictures', 'image', 'images', 'pic', 'pics', 'snapshot', 'snapshots']);
/** What joins photos to what they show: "photos showing / of / with cars", "photos that show people". */
const SHOWING = new Set(['showing', 'show', 'shows', 'of', 'with', 'containing', 'contain', 'contains', 'depicting', 'featuring']);
const RELATIVE = new Set(['that', 'which']);
/** What follows a class seen in photos: "benches seen near X", "cars spotted within 200 m of". */
const SEEN = new Set(['seen', 'spotted', 'visible', 'pictured', 'photographed', 'detected']);
/** Longest class phrase looked for, in words ("fire hydrant", "cell phone"). */
const MAX_CLASS_WORDS = 3;

/** A class of the detector named at i: its label and the tokens used, else null. */
function classAt(r: Reader, i: number): { label: string; len: number } | null {
  const classes = r.ctx.detections;
  if (!classes) return null;
  for (let n = MAX_CLASS_WORDS; n >= 1; n--) {
    const words = r.t.slice(i, i + n).map((x) => x.w);
    if (words.length < n || words.some((w) => !/^\p{L}/u.test(w))) continue;
    const label = classes.classOf(words);
    if (label) return { label, len: n };
  }
  return null;
}

/** Words at i that name something no rule reads (the thing photos were asked to show): tokens used. */
function thingAt(r: Reader, i: number): number {
  let j = i;
  while (r.t[j] && /^\p{L}/u.test(r.w(j)) && !isGrammarWord(r.w(j)) && !UNIT_KM[r.w(j)] && !SEEN.has(r.w(j)) && !r.lexicon.nouns.has(r.w(j))) j++;
  return j - i;
}

/** The subject read from tokens `from` to `to`: photos showing the class (null: the words name none the detector has). */
function setSeen(r: Reader, from: number, to: number, label: string | null, thing: string, plural: boolean): number {
  const { plan } = r;
  const said = r.said(from, to);
  if (plan.seen) {
    r.notRead(said, `a second subject: the question already asks for ${plan.seen.said}`);
    return to - from;
  }
  const classes = r.ctx.detections?.labels() ?? [];
  plan.seen = { label, said, plural, classes };
  r.subjectWordAt = to - 1;
  if (!r.ctx.detections) r.notRead(said, 'no photos here were looked at by a detector', 'subject');
  else if (label === null) r.notRead(thing, `the photo detector has no class for "${thing}"; it sees: ${classes.join(', ')}`, 'subject');
  return to - from;
}

/**
 * "photos showing cars and people": a second class after the first is not read (one class per
 * question; "and" would be dropped as filler and the answer narrowed silently). Tokens used.
 */
function another(r: Reader, i: number): number {
  if (r.w(i) !== 'and' && r.w(i) !== 'or') return 0;
  let j = i + 1;
  while (DETERMINERS.has(r.w(j))) j++;
  const cls = classAt(r, j);
  if (!cls) return 0;
  r.notRead(r.said(i, j + cls.len), 'one class of the detector per question: ask for each on its own');
  return j + cls.len - i;
}

/**
 * Photos by what the detector saw in them, as the subject: "photos showing cars", "photos of
 * people", "pictures that show a bus", "benches seen near X", "cars spotted within 200 m of my
 * sites". The class words are the detector's (its data), in the plural too.
 */
export function seenSubject(r: Reader, i: number): number {
  if (PHOTO_NOUNS.has(r.w(i))) {
    let j = i + 1;
    if (RELATIVE.has(r.w(j))) j++;
    if (!SHOWING.has(r.w(j))) return 0;
    j++;
    while (DETERMINERS.has(r.w(j))) j++;
    const cls = classAt(r, j);
    if (cls) return setSeen(r, i, j + cls.len, cls.label, r.said(j, j + cls.len), isPlural(r.w(i))) + another(r, j + cls.len);
    // "photos of Paris": a name, not a thing seen; the place is left to the rules of places.
    if (/^\p{Lu}/u.test(r.t[j]?.raw ?? '')) {
      r.notRead(r.said(i, j), 'photos are asked for by what the detector saw in them ("photos showing cars in Paris"); the imagery search finds photos by place');
      return j - i;
    }
    const len = thingAt(r, j);
    return len ? setSeen(r, i, j + len, null, r.said(j, j + len), isPlural(r.w(i))) : 0;
  }
  const cls = classAt(r, i);
  if (cls && SEEN.has(r.w(i + cls.len))) return setSeen(r, i, i + cls.len + 1, cls.label, r.said(i, i + cls.len), isPlural(r.w(i + cls.len - 1)));
  // "tanks seen near X": words before a word of seeing that name no class.
  const len = thingAt(r, i);
  if (len && len <= MAX_CLASS_WORDS && SEEN.has(r.w(i + len))) return setSeen(r, i, i + len + 1, null, r.said(i, i + len), isPlural(r.w(i + len - 1)));
  return 0;
}
