import type { Reader } from '../reader';

/** Most words run together into one value. */
const isNameKey = (key: string) => key === 'name' || key.endsWith('_name') || key.startsWith('name:');
const MAX_WORDS = 4;

/**
 * "Do-It-Yourself stores", "ice cream shops": words before a head noun that, run together (or
 * joined by "_"), are a value of the key the head is read from (shop=doityourself,
 * shop=ice_cream), one some preset tags or a column lists: the subject is that value.
 */
export function joinedValue(r: Reader, i: number): number {
  const v = r.ctx.vocabulary;
  const { plan } = r;
  if (!v || plan.subject !== null || plan.layerSubject) return 0;
  for (let len = MAX_WORDS; len >= 2; len--) {
    const words = r.t.slice(i, i + len).map((x) => x.w);
    if (words.length < len || !words.every((x) => /^\p{L}+$/u.test(x))) continue;
    const head = r.selectionAt(i + len);
    if (!head) continue;
    // The head's key where a layer holds what it names; else ("stores" for a preset no layer
    // holds) any key some layer has whose value the words are.
    const keys = new Set(head.selection.sources.flatMap((s) => s.match?.map((m) => m[0]?.key ?? '') ?? ['']));
    if (keys.has('') || keys.size > 1) continue;
    // A name is no value of a kind of thing ("cool cat store" is not name=coolcat): names are read elsewhere.
    const candidates = keys.size ? [...keys] : [...new Set([...v.summaries.values()].flatMap((s) => s.columns.map((c) => c.key)))].filter((k) => !isNameKey(k));
    let key = '';
    let value: string | undefined;
    for (const k of candidates) {
      value = [words.join(''), words.join('_')].find((x) => v.knowsValue(k, x));
      if (value) {
        key = k;
        break;
      }
    }
    if (!value) continue;
    const said = r.said(i, i + len + head.len);
    const sel = v.tagSelection(key, [value], said);
    if (!sel.sources.length) continue;
    plan.layerSubject = { ...sel, label: said, reading: `${key}=${value}` };
    r.subjectWordAt = i + len + head.len - 1;
    r.warn('reading', `read "${said}" as ${key}=${value}`);
    return len + head.len;
  }
  return 0;
}
