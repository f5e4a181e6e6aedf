import { phraseKey, singularForms } from '../../vocabulary/phrases';
import type { LayerSummary } from '../../layers/store/layer-store';
import { narrowSelection, type Selection } from '../../vocabulary/vocabulary';
import type { Condition } from '../plan';
import type { Reader } from '../reader';
import { UPLOAD_NOUNS } from '../words';

/**
 * Conditions written as tags or about tags: OSM tag syntax ("amenity=bench", "highway!=footway",
 * "tagged shop=bakery", "with the attribute railway having the value disused", "with a wikidata
 * tag", "admin level 8"), names ("named X", "name starts with X"), absence and negation ("without
 * a website", "unnamed", "not footways") and element types ("nodes", "ways", "polygons").
 */

/** A tag key or value written as one word ("admin_level", "addr:street", "village_green") at i: [text, tokens], else null. */
function tagWordAt(r: Reader, i: number): [string, number] | null {
  const t = r.t[i];
  if (!t || !/^[\p{L}\p{N}]/u.test(t.raw)) return null;
  let text = t.raw;
  let j = i + 1;
  for (; r.t[j]?.joined; j++) text += r.t[j]!.joined! + r.t[j]!.raw;
  return [text, j - i];
}

/** A key some layer has, written as one or as words ("opening hours" for opening_hours) at i: [key, tokens], else null. */
function heldKeyAt(r: Reader, i: number): [string, number] | null {
  const v = r.ctx.vocabulary;
  if (!v) return null;
  const one = tagWordAt(r, i);
  if (one && v.hasKey(one[0].toLowerCase())) return [one[0].toLowerCase(), one[1]];
  for (let len = 3; len >= 2; len--) {
    const words = r.t.slice(i, i + len);
    if (words.length < len || words.some((x) => !/^[\p{L}]+$/u.test(x.w))) continue;
    const key = words.map((x) => x.w).join('_');
    if (v.hasKey(key)) return [key, len];
    // "house numbers": addr:housenumber, the words run together as the key's last part is written.
    const joined = singularForms(words.map((x) => x.w).join(''));
    const byPart = keysByLastPart(v.summaries);
    const found = byPart.get(joined.at(-1)!) ?? byPart.get(joined[0]!);
    if (found) return [found, len];
  }
  return null;
}

/**
 * Held keys with a namespace ("addr:housenumber"), by their last part with "_" removed; one key per
 * part. Kept per vocabulary (its summaries are rebuilt when layers change): every token of every
 * question would otherwise scan every column of every layer.
 */
const lastParts = new WeakMap<ReadonlyMap<string, LayerSummary>, Map<string, string>>();
function keysByLastPart(summaries: ReadonlyMap<string, LayerSummary>): Map<string, string> {
  let out = lastParts.get(summaries);
  if (out) return out;
  out = new Map<string, string>();
  for (const s of summaries.values())
    for (const c of s.columns) {
      if (!c.key.includes(':')) continue;
      const part = c.key.split(':').at(-1)!.replace(/_/g, '');
      if (part.length >= 6 && !out.has(part)) out.set(part, c.key);
    }
  lastParts.set(summaries, out);
  return out;
}

/**
 * "house numbers in Ismaning": a key said in words, with nothing else as the subject, names the
 * features that have it. Only keys of two or three words: one word is a vocabulary phrase.
 */
export function keyPhrase(r: Reader, i: number): number {
  if (r.plan.subject !== null || r.plan.layerSubject) return 0;
  const held = heldKeyAt(r, i);
  if (!held || held[1] < 2) return 0;
  const sel = r.selectionAt(i);
  if (sel && sel.len >= held[1]) return 0;
  return push(r, { type: 'present', key: held[0], label: `with ${held[0]}` }, held[1]);
}

const push = (r: Reader, c: Condition, used: number) => {
  r.plan.conditions.push(c);
  r.tagWords.push(c);
  return used;
};

/**
 * "amenity=bench", "highway != footway", "tagged shop=bakery", "tagged wikidata", "with the
 * attribute K having the value V", "with a wikidata tag", "admin level 8" (a column some layer
 * has, then a figure): tag tests, as written.
 */
