import type { CacheDb } from './db';

// The offline question queue: rows of question_queue (migration 2).

export type QueueStatus = 'queued' | 'running' | 'answered' | 'failed';

export interface QueuedQuestion {
  id: number;
  profileId: string;
  queryText: string;
  request: Record<string, unknown>;
  attachments: unknown[];
  status: QueueStatus;
  createdAt: number;
  updatedAt: number;
  queryId: number | null;
  error: { code: string; message: string } | null;
}

interface Row {
  id: number;
  profile_id: string;
  query_text: string;
  request_json: string;
  attachments_json: string | null;
  status: QueueStatus;
  created_at: number;
  updated_at: number;
  query_id: number | null;
  error_json: string | null;
}

const item = (r: Row): QueuedQuestion => ({
  id: r.id,
  profileId: r.profile_id,
  queryText: r.query_text,
  request: JSON.parse(r.request_json) as Record<string, unknown>,
  attachments: r.attachments_json ? (JSON.parse(r.attachments_json) as unknown[]) : [],
  status: r.status,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  queryId: r.query_id,
  error: r.error_json ? (JSON.parse(r.error_json) as QueuedQuestion['error']) : null,
});

export function enqueue(c: CacheDb, q: { profileId: string; request: Record<string, unknown>; attachments: unknown[]; now: number }): QueuedQuestion {
  const id = Number(
    c.stmt(
      `INSERT INTO question_queue (profile_id, query_text, request_json, attachments_json, status, created_at, updated_at)
       VALUES (?, ?, ?, ?, 'queued', ?, ?)`,
    ).run(q.profileId, String(q.request['query'] ?? ''), JSON.stringify(q.request), q.attachments.length ? JSON.stringify(q.attachments) : null, q.now, q.now).lastInsertRowid,
  );
  c.afterWrite();
  return queued(c, id)!;
}

export function queued(c: CacheDb, id: number): QueuedQuestion | null {
  const r = c.stmt('SELECT * FROM question_queue WHERE id = ?').get(id) as Row | undefined;
  return r ? item(r) : null;
}

/** Every kept question, oldest first (answered ones until dropped, so the notice can link them). */
export function listQueue(c: CacheDb): QuestionList {
  return (c.stmt('SELECT * FROM question_queue ORDER BY id').all() as Row[]).map(item);
}
type QuestionList = QueuedQuestion[];

export function setQueued(
  c: CacheDb,
  id: number,
  patch: { status: QueueStatus; now: number; request?: Record<string, unknown>; queryId?: number | null; error?: QueuedQuestion['error'] },
): void {
  const current = queued(c, id);
  if (!current) return;
  const request = patch.request ?? current.request;
  c.stmt(
    `UPDATE question_queue SET status = ?, updated_at = ?, request_json = ?, query_text = ?, query_id = ?, error_json = ? WHERE id = ?`,
  ).run(
    patch.status,
    patch.now,
    JSON.stringify(request),
    String(request['query'] ?? ''),
    patch.queryId === undefined ? current.queryId : patch.queryId,
    patch.error === undefined ? (current.error ? JSON.stringify(current.error) : null) : patch.error ? JSON.stringify(patch.error) : null,
    id,
  );
  c.afterWrite();
}

export function dropQueued(c: CacheDb, id: number): boolean {
  const changed = c.stmt('DELETE FROM question_queue WHERE id = ?').run(id).changes > 0;
  c.afterWrite();
  return changed;
}
