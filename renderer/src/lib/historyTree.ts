import type { QuerySummary } from '../../../shared/rpc/methods/history';

export interface TreeEntry {
  item: QuerySummary;
  /** 0 for a first question; 1, 2… for follow-ups under their parent shown just above. */
  depth: number;
}

export interface DayGroup {
  /** YYYY-MM-DD in local time. */
  key: string;
  label: string;
  entries: TreeEntry[];
}

const pad = (n: number) => String(n).padStart(2, '0');
export const dayKey = (ms: number): string => {
  const d = new Date(ms);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
};

/** "Today", "Yesterday", else the date written out. */
export function dayLabel(key: string, now: number): string {
  if (key === dayKey(now)) return 'Today';
  const y = new Date(now);
  y.setDate(y.getDate() - 1);
  if (key === dayKey(y.getTime())) return 'Yesterday';
  const [yy, mm, dd] = key.split('-').map(Number) as [number, number, number];
  return new Date(yy, mm - 1, dd).toLocaleDateString('en-US', { weekday: 'short', year: 'numeric', month: 'short', day: 'numeric' });
}

/**
 * History as the list shows it: grouped by day (newest first, as listed), each follow-up placed
 * under the entry it continued (its search_id is that entry's response id) when that entry is
 * listed on the same day; otherwise it stands at the top level, still marked as a follow-up.
 */
export function historyTree(items: readonly QuerySummary[], now: number): DayGroup[] {
  const groups: DayGroup[] = [];
  const byDay = new Map<string, QuerySummary[]>();
  for (const it of items) {
    const k = dayKey(it.startedAt);
    if (!byDay.has(k)) byDay.set(k, []);
    byDay.get(k)!.push(it);
  }
  for (const [key, dayItems] of byDay) {
    const byRemote = new Map<string, QuerySummary>();
    for (const it of dayItems) if (it.remoteId) byRemote.set(it.remoteId, it);
    const children = new Map<number, QuerySummary[]>();
    const roots: QuerySummary[] = [];
    for (const it of dayItems) {
      const parent = it.searchId ? byRemote.get(it.searchId) : undefined;
      if (parent && parent.id !== it.id) {
        if (!children.has(parent.id)) children.set(parent.id, []);
        children.get(parent.id)!.push(it);
      } else roots.push(it);
    }
    const entries: TreeEntry[] = [];
    const seen = new Set<number>();
    const walk = (it: QuerySummary, depth: number) => {
      if (seen.has(it.id)) return; // a cycle in odd data must not loop
      seen.add(it.id);
      entries.push({ item: it, depth });
      // Follow-ups in the order they were asked.
      for (const c of [...(children.get(it.id) ?? [])].sort((a, b) => a.startedAt - b.startedAt)) walk(c, depth + 1);
    };
    for (const r of roots) walk(r, 0);
    // Anything only reachable through a cycle is still listed.
    for (const it of dayItems) if (!seen.has(it.id)) walk(it, 0);
    groups.push({ key, label: dayLabel(key, now), entries });
  }
  return groups;
}