export function tagCondition(r: Reader, i: number): number {
  const { w } = r;
  let j = i;
  const tagged = ['tagged', 'tag', 'tags', 'attribute', 'attributes', 'key'].includes(w(j));
  if (tagged) j++;
  while (['the', 'a', 'an'].includes(w(j))) j++;
  const k = tagWordAt(r, j);
  if (!k) return 0;
  const key = k[0].toLowerCase();
  let at = j + k[1];
  if (w(at) === '=' || w(at) === '!=') {
    // "highway=*": any value; "highway!=*": none.
    if (w(at + 1) === '*')
      return push(r, w(at) === '=' ? { type: 'present', key, label: `${key}=*` } : { type: 'absent', key, label: `${key}!=*` }, at + 2 - i);
    const v = tagWordAt(r, at + 1);
    if (!v) return 0;
    const value = v[0];
    const used = at + 1 + v[1] - i;
    if (w(at) === '!=') return push(r, { type: 'not_match', match: [[{ key, values: [value] }]], label: `${key}!=${value}` }, used);
    return push(r, { type: 'equals', key, values: [value.toLowerCase()], label: `${key}=${value}` }, used);
  }
  // "with the attribute railway having a value disused", "tag shop with value bakery".
  if (tagged) {
    const before = at;
    while (['having', 'with', 'of', 'and', 'whose', 'where', 'the', 'a', 'an'].includes(w(at))) at++;
    if (w(at) === 'value' || w(at) === 'values') {
      at++;
      while (['of', 'is', '=', 'set', 'to'].includes(w(at))) at++;
      const v = tagWordAt(r, at);
      if (!v) return 0;
      return push(r, { type: 'equals', key, values: [v[0].toLowerCase()], label: `${key}=${v[0]}` }, at + v[1] - i);
    }
    // "tagged wikidata", "with the attribute wikidata": the key is there.
    return push(r, { type: 'present', key, label: `with a ${key} tag` }, before - i);
  }
  // "with a wikidata tag", "with the key wikidata".
  if (w(at) === 'tag' || w(at) === 'key' || w(at) === 'attribute') return push(r, { type: 'present', key, label: `with a ${key} tag` }, at + 1 - i);
  // "admin level 8": a column some layer has, then a figure.
  // "maxspeed of 60", "voltage 225000", "admin level 10 or 8": figures, as written.
  const held = heldKeyAt(r, i);
  if (!held) return 0;
  at = i + held[1];
  if (w(at) === 'of' || w(at) === 'is') at++;
  const values: string[] = [];
  while (/^\d+(\.\d+)?$/.test(w(at))) {
    values.push(w(at++));
    // "admin level 10 or 8", "admin level 8 and 9": either figure (one tag holds one value).
    if ([',', 'or', 'and'].includes(w(at)) && /^\d+(\.\d+)?$/.test(w(at + 1))) at++;
    else break;
  }
  // A unit after the figure ("maxspeed of 60 mph") is another value than the bare figure: left unread.
  if (!values.length || /^\p{L}/u.test(w(at)) && r.distanceUnit(at)) return 0;
  return push(r, { type: 'equals', key: held[0], values, label: `${held[0]}=${values.join('|')}`, inWords: true }, at - i);
}

/** Where a name in the question ends: a comma or a word that starts another part of it. */
const NAME_ENDS = new Set([
  ',', 'in', 'within', 'near', 'around', 'along', 'outside', 'inside', 'that', 'which', 'where', 'with', 'without', 'and', 'or',
  'sorted', 'order', 'open', 'nearest', 'closest', 'between', 'is', 'are',
]);

