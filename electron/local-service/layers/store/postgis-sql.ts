import type { TagMatch } from './layer-store';

/** Query parameters collected while SQL text is written: add() returns the placeholder. */
export class Params {
  readonly values: unknown[] = [];
  add(v: unknown): string {
    this.values.push(v);
    return `$${this.values.length}`;
  }
}

/**
 * Tag tests (any of the lists; every clause of one) as a condition on a JSONB column, with the
 * embedded store's meaning (summary.ts `passes`): a key with a null value is absent, and values
 * compare as text. No tests: TRUE.
 */
export function matchSql(q: Params, match: readonly TagMatch[] | undefined, column = 'tags'): string {
  if (!match) return 'TRUE';
  if (!match.length) return 'FALSE';
  const any = match.map((all) => {
    if (!all.length) return 'TRUE';
    const clauses = all.map((c) => {
      const value = `${column} ->> ${q.add(c.key)}`;
      return c.values ? `${value} = ANY(${q.add(c.values)}::text[])` : `${value} IS NOT NULL`;
    });
    return `(${clauses.join(' AND ')})`;
  });
  return `(${any.join(' OR ')})`;
}
