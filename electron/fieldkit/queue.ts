import { RpcError } from '../../shared/rpc/errors';
import type { QueuedQuestion as QueuedOut } from '../../shared/rpc/methods/queue';
import type { Cache, QueuedQuestion } from '../cache';
import type { Logger } from '../ground/logger';
import type { Staging } from '../ground/staging';
import type { Attachment } from '../../shared/rpc/methods/compute';

/** Sends one question (compute.run through the router) and gives its cache id, or throws RpcError. */
export type RunQuestion = (input: { request: Record<string, unknown>; attachments?: unknown[] }) => Promise<{ queryId: number }>;

export interface QueueDeps {
  cache: Cache;
  run: RunQuestion;
  profileId: () => string;
  online: () => boolean;
  /** Tells the windows a question was answered or failed for good. */
  settled: (q: QueuedOut) => void;
  logger: Logger;
  now: () => number;
  /** Where staged files of an added question are read from (they are kept in the cache instead). */
  staging?: Staging;
}

// Errors that mean "still no connection": the question waits for the next return.
const TRANSIENT = new Set(['OFFLINE', 'NETWORK', 'TIMEOUT', 'CANCELLED']);

/** A queued question as the windows see it; `answeredOn` is the profile of its History entry. */
const out = (q: QueuedQuestion, answeredOn: string | null = null): QueuedOut => ({
  id: q.id,
  profileId: q.profileId,
  answeredOn,
  queryText: q.queryText,
  request: q.request,
  status: q.status,
  createdAt: q.createdAt,
  updatedAt: q.updatedAt,
  queryId: q.queryId,
  error: q.error,
  attachmentNames: q.attachments.map((a) => String((a as { name?: unknown }).name ?? '')),
});

/**
 * The offline question queue: questions kept in the cache while the connection is down and run,
 * oldest first, one at a time, when it returns. A question interrupted by a restart is queued again.
 */
export function createQuestionQueue(deps: QueueDeps) {
  const { cache } = deps;
  // The connection that answered may not be the one the question was asked on (the person switched meanwhile).
  const shown = (q: QueuedQuestion) => out(q, q.queryId !== null ? (cache.get(q.queryId)?.profileId ?? null) : null);
  for (const q of cache.listQueue()) if (q.status === 'running') cache.setQueued(q.id, { status: 'queued', now: deps.now() });
  let flushing: Promise<void> | null = null;
  let again = false;

  function must(id: number): QueuedQuestion {
    const q = cache.queued(id);
    if (!q) throw new RpcError('NOT_FOUND', `No queued question with id ${id}`);
    return q;
  }

  async function drain(): Promise<void> {
    for (;;) {
      if (!deps.online()) return;
      const next = cache.listQueue().find((q) => q.status === 'queued');
      if (!next) return;
      cache.setQueued(next.id, { status: 'running', now: deps.now() });
      try {
        const { queryId } = await deps.run({ request: next.request, ...(next.attachments.length ? { attachments: next.attachments } : {}) });
        cache.setQueued(next.id, { status: 'answered', now: deps.now(), queryId, error: null });
      } catch (e) {
        const code = e instanceof RpcError ? e.code : 'INTERNAL';
        const message = (e as Error).message;
        if (TRANSIENT.has(code)) {
          cache.setQueued(next.id, { status: 'queued', now: deps.now(), error: { code, message } });
          return; // the connection went again: wait for its next return
        }
        if (!(e instanceof RpcError)) deps.logger.error('A queued question failed', e);
        cache.setQueued(next.id, { status: 'failed', now: deps.now(), error: { code, message } });
      }
      // A question dropped while it ran is gone; nothing to tell.
      const settled = cache.queued(next.id);
      if (settled) deps.settled(shown(settled));
    }
  }

  /**
   * Runs what waits, if the connection is up. One pass at a time: a call during a pass asks for
   * one more pass after it (the connection may have come back meanwhile) and waits for that.
   */
  function flush(): Promise<void> {
    if (flushing) {
      again = true;
      return flushing;
    }
    const pass = async () => {
      do {
        again = false;
        await drain();
      } while (again);
    };
    flushing = pass().finally(() => (flushing = null));
    return flushing;
  }

  return {
    list: () => ({ items: cache.listQueue().map(shown) }),
    /**
     * Keeps the question with its files' bytes in the cache (base64, as a call carries them), so
     * they outlive a restart; staged files are read once and removed.
     */
    async add(input: { request: Record<string, unknown>; attachments?: Attachment[] | undefined }): Promise<QueuedOut> {
      const list = input.attachments ?? [];
      const kept: Attachment[] = [];
      try {
        for (const a of list) {
          if ('dataBase64' in a) kept.push(a);
          else if (!deps.staging) throw new RpcError('VALIDATION', `${a.name}: staged files are not taken here`);
          else {
            const { stagedId, ...head } = a;
            kept.push({ ...head, dataBase64: (await deps.staging.read(stagedId)).bytes.toString('base64') });
          }
        }
      } finally {
        for (const a of list) if ('stagedId' in a) await deps.staging?.drop(a.stagedId);
      }
      const q = cache.enqueue({ profileId: deps.profileId(), request: input.request, attachments: kept, now: deps.now() });
      void flush();
      return out(q);
    },
    edit(id: number, query: string): QueuedOut {
      const q = must(id);
      if (q.status !== 'queued' && q.status !== 'failed')
        throw new RpcError('CONFLICT', `Question ${id} is ${q.status}; only a waiting or failed question can be edited`);
      cache.setQueued(id, { status: 'queued', now: deps.now(), request: { ...q.request, query }, error: null });
      void flush();
      return out(must(id));
    },
    drop(id: number): { dropped: boolean } {
      const q = cache.queued(id);
      if (q?.status === 'running') throw new RpcError('CONFLICT', `Question ${id} is being sent; drop it when it settles`);
      return { dropped: cache.dropQueued(id) };
    },
    flush,
  };
}
export type QuestionQueue = ReturnType<typeof createQuestionQueue>;