/** "named X", "called X", "with the name X", "whose name is X", "name contains X", "name starts with X": the name tag. */
export function nameCondition(r: Reader, i: number): number {
  const { w } = r;
  // "in the area with the name X" names a place, not the subject's name: left to be refused.
  let back = i - 1;
  while (['with', 'the', 'a'].includes(w(back))) back--;
  if (['area', 'areas', 'region', 'boundary'].includes(w(back)) || (w(back) === 'are' && w(back - 1) === 'in')) return 0;
  let j = i;
  let mode: 'is' | 'starts' | 'contains' = 'is';
  if (w(j) === 'named' || w(j) === 'called') j++;
  else if (w(j) === 'name' || w(j) === 'names') {
    j++;
    if (['is', '=', 'equals', 'of'].includes(w(j))) j++;
    else if (['contains', 'containing', 'includes', 'including', 'matching', 'matches', 'like'].includes(w(j))) {
      mode = 'contains';
      j++;
    } else if (['starts', 'starting', 'begins', 'beginning'].includes(w(j)) && w(j + 1) === 'with') {
      mode = 'starts';
      j += 2;
    }
    // "with the name Fulerum": a name follows when it is written with a capital.
    else if (!/^\p{Lu}/u.test(r.t[j]?.raw ?? '')) return 0;
  } else return 0;
  const start = j;
  while (r.t[j] && !NAME_ENDS.has(w(j))) j++;
  if (j === start) return 0;
  const text = r.said(start, j);
  const label = mode === 'is' ? `named "${text}"` : mode === 'starts' ? `name starts with "${text}"` : `name contains "${text}"`;
  return push(r, { type: 'text', key: 'name', text: phraseKey(text), mode, label }, j - i);
}

/**
 * "without a website", "with no wikidata", "no name", "unnamed": the tag is not there; "not
 * footways", "that are not busbars", "without highway=footway": not those features. What follows
 * the negation must be a column some layer has or a phrase of the vocabulary, else it is not read.
 */
export function absence(r: Reader, i: number): number {
  const { w } = r;
  if (w(i) === 'unnamed' || w(i) === 'nameless') return push(r, { type: 'absent', key: 'name', label: 'without a name' }, 1);
  let j = i;
  if (w(j) === 'without' || w(j) === 'lacking' || w(j) === 'missing') j++;
  else if (w(j) === 'with' && w(j + 1) === 'no') j += 2;
  else if (w(j) === 'no' || w(j) === 'not' || w(j) === 'arent' || w(j) === 'isnt') j++;
  else return 0;
  // "not tagged as a stop position", "not marked as private".
  if (['tagged', 'marked', 'mapped', 'labelled', 'labeled'].includes(w(j)) && w(j + 1) === 'as') j += 2;
  while (['a', 'an', 'the', 'any', '"'].includes(w(j))) j++;
  // "without highway=footway"
  const k = tagWordAt(r, j);
  if (k && w(j + k[1]) === '=') {
    const v = tagWordAt(r, j + k[1] + 1);
    if (!v) return 0;
    const key = k[0].toLowerCase();
    return push(r, { type: 'not_match', match: [[{ key, values: [v[0]] }]], label: `not ${key}=${v[0]}` }, j + k[1] + 1 + v[1] - i);
  }
  const held = heldKeyAt(r, j) ?? (w(j) === 'name' || w(j) === 'names' ? (['name', 1] as [string, number]) : null);
  const sel = r.selectionAt(j);
  // A phrase longer than the key is the thing meant ("no parking spaces" beside a key "parking").
  if (held && !(sel && sel.len > held[1])) {
    const tagWord = ['tag', 'key', 'attribute'].includes(w(j + held[1])) ? 1 : 0;
    return push(r, { type: 'absent', key: held[0], label: `without ${held[0]}` }, j + held[1] + tagWord - i);
  }
  if (!sel || !sel.selection.sources.length || sel.selection.sources.some((s) => !s.match?.length)) return 0;
  // Each tagging by its last test, the one it is named after (Protected Area: boundary=protected_area,
  // not also type=boundary): excluding more than was said leaves the answer narrower, never wider.
  const match = sel.selection.sources.flatMap((s) => s.match!.map((m) => m.slice(-1)));
  return push(r, { type: 'not_match', match, label: `not ${sel.selection.said} (${sel.selection.reading})`, phrase: true }, j + sel.len - i);
}

const isNameKey = (key: string) => key === 'name' || key.endsWith('_name') || key.startsWith('name:');

/**
 * "places called X that are not schools", "Y which is not a platform": with no subject but names
 * or "features", the things a phrase's negation sets apart are those of the same key, so the
 * answer keeps the features that have the key with another value (landuse, but not
 * landuse=school), and says so. A kind or a preset as the subject keeps the plain negation.
 */
