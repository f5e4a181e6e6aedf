import { phraseKey } from '../../vocabulary/phrases';
import type { Condition } from '../plan';
import type { Reader } from '../reader';
import { UPLOADS } from '../../catalog/kinds/uploads';
import { numberAt, SILENT, UPLOAD_NOUNS } from '../words';

/** Day words as opening_hours numbers them (Sunday 0). */
const DAYS: Record<string, number> = {
  sunday: 0, sundays: 0, sun: 0, monday: 1, mondays: 1, mon: 1, tuesday: 2, tuesdays: 2, tue: 2, wednesday: 3, wednesdays: 3, wed: 3,
  thursday: 4, thursdays: 4, thu: 4, friday: 5, fridays: 5, fri: 5, saturday: 6, saturdays: 6, sat: 6,
};
const DAY_NAMES = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

/**
 * A value of an uploaded column ("my open sites", "high priority sites", "sites with status
 * closed"): that column equal to that value. Read before "open" as opening hours.
 */
export function uploadValue(r: Reader, i: number): number {
  const { w, plan } = r;
  const values = r.ctx.uploadValues;
  if (!values?.size) return 0;
  const said = (v: { key: string; value: string }, used: number) => {
    plan.conditions.push({ type: 'equals', key: v.key, values: [v.value.toLowerCase()], label: `${v.key} = ${v.value}` });
    return used;
  };
  // "status open", "status is open", "status = open"
  const keyed = [...values.values()].find((v) => foldKey(v.key) === w(i));
  if (keyed) {
    const j = i + 1 + (w(i + 1) === 'is' || w(i + 1) === '=' ? 1 : 0);
    const v = values.get(w(j));
    if (v && v.key === keyed.key) return said(v, j - i + 1);
  }
  // "my open sites": the value between "my" and the noun; the noun makes the uploads the subject.
  const mine = w(i) === 'my' || w(i) === 'our' ? 1 : 0;
  const v = values.get(w(i + mine));
  if (!v) return 0;
  // "open now", "open on Sunday", "open at 9" are opening hours.
  if (w(i + mine) === 'open' && ['now', 'on', 'at'].includes(w(i + mine + 1))) return 0;
  // "high priority": the column's name after its value only repeats which column.
  const len = mine + (foldKey(v.key) === w(i + mine + 1) ? 2 : 1);
  if (!mine) return said(v, len);
  if (!UPLOAD_NOUNS.has(w(i + len))) return 0;
  r.setSubject(UPLOADS.name);
  return said(v, len + 1);
}

const foldKey = (key: string) => key.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');

/** "open now", "open on Sunday", "open Sundays", "open at 18:30": read from opening_hours. */
export function openCondition(r: Reader, i: number): number {
  const { w, plan } = r;
  if (w(i) !== 'open' && w(i) !== 'opened') return 0;
  if (w(i + 1) === 'now') return plan.conditions.push({ type: 'open_now', label: 'open now' }), 2;
  // "open at 9", "open at 18:30", "open at 7 pm": today at that time.
  if (w(i + 1) === 'at' && /^\d{1,2}$/.test(w(i + 2))) {
    let hour = Number(w(i + 2));
    let used = 3;
    let minute = 0;
    // "18:30" reaches here as "18" "30" (the colon is no token).
    if (/^\d{2}$/.test(w(i + 3))) {
      minute = Number(w(i + 3));
      used++;
    }
    if (w(i + used) === 'pm' || w(i + used) === 'am') {
      if (w(i + used) === 'pm' && hour < 12) hour += 12;
      used++;
    }
    if (hour <= 24 && minute < 60) {
      const hhmm = `${String(hour).padStart(2, '0')}:${String(minute).padStart(2, '0')}`;
      plan.conditions.push({ type: 'open_at', hour, minute, label: `open at ${hhmm} today` });
      return used;
    }
  }
  let j = i + 1;
  if (w(j) === 'on' || w(j) === 'at') j++;
  const day = DAYS[w(j)];
  if (day !== undefined) return plan.conditions.push({ type: 'open_on', day, label: `open on ${DAY_NAMES[day]}` }), j - i + 1;
  // "open" alone: open at the service's time.
  return plan.conditions.push({ type: 'open_now', label: 'open now' }), 1;
}

