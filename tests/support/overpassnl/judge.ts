/** The verdict on one answer against its gold set (feature ids `type/id`). */
export type Verdict = 'correct' | 'broader' | 'wrong';

export function judge(answer: ReadonlySet<string>, gold: ReadonlySet<string>): Verdict {
  const missing = [...gold].some((k) => !answer.has(k));
  const extra = [...answer].some((k) => !gold.has(k));
  if (!missing && !extra) return 'correct';
  // A strict superset: everything asked for and more besides, the one failure that must not happen.
  if (!missing) return 'broader';
  return 'wrong';
}

interface Unread {
  words?: unknown;
  why?: unknown;
}

/** Words of a refusal as a pattern: lower case, figures as N, quoted parts as "…". */
const pattern = (s: string) =>
  s
    .toLowerCase()
    .replace(/"[^"]*"/g, '"…"')
    .replace(/\d+([.,]\d+)?/g, 'N')
    .replace(/\s+/g, ' ')
    .trim();

/**
 * The causes a refusal names: one per unread part, its reason as a pattern with the words it
 * names (lower case, figures as N); the problem's code alone when it names no part.
 */
export function refusalCauses(body: Record<string, unknown>): string[] {
  const code = typeof body['code'] === 'string' ? body['code'] : `status ${String(body['status'] ?? '?')}`;
  const unread = Array.isArray(body['unread']) ? (body['unread'] as Unread[]) : [];
  if (!unread.length) return [`${code}: ${pattern(String(body['detail'] ?? body['title'] ?? ''))}`.slice(0, 160)];
  return unread.map((u) => `${code}: ${pattern(String(u.why ?? ''))} · "${String(u.words ?? '').toLowerCase().replace(/\d+([.,]\d+)?/g, 'N')}"`.slice(0, 200));
}

/** Whether the reading (warnings of an answer, or the refusal) names the gold's main tag "k=v" ("k=*": any value of k). */
export function namesTag(text: string, tag: string | null): boolean {
  if (!tag) return false;
  const [k, v] = tag.split('=') as [string, string];
  return v === '*' ? text.includes(`${k}=`) : text.includes(`${k}=${v}`);
}

/** The n commonest keys of a tally, commonest first. */
export function top(tally: ReadonlyMap<string, number>, n: number): Record<string, number> {
  return Object.fromEntries([...tally].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).slice(0, n));
}