export function negatedAmongKey(r: Reader): void {
  const { plan } = r;
  if (plan.subject !== null || plan.seen || r.ctx.fileNames.length || r.ctx.savedSubject !== undefined) return;
  const subjectKeys = plan.layerSubject?.sources.flatMap((s) => s.match?.flatMap((m) => m.map((c) => c.key)) ?? ['*']) ?? [];
  if (!plan.impliedSubject && !subjectKeys.every(isNameKey)) return;
  // "ways that are not platforms": the element type is the subject.
  if (plan.conditions.some((c) => c.type === 'element' || c.type === 'shape')) return;
  for (const c of [...plan.conditions]) {
    if (c.type !== 'not_match' || !c.phrase) continue;
    const keys = new Set(c.match.flatMap((m) => m.map((x) => x.key)));
    if (keys.size !== 1) continue;
    const key = [...keys][0]!;
    if (plan.conditions.some((x) => (x.type === 'present' || x.type === 'equals') && x.key === key)) continue;
    plan.conditions.push({ type: 'present', key, label: `with ${key}` });
    r.warn('reading', `read "${c.label}" as features with ${key}, other than those`);
  }
}

/**
 * "with a name", "with a website", "that have a wikidata tag", "having opening hours": the tag is
 * there. What follows must be a key some layer has (or "name"); a phrase of the vocabulary longer
 * than the key is the thing meant ("with a parking lot") and is left to the other rules.
 */
export function presence(r: Reader, i: number): number {
  const { w } = r;
  let j = i;
  if (['with', 'has', 'have', 'having'].includes(w(j))) j++;
  else return 0;
  while (['a', 'an', 'the', 'any', 'some'].includes(w(j))) j++;
  const held = heldKeyAt(r, j) ?? (w(j) === 'name' ? (['name', 1] as [string, number]) : null);
  if (!held) return 0;
  const sel = r.selectionAt(j);
  if (sel && sel.len > held[1]) return 0;
  // "with a name matching X", "with the name Fulerum": the name's text (nameCondition), not its presence.
  if (held[0] === 'name' && (NAME_FOLLOWS.has(w(j + 1)) || /^\p{Lu}/u.test(r.t[j + 1]?.raw ?? ''))) return 0;
  // "with maxspeed of 60", "with voltage 225000": a value follows, read at the key (tagCondition).
  const after = w(j + held[1]);
  if (after === 'of' || after === 'is' || after === '=' || after === '!=' || /^\d/.test(after)) return 0;
  const tagWord = ['tag', 'key', 'attribute', 'set', 'entry', 'value'].includes(after) ? 1 : 0;
  const used = push(r, { type: 'present', key: held[0], label: held[0] === 'name' ? 'with a name' : `with ${held[0]}` }, j + held[1] + tagWord - i);
  // "with hgv", "with tactile paving": a key some layer holds as "no" is not had where it says no.
  if (saysNo(r, held[0])) r.plan.conditions.push({ type: 'not_match', match: [[{ key: held[0], values: [NO] }]], label: `not ${held[0]}=${NO}` });
  return used;
}

const NO = 'no';
/** Whether a layer's column of this key holds the value "no". */
const saysNo = (r: Reader, key: string) =>
  [...(r.ctx.vocabulary?.summaries.values() ?? [])].some((s) => s.columns.some((c) => c.key === key && c.values?.includes(NO)));

/** Words after "name" that make it the name's text, not its presence. */
const NAME_FOLLOWS = new Set(['is', '=', 'equals', 'of', 'contains', 'containing', 'includes', 'including', 'matching', 'matches', 'like', 'starts', 'starting', 'begins', 'beginning']);

/**
 * "places marked as city", "roads tagged as service", "tagged as \"living_street\"": the phrase after
 * "as" narrows the subject read so far, or is the subject when there is none yet.
 */
