import { responseItems } from '../../shared/service/items';
import type { CacheDb } from './db';
import { itemId, rec, summary, SUMMARY_COLUMNS, type QueryRow } from './rows';
import { get } from './search';
import type { FeatureDiff, QueryRecord, ThreadNode } from './types';

// Follow-ups and reruns: the continuation tree of a query, and what changed between two answers.

function summaryRow(c: CacheDb, id: number): QueryRow | undefined {
  return c.stmt(`SELECT ${SUMMARY_COLUMNS} FROM queries WHERE id = ?`).get(id) as QueryRow | undefined;
}

/**
 * The continuation tree around a query: up the search_id links to the root, then every query
 * that continued any node, breadth first. Parents are found by remote id.
 */
export function thread(c: CacheDb, id: number): ThreadNode[] {
  let root = summaryRow(c, id);
  if (!root) return [];
  const byRemote = c.stmt(
    `SELECT ${SUMMARY_COLUMNS} FROM queries WHERE remote_id = ? ORDER BY started_at, id LIMIT 1`,
  );
  const seen = new Set<number>([root.id]);
  while (root.search_id) {
    const parent = byRemote.get(root.search_id) as QueryRow | undefined;
    if (!parent || seen.has(parent.id)) break;
    seen.add(parent.id);
    root = parent;
  }
  const children = c.stmt(
    `SELECT ${SUMMARY_COLUMNS} FROM queries WHERE search_id = ? ORDER BY started_at, id`,
  );
  const out: ThreadNode[] = [{ query: summary(root), parentId: null, depth: 0 }];
  const visited = new Set<number>([root.id]);
  for (let i = 0; i < out.length; i++) {
    const node = out[i]!;
    if (!node.query.remoteId) continue;
    for (const c of children.all(node.query.remoteId) as QueryRow[]) {
      if (visited.has(c.id)) continue;
      visited.add(c.id);
      out.push({ query: summary(c), parentId: node.query.id, depth: node.depth + 1 });
    }
  }
  return out;
}

/** Added, removed and changed items between two cached responses, matched by item id. */
export function diff(c: CacheDb, oldId: number, newId: number): FeatureDiff {
  const a = get(c, oldId);
  const b = get(c, newId);
  if (!a || !b) throw new Error('Both queries must be cached');
  const index = (q: QueryRecord) => {
    const m = new Map<string, string>();
    if (q.raw === null || q.outcome !== 'ok') return m;
    let body: unknown;
    try {
      body = JSON.parse(q.raw);
    } catch {
      return m;
    }
    responseItems(q.kind, body).map(rec).forEach((item, i) => m.set(itemId(item, i), JSON.stringify(item)));
    return m;
  };
  const before = index(a);
  const after = index(b);
  const out: FeatureDiff = { added: [], removed: [], changed: [], unchanged: 0 };
  for (const [id, text] of after) {
    const old = before.get(id);
    if (old === undefined) out.added.push(id);
    else if (old !== text) out.changed.push(id);
    else out.unchanged++;
  }
  for (const id of before.keys()) if (!after.has(id)) out.removed.push(id);
  return out;
}
