import { UPLOADS } from '../../catalog/kinds/uploads';
import type { Reader } from '../reader';
import type { Reference } from '../plan';
import { narrowSelection, sourcesText, type Selection, type Source } from '../../vocabulary/vocabulary';

/** Metres either side of a line that "along" covers when the question gives no distance. */
export const ALONG_M = 50;

/** A subject from the layer vocabulary ("pharmacies", "fire stations", "Starbucks", "districts"). */
export function layerSubject(r: Reader, i: number): number {
  const { plan } = r;
  if (plan.subject !== null || plan.layerSubject) return 0;
  const m = r.phraseAt(i);
  if (!m) return 0;
  if (m.unread) r.notRead(m.unread.words, m.unread.why, 'subject');
  // "hospitals, police stations and supermarkets", "piers or parking spots": features of any of them.
  const parts = [m.selection];
  const starts = [i];
  let len = m.len;
  for (;;) {
    let j = i + len;
    const comma = r.w(j) === ',';
    if (comma) j++;
    const joined = r.w(j) === 'and' || r.w(j) === 'or';
    if (joined) j++;
    if (!comma && !joined) break;
    while (['a', 'an', 'the', 'any', 'all'].includes(r.w(j))) j++;
    const next = r.phraseAt(j);
    if (!next) break;
    if (next.unread) r.notRead(next.unread.words, next.unread.why, 'subject');
    parts.push(next.selection);
    starts.push(j);
    len = j + next.len - i;
    if (joined && !comma && r.w(i + len) !== ',') break;
  }
  // "primary or secondary highways", "emergency and leisure slipways": words before one noun, each
  // narrowing it; one that narrows it to nothing any layer holds is refused, never dropped.
  const lastAt = starts.at(-1)!;
  const first = parts.length > 1 ? r.selectionAt(lastAt) : null;
  const head = first && lastAt + first.len < i + len ? r.phraseAt(lastAt + first.len) : null;
  if (head && r.ctx.vocabulary)
    for (let k = 0; k < parts.length - 1; k++) {
      if (parts[k]!.plural) continue;
      const said = `${parts[k]!.said} ${head.selection.said}`;
      const narrowed = narrowSelection(head.selection, parts[k]!, r.ctx.vocabulary.summaries, said);
      if (!narrowed.sources.length) r.notRead(parts[k]!.said, `no layer holds ${head.selection.said} that are ${parts[k]!.reading}`, 'subject');
      parts[k] = narrowed;
    }
  if (parts.length > 1)
    for (const p of parts) if (!p.sources.length) r.notRead(p.said, `read as ${p.reading}, but no layer holds such features`, 'subject');
  plan.layerSubject = parts.length > 1 ? unionOf(parts, r.said(i, i + len)) : m.selection;
  r.subjectWordAt = i + len - 1;
  return len;
}

/** Several phrases as one subject: per layer, features any of them names (a whole layer when one names it). */
function unionOf(parts: readonly Selection[], said: string): Selection {
  const byLayer = new Map<string, Source>();
  for (const p of parts)
    for (const s of p.sources) {
      const had = byLayer.get(s.layer.id);
      if (!had) byLayer.set(s.layer.id, { layer: s.layer, ...(s.match && { match: [...s.match] }) });
      else if (!had.match || !s.match) delete had.match;
      else had.match.push(...s.match);
    }
  // A part no layer holds leaves the union empty: its words are refused, never answered as the rest.
  const sources = parts.some((p) => !p.sources.length) ? [] : [...byLayer.values()];
  return { label: parts.map((p) => p.label).join(' or '), said, reading: parts.map((p) => p.reading).join(' or '), plural: true, sources };
}

/** A reference after a relation word: a class or named feature of a layer, a kind, uploads or a place. */
function refAfter(r: Reader, i: number, phrase: string): [Reference, number] | null {
  let j = i;
  while (r.w(j) === 'the' || r.w(j) === 'a' || r.w(j) === 'an' || r.w(j) === 'any') j++;
  const ref = r.referenceAt(j, phrase);
  if (!ref?.[0]) return null;
  // "in Nordviertel quarter", "along the Lenne river": a class word after a name only repeats what
  // it is. One that would narrow it is not dropped: it is left to be read, or refused.
  let len = j - i + ref[1];
  // "in Chennai city", "in Brugelette municipality": the kind of place a name is, said after it.
  if (ref[0].type === 'selection' && r.placeHeadAt(i + len)) return [ref[0], len + 1];
  const next = ref[0].type === 'selection' ? r.selectionAt(i + len) : null;
  if (ref[0].type === 'selection' && next?.len === 1 && r.ctx.vocabulary) {
    const narrowed = narrowSelection(next.selection, ref[0].selection, r.ctx.vocabulary.summaries, r.said(j, i + len + 1));
    if (sourcesText(narrowed.sources) === sourcesText(ref[0].selection.sources)) len++;
  }
  return [ref[0], len];
}

/** "in / inside NAME" where NAME is a polygon of a layer ("in Nordviertel"): inside it. */
export function insideFeature(r: Reader, i: number): number {
  if (r.w(i) !== 'in' && r.w(i) !== 'inside' && r.w(i) !== 'within') return 0;
  // "in the area with the name X": X.
  const lead = r.areaNameLeadAt(i + 1);
  const m = r.selectionAt(i + 1 + (lead || (r.w(i + 1) === 'the' ? 1 : 0)));
  if (!m || !m.selection.sources.some((s) => s.layer.geometryTypes['Polygon'] || s.layer.geometryTypes['MultiPolygon'])) return 0;
  const ref = refAfter(r, i + 1 + lead, r.w(i));
  if (!ref) return 0;
  r.plan.inside = ref[0];
  return 1 + lead + ref[1];
}