export function taggedAs(r: Reader, i: number): number {
  const { w, plan } = r;
  if (!['tagged', 'marked', 'mapped', 'labelled', 'labeled', 'classified'].includes(w(i)) || w(i + 1) !== 'as') return 0;
  let j = i + 2;
  while (['a', 'an', 'the', '"'].includes(w(j))) j++;
  const v = r.ctx.vocabulary;
  if (!v) return 0;
  // After "as" a word is a value even when grammar reads it elsewhere ("marked as city").
  const raw = v.at(r.t.map((x) => x.w), j);
  const m = r.phraseAt(j) ?? (raw && { ...raw, selection: { ...raw.selection, said: r.said(j, j + raw.len) } });
  if (!m) return 0;
  let end = j + m.len;
  if (w(end) === '"') end++;
  if (m.unread) r.notRead(m.unread.words, m.unread.why, 'subject');
  if (plan.layerSubject) {
    const narrowed = narrowSelection(plan.layerSubject, m.selection, v.summaries, `${plan.layerSubject.said} ${r.said(i, end)}`);
    // "roads tagged as service": the tag names which of them, on the key the subject is read from.
    const keys = (x: Selection) => new Set(x.sources.flatMap((s) => s.match?.flatMap((t) => t.map((c) => c.key)) ?? []));
    const subjectKeys = keys(plan.layerSubject);
    const sameKey = m.selection.sources.length > 0 && [...keys(m.selection)].every((k) => subjectKeys.has(k));
    if (narrowed.sources.length) plan.layerSubject = narrowed;
    else if (sameKey) {
      r.warn('reading', `read "${plan.layerSubject.said} ${r.said(i, end)}" as ${m.selection.reading}`);
      plan.layerSubject = { ...m.selection, said: `${plan.layerSubject.said} ${r.said(i, end)}`, plural: plan.layerSubject.plural };
    } else r.notRead(r.said(i, end), `no layer holds ${plan.layerSubject.said} that are ${m.selection.reading}`);
  } else if (plan.subject === null) {
    plan.layerSubject = m.selection;
    r.subjectWordAt = end - 1;
  } else return 0;
  return end - i;
}

const ELEMENTS: Record<string, 'node' | 'way' | 'relation'> = {
  node: 'node', nodes: 'node', way: 'way', ways: 'way', relation: 'relation', relations: 'relation',
};
/** Words for features of any type ("places with a house number"): read as no filter, and said so. */
const ANY_ELEMENT = new Set(['features', 'elements', 'objects', 'entities', 'feature', 'element', 'object', 'places', 'locations', 'things']);

/**
 * "nodes", "ways and relations": OSM element types, tested on the source id (else the geometry);
 * "polygons" and "multipolygons": the geometry; "features", "elements", "objects": no filter.
 */
export function elementWord(r: Reader, i: number): number {
  const { w } = r;
  const word = w(i);
  // A longer phrase of the vocabulary starting here is the thing meant.
  if ((r.selectionAt(i)?.len ?? 0) > 1) return 0;
  if (ANY_ELEMENT.has(word)) {
    if (r.ctx.fileNames.length && UPLOAD_NOUNS.has(word)) return 0;
    r.warn('reading', `read "${r.t[i]!.raw}" as features of any type (no filter)`);
    return 1;
  }
  if (word === 'polygons' || word === 'polygon' || word === 'multipolygons' || word === 'multipolygon') {
    if (r.ctx.fileNames.length && w(i - 1) === 'my') return 0;
    return push(r, { type: 'shape', shapes: ['area'], label: 'polygons (by geometry)' }, 1);
  }
  if (!ELEMENTS[word] || !r.ctx.vocabulary) return 0;
  // "one way", "on the way to": no element type.
  if (word === 'way' && (w(i - 1) === 'one' || w(i + 1) === 'to' || w(i - 1) === 'the')) return 0;
  const elements = [ELEMENTS[word]!];
  let j = i + 1;
  while ([',', 'and', 'or'].includes(w(j)) && ELEMENTS[w(j + 1)]) {
    elements.push(ELEMENTS[w(j + 1)]!);
    j += 2;
  }
  const label = `${[...new Set(elements)].map((e) => `${e}s`).join(' or ')} (OSM element type)`;
  return push(r, { type: 'element', elements: [...new Set(elements)], label }, j - i);
}
