/** Pure selection rules shared by lists and the map. */

/** One selected item: clicking the selected one again clears it. */
export function toggleSingle<T>(current: T | null, clicked: T): T | null {
  return current === clicked ? null : clicked;
}

/** A new set with `id` added or removed. */
export function toggleInSet<T>(set: ReadonlySet<T>, id: T): Set<T> {
  const next = new Set(set);
  if (next.has(id)) next.delete(id);
  else next.add(id);
  return next;
}

/** Keeps only ids still present (after a reload or delete), in their original order. */
export function pruneSet<T>(set: ReadonlySet<T>, present: Iterable<T>): Set<T> {
  const keep = new Set(present);
  return new Set([...set].filter((id) => keep.has(id)));
}

/** Shift-click: every id between the anchor and the clicked one (inclusive) is added. */
export function selectRange<T>(set: ReadonlySet<T>, order: readonly T[], anchor: T | null, clicked: T): Set<T> {
  const next = new Set(set);
  const a = anchor === null ? -1 : order.indexOf(anchor);
  const b = order.indexOf(clicked);
  if (a < 0 || b < 0) {
    next.add(clicked);
    return next;
  }
  for (let i = Math.min(a, b); i <= Math.max(a, b); i++) next.add(order[i]!);
  return next;
}