/** "inside / in / within my area": inside the uploaded polygons (points on them count). */
export function insideUploads(r: Reader, i: number): number {
  if (!['in', 'inside', 'within'].includes(r.w(i))) return 0;
  const cls = r.classAt(i + 1);
  if (!cls || cls[0].type !== 'class' || cls[0].label === UPLOADS.label.many || cls[0].kind !== UPLOADS.name) return 0;
  r.plan.inside = cls[0];
  return 1 + cls[1];
}

/** "outside (of) X", "not in X": not in X (polygons) and not on it. */
export function outside(r: Reader, i: number): number {
  const { w } = r;
  let skip: number;
  if (w(i) === 'outside') skip = w(i + 1) === 'of' ? 2 : 1;
  // "not in Germany", "which are not located in a railway yard": outside it.
  else if (['not', 'isnt', 'arent'].includes(w(i))) {
    skip = 1;
    if (['located', 'situated', 'lying', 'found'].includes(w(i + skip))) skip++;
    if (!['in', 'inside', 'within'].includes(w(i + skip))) return 0;
    skip++;
  } else return 0;
  const ref = refAfter(r, i + skip, 'outside');
  if (!ref) return 0;
  r.plan.outside = ref[0];
  return skip + ref[1];
}

/** "intersecting X", "crossing X", "over the Lenne" (bridges), "across X": sharing a point with X. */
export function intersecting(r: Reader, i: number): number {
  const { w } = r;
  let skip: number;
  if (['intersecting', 'crossing', 'across', 'intersect', 'intersects', 'cross', 'crosses', 'over'].includes(w(i))) skip = 1;
  else if (w(i) === 'that' && ['intersect', 'cross', 'crosses', 'intersects'].includes(w(i + 1))) skip = 2;
  else return 0;
  // "over 100" is a number filter, not a crossing.
  if (/^\d/.test(w(i + skip))) return 0;
  const ref = refAfter(r, i + skip, w(i));
  if (!ref) return 0;
  r.plan.intersecting = ref[0];
  return skip + ref[1];
}

/** "along (the) X": within a default distance of it (said in a warning); "within 100 m of X" sets its own. */
export function along(r: Reader, i: number): number {
  if (r.w(i) !== 'along' && !(r.w(i) === 'on' && r.selectionAt(i + 1 + (r.w(i + 1) === 'the' ? 1 : 0)))) return 0;
  const ref = refAfter(r, i + 1, r.w(i));
  if (!ref) return 0;
  r.plan.within = { reference: ref[0], radiusKm: ALONG_M / 1000 };
  r.warn('reading', `read "${r.said(i, i + 1 + ref[1])}" as within ${ALONG_M} m of ${ref[0].label}; "within 200 m of ${ref[0].label}" sets another distance`);
  return 1 + ref[1];
}

/** "per district", "in each district", "by quarter": counts per polygon of a layer. */
export function perFeature(r: Reader, i: number): number {
  const { w } = r;
  let j = i;
  if (['in', 'for'].includes(w(j)) && ['each', 'every'].includes(w(j + 1))) j += 2;
  else if (['per', 'by', 'each', 'every'].includes(w(j))) j += 1;
  else return 0;
  const m = r.selectionAt(j);
  if (!m) return 0;
  r.plan.perRef = { type: 'selection', selection: m.selection, label: m.selection.said };
  if (!m.selection.sources.length) r.notRead(m.selection.said, `read as ${m.selection.reading}, but no layer holds such features`, r.plan.perRef);
  r.plan.measurement = 'count';
  return j - i + m.len;
}

/**
 * "in admin level 6 areas with the name Essen", "inside the admin level 10 area named Fulerum": a
 * polygon of a layer by its name, narrowed by a key said in words and its figure (the area's own
 * tag, not the subject's); a name no such polygon has is refused, never read without the figure.
 */
export function insideKeyedArea(r: Reader, i: number): number {
  const v = r.ctx.vocabulary;
  const { w } = r;
  if (!v || !['in', 'inside', 'within'].includes(w(i))) return 0;
  let j = i + 1;
  if (w(j) === 'the' || w(j) === 'an' || w(j) === 'a') j++;
  let key: string | undefined;
  for (let len = 3; len >= 1 && !key; len--) {
    const words = r.t.slice(j, j + len).map((x) => x.w);
    if (words.length === len && words.every((x) => /^\p{L}+$/u.test(x)) && v.hasKey(words.join('_')) && /^\d+$/.test(w(j + len))) {
      key = words.join('_');
      j += len;
    }
  }
  if (!key) return 0;
  const value = w(j++);
  const lead = r.areaNameLeadAt(j);
  if (!lead) return 0;
  const ref = refAfter(r, j + lead, w(i));
  if (!ref || ref[0].type !== 'selection') return 0;
  const said = r.said(i + 1, j + lead + ref[1]);
  const narrowed = narrowSelection(ref[0].selection, v.tagSelection(key, [value], said), v.summaries, said);
  if (!narrowed.sources.length) r.notRead(said, `no polygon of a layer is ${ref[0].label} with ${key}=${value}`);
  r.plan.inside = { ...ref[0], selection: { ...narrowed, label: ref[0].label }, label: `${ref[0].label} (${key}=${value})` };
  return j + lead + ref[1] - i;
}
