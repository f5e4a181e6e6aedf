import { UPLOADS } from '../../catalog/kinds/uploads';
import type { Reader } from '../reader';
import { UPLOAD_NOUNS } from '../words';
import { ORDER_WORDS } from './order';

/** A kind's modifier adjective ("large", "major", "regional"), before or after its subject. */
export function modifierWord(r: Reader, i: number): number {
  const readings = r.lexicon.adjectives.get(r.w(i));
  if (!readings) return 0;
  // A follow-up without a noun ("only large ones") describes the subject of the set it continues.
  const subject = r.plan.subject ?? r.ctx.savedSubject ?? null;
  const own = readings.find((a) => a.kind === subject);
  if (own) r.plan[own.key] = own.value;
  else r.pending = readings;
  return 1;
}

/** A kind's noun ("airports", "towns", "capitals"): the subject, with what the noun and a waiting adjective imply. */
export function subjectNoun(r: Reader, i: number): number {
  const noun = r.lexicon.nouns.get(r.w(i));
  if (!noun) return 0;
  r.subjectWordAt = i;
  const pending = r.pending;
  const a = pending?.find((x) => x.kind === noun.kind);
  if (!r.setSubject(noun.kind, { ...noun.sets, ...(a ? { [a.key]: a.value } : {}) })) {
    r.notRead(r.t[i]!.raw, `a second subject: the question is already about ${r.catalog.kinds.label(r.plan.subject!).many}`);
    r.warn('ignored', `"${r.t[i]!.raw}" ignored: the question is already about ${r.catalog.kinds.label(r.plan.subject!).many}`);
  } else if (pending && !a) {
    const kinds = r.catalog.kinds.labels((k) => pending.some((x) => x.kind === k.kind));
    r.notRead(pending[0]!.label, `describes ${kinds} only`);
    r.warn('ignored', `${pending[0]!.topic} words apply to ${kinds} only; "${pending[0]!.label}" ignored`);
  }
  r.pending = undefined;
  return 1;
}

/** "my sites", a file's name, "these" (uploads) and "those" (the earlier results) as the subject. */
export function uploadsOrSaved(r: Reader, i: number): number {
  const cls = r.classAt(i);
  if (!cls) return 0;
  if (cls[0].type === 'saved') return cls[1];
  if (cls[0].type !== 'class' || cls[0].kind !== UPLOADS.name) return 0;
  r.setSubject(UPLOADS.name);
  return cls[1];
}

/**
 * "my 2 largest sites", "our nearest 3 depots": a possessive with order words between it and the
 * upload noun. The possessive is read here and the noun where it stands (`possessedNoun`); the
 * words between are read by their own rules.
 */
export function possessiveBeforeOrder(r: Reader, i: number): number {
  if (r.w(i) !== 'my' && r.w(i) !== 'our') return 0;
  let j = i + 1;
  for (;;) {
    const num = r.countAt(j);
    if (num) j += num[1];
    else if (ORDER_WORDS.has(r.w(j))) j++;
    else break;
  }
  if (j === i + 1 || !UPLOAD_NOUNS.has(r.w(j))) return 0;
  r.possessedAt = j;
  return 1;
}

/** The upload noun a possessive before order words waits for. */
export function possessedNoun(r: Reader, i: number): number {
  if (r.possessedAt !== i) return 0;
  r.possessedAt = -1;
  r.setSubject(UPLOADS.name);
  return 1;
}
