import type { QueryKind } from '../rpc/methods/history';

/**
 * Where each operation's response keeps its items (spec 2.2, 2.4, 2.6): compute
 * `results.features`, stream `data.geojson.features`, imagery search `data`.
 */
export const ITEM_PATH: Record<QueryKind, readonly string[]> = {
  compute: ['results', 'features'],
  stream: ['data', 'geojson', 'features'],
  imagery: ['data'],
};

/**
 * The items of a response body of any kind, in response order, as they are in the body. A
 * body of another shape (a failure, a truncated answer) has none.
 */
export function responseItems(kind: QueryKind, body: unknown): unknown[] {
  let at: unknown = body;
  for (const key of ITEM_PATH[kind]) at = at && typeof at === 'object' && !Array.isArray(at) ? (at as Record<string, unknown>)[key] : undefined;
  return Array.isArray(at) ? at : [];
}
