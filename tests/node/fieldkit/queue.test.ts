import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RpcError } from '../../../shared/rpc/errors';
import type { QueuedQuestion } from '../../../shared/rpc/methods/queue';
import { Cache } from '../../../electron/cache';
import { createQuestionQueue, type RunQuestion } from '../../../electron/fieldkit/queue';
import { createMemoryLogger } from '../../../electron/ground/logger';
import { computeResponse } from '../cache/fixtures';

let dir: string;
let cache: Cache;
let online: boolean;
let settled: QueuedQuestion[];
let sent: string[];
let run: RunQuestion;

/** A service that answers by storing a response in the cache, as compute.run does. */
const answering: RunQuestion = async ({ request }) => {
  sent.push(String(request['query']));
  const fx = computeResponse(3, sent.length, { query: String(request['query']) });
  const queryId = cache.storeCompute({ profileId: 'local', request, startedAt: 1, finishedAt: 2 }, fx.body, fx.raw);
  return { queryId };
};

function open() {
  return createQuestionQueue({
    cache,
    run: (input) => run(input),
    profileId: () => 'local',
    online: () => online,
    settled: (q) => settled.push(q),
    logger: createMemoryLogger(),
    now: () => 1_700_000_000_000,
  });
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'fl-queue-'));
  cache = Cache.open(join(dir, 'cache.db'));
  online = false;
  settled = [];
  sent = [];
  run = answering;
});
afterEach(() => {
  cache.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the offline question queue', () => {
  it('keeps questions asked offline across a restart and runs them, oldest first, when the connection returns', async () => {
    let queue = open();
    await queue.add({ request: { query: 'airports within 50 km of Lyon', limit: 10, answer: true, model: 'compute' } });
    await queue.add({ request: { query: 'cities in Iceland', limit: 10, answer: true, model: 'compute' } });
    await queue.flush();
    expect(sent).toEqual([]);
    expect(queue.list().items.map((q) => [q.queryText, q.status])).toEqual([
      ['airports within 50 km of Lyon', 'queued'],
      ['cities in Iceland', 'queued'],
    ]);

    // Restart: a new cache connection and a new queue over the same file.
    cache.close();
    cache = Cache.open(join(dir, 'cache.db'));
    queue = open();
    expect(queue.list().items.map((q) => q.status)).toEqual(['queued', 'queued']);

    online = true;
    await queue.flush();
    expect(sent).toEqual(['airports within 50 km of Lyon', 'cities in Iceland']);
    const items = queue.list().items;
    expect(items.map((q) => q.status)).toEqual(['answered', 'answered']);
    // Each answer is in History under the id the notice carries.
    for (const q of items) expect(cache.get(q.queryId!)?.queryText).toBe(q.queryText);
    expect(settled.map((q) => [q.queryText, q.status, q.queryId])).toEqual(items.map((q) => [q.queryText, 'answered', q.queryId]));
  });

  it('requeues a question that was being sent when the app stopped', async () => {
    const queue = open();
    const q = await queue.add({ request: { query: 'x', model: 'compute' } });
    cache.setQueued(q.id, { status: 'running', now: 5 });
    expect(open().list().items[0]!.status).toBe('queued');
  });

  it('edits and drops waiting questions, and refuses to edit one already answered', async () => {
    const queue = open();
    const a = await queue.add({ request: { query: 'airprots near Lyon', model: 'compute' } });
    const b = await queue.add({ request: { query: 'cities in Peru', model: 'compute' } });
    expect(queue.edit(a.id, 'airports near Lyon')).toMatchObject({ queryText: 'airports near Lyon', request: { query: 'airports near Lyon' } });
    expect(queue.drop(b.id)).toEqual({ dropped: true });
    expect(queue.drop(b.id)).toEqual({ dropped: false });
    online = true;
    await queue.flush();
    expect(sent).toEqual(['airports near Lyon']);
    expect(() => queue.edit(a.id, 'other')).toThrow(expect.objectContaining({ code: 'CONFLICT' }) as unknown as Error);
    expect(() => queue.edit(999, 'other')).toThrow(expect.objectContaining({ code: 'NOT_FOUND' }) as unknown as Error);
  });

  it('keeps a question queued when the connection drops again, and marks one the service refuses as failed', async () => {
    const queue = open();
    await queue.add({ request: { query: 'first', model: 'compute' } });
    await queue.add({ request: { query: 'second', model: 'compute' } });
    online = true;
    run = async () => {
      throw new RpcError('OFFLINE', 'The service is not reachable');
    };
    await queue.flush();
    expect(queue.list().items.map((q) => [q.status, q.error?.code])).toEqual([['queued', 'OFFLINE'], ['queued', undefined]]);
    expect(settled).toEqual([]);

    run = async ({ request }) => {
      if (request['query'] === 'first') throw new RpcError('HTTP', 'HTTP 422: could not read the question');
      return answering({ request });
    };
    await queue.flush();
    expect(queue.list().items.map((q) => [q.queryText, q.status])).toEqual([['first', 'failed'], ['second', 'answered']]);
    expect(settled.map((q) => [q.queryText, q.status, q.error?.message ?? null])).toEqual([
      ['first', 'failed', 'HTTP 422: could not read the question'],
      ['second', 'answered', null],
    ]);
  });
});

describe('the queue over RPC, with the bundled service', () => {
  it('sends a kept question through compute.run, stores its answer in History and announces it', async () => {
    const { bootTestApp, value } = await import('../../support/app');
    const appDir = mkdtempSync(join(tmpdir(), 'fl-queue-app-'));
    const app = await bootTestApp(appDir);
    try {
      const announced = new Promise<QueuedQuestion>((resolve) => app.rpc.on('queue.settled', resolve));
      // Online (the bundled service runs in-process), so the question goes at once.
      const q = value(await app.rpc.call('queue.add', { request: { query: 'airports within 30 km of Lyon' } }));
      expect(q.status === 'queued' || q.status === 'running').toBe(true);
      const done = await announced;
      expect(done).toMatchObject({ id: q.id, status: 'answered' });
      const entry = value(await app.rpc.call('history.get', { id: done.queryId! }));
      expect(entry.queryText).toBe('airports within 30 km of Lyon');
      expect(entry.featureCount).toBeGreaterThan(0);
      expect(value(await app.rpc.call('queue.drop', { id: q.id }))).toEqual({ dropped: true });
      expect(value(await app.rpc.call('queue.list', {})).items).toEqual([]);
    } finally {
      await app.services.close();
      rmSync(appDir, { recursive: true, force: true });
    }
  }, 60_000);
});
