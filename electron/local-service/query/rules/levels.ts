import type { Condition } from '../plan';
import type { Reader } from '../reader';

/**
 * "Level 6 administrative areas", "level 8 administrative boundaries": a two-part key some layer
 * holds said with its parts turned round, the figure between them and the first part as a longer
 * word (admin_level). The figure is the key's value; the words after it are read as they stand.
 */
export function levelBeforeWord(r: Reader, i: number): number {
  const v = r.ctx.vocabulary;
  const { w } = r;
  if (!v || !/^\d+$/.test(w(i + 1)) || !/^\p{L}{3,}$/u.test(w(i)) || !/^\p{L}+$/u.test(w(i + 2))) return 0;
  for (const s of v.summaries.values())
    for (const col of s.columns) {
      const [first, second, more] = col.key.split('_');
      if (more !== undefined || second !== w(i) || !first || first.length < 3 || !w(i + 2).startsWith(first)) continue;
      const c: Condition = { type: 'equals', key: col.key, values: [w(i + 1)], label: `${col.key}=${w(i + 1)}`, inWords: true };
      r.plan.conditions.push(c);
      r.tagWords.push(c);
      r.warn('reading', `read "${r.said(i, i + 2)}" as ${col.key}=${w(i + 1)}`);
      return 2;
    }
  return 0;
}