/** "wheelchair accessible", "accessible by wheelchair", "step-free": wheelchair=yes. */
export function wheelchairCondition(r: Reader, i: number): number {
  const { w, plan } = r;
  const c = { type: 'equals', key: 'wheelchair', values: ['yes'], label: 'wheelchair accessible (wheelchair=yes)' } as const;
  if (w(i) === 'wheelchair' && ['accessible', 'access', 'friendly'].includes(w(i + 1))) return plan.conditions.push({ ...c, values: [...c.values] }), 2;
  if (w(i) === 'accessible' && w(i + 1) === 'by' && w(i + 2) === 'wheelchair') return plan.conditions.push({ ...c, values: [...c.values] }), 3;
  if (w(i) === 'with' && w(i + 1) === 'wheelchair' && w(i + 2) === 'access') return plan.conditions.push({ ...c, values: [...c.values] }), 3;
  return 0;
}

/** "operated by X", "run by X": the operator tag holds X (words up to the next grammar word). */
export function operatorCondition(r: Reader, i: number): number {
  const { w, plan } = r;
  if (!['operated', 'run', 'managed', 'operator'].includes(w(i))) return 0;
  let j = i + 1;
  if (w(j) === 'by' || w(j) === 'is' || w(j) === '=') j++;
  const start = j;
  while (r.t[j] && !SILENT.has(w(j)) && !['within', 'near', 'in', 'along', 'outside', 'open', 'around'].includes(w(j)) && w(j) !== ',') j++;
  if (j === start) return 0;
  const text = r.said(start, j);
  const c = { type: 'contains', key: 'operator', text: phraseKey(text), label: `operated by ${text}` } as const;
  plan.conditions.push(c);
  // "objects operated by X": with no other subject, the features that have an operator are.
  r.tagWords.push(c);
  return j - i;
}

const MORE = ['over', 'above', 'exceeding'];
const LESS = ['under', 'below'];

/** "capacity over 100", "with a capacity of at least 50", "voltage under 30000": a numeric column of a layer. */
export function numberCondition(r: Reader, i: number): number {
  const { w, plan } = r;
  const numeric = r.ctx.vocabulary?.numeric;
  if (!numeric) return 0;
  let j = i;
  if (w(j) === 'with') j++;
  while (['a', 'an', 'the'].includes(w(j))) j++;
  const keys = numeric.get(w(j));
  if (!keys) return 0;
  const name = r.t[j]!.raw;
  j++;
  if (w(j) === 'of') j++;
  // The comparison words: [words, bound, inclusive].
  const OPS: [string[], 'min' | 'max', boolean][] = [
    [['more', 'than'], 'min', false], [['greater', 'than'], 'min', false], [['higher', 'than'], 'min', false],
    [['less', 'than'], 'max', false], [['fewer', 'than'], 'max', false], [['lower', 'than'], 'max', false],
    [['at', 'least'], 'min', true], [['at', 'most'], 'max', true],
    ...MORE.map((x): [string[], 'min', boolean] => [[x], 'min', false]),
    ...LESS.map((x): [string[], 'max', boolean] => [[x], 'max', false]),
  ];
  const hit = OPS.find(([ws]) => ws.every((x, k) => w(j + k) === x));
  const op: 'min' | 'max' | 'eq' = hit ? hit[1] : 'eq';
  const inclusive = hit ? hit[2] : false;
  if (hit) j += hit[0].length;
  const num = numberAt(r.t, j, true);
  if (!num) return 0;
  const v = num[0];
  // Strict bounds are kept strict by nudging them: values are compared as numbers read from text.
  const eps = Math.max(1e-9, Math.abs(v) * 1e-12);
  const bound =
    op === 'eq' ? { min: v, max: v } : op === 'min' ? { min: inclusive ? v : v + eps } : { max: inclusive ? v : v - eps };
  const said = r.said(i, j + num[1]);
  const c: Condition = { type: 'number', keys, ...bound, label: `${name} ${op === 'eq' ? '=' : op === 'min' ? (inclusive ? '≥' : '>') : inclusive ? '≤' : '<'} ${v} (read from "${said}")` };
  plan.conditions.push(c);
  r.figures.push({ from: i, end: j + num[1], undo: () => void plan.conditions.splice(plan.conditions.indexOf(c), 1) });
  return j - i + num[1];
}
