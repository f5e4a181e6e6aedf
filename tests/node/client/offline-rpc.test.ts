import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Cache } from '../../../electron/cache';
import { createAppServices, type AppServices } from '../../../electron/root/app-services';
import { createMemorySecretStore } from '../../../electron/keys/memory-store';
import type { SecretStore } from '../../../electron/keys/secret-store';
import { createMemoryLogger } from '../../../electron/ground/logger';
import { createMemoryTransport } from '../../../electron/rpc/memory-transport';
import { createRpcClient, type RpcClient } from '../../../shared/rpc/client';
import type { Result } from '../../../shared/rpc/errors';
import { QUERY_MAX_CHARS } from '../../../shared/service/compute';
import { computeResponse } from '../cache/fixtures';
import { FakeService } from './fake-service';
import { createUploadService } from '../../../renderer/src/services/uploads';

let dir: string;
let svc: FakeService;
let store: SecretStore;
let app: AppServices;
let rpc: RpcClient;

const value = <T>(r: Result<T>): T => {
  if (!r.ok) throw new Error(`${r.error.code}: ${r.error.message}`);
  return r.value;
};

async function boot() {
  app = await createAppServices({
    dataDir: dir,
    logger: createMemoryLogger(),
    shell: 'test',
    version: '0.0.0',
    clock: () => new Date(),
    secretStore: store,
    client: { retry: { max: 1, baseDelayMs: 5 }, probeIntervalMs: 0 },
    // The fake is a remote profile; the bundled service is covered by tests/contract/client.
    startLocalService: false,
  });
  rpc = createRpcClient(createMemoryTransport(app.router, app.bus));
  // The fake service is a remote profile with both keys set, selected as the active connection.
  const existing = value(await rpc.call('profiles.list', {})).profiles.find((p) => p.label === 'Fake');
  const profile =
    existing ?? value(await rpc.call('profiles.save', { label: 'Fake', baseUrl: svc.url, searchBaseUrl: svc.url }));
  if (!existing) {
    value(await rpc.call('keys.set', { profileId: profile.id, kind: 'bearer', key: 'sk-test-bearer-key' }));
    value(await rpc.call('keys.set', { profileId: profile.id, kind: 'search', key: 'sk-test-search-key' }));
  }
  value(await rpc.call('profiles.select', { id: profile.id }));
}

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fieldlens-offline-'));
  store = createMemorySecretStore();
  svc = await new FakeService().start();
  await boot();
});
afterEach(async () => {
  await app.close();
  await svc.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('queries through RPC against a fake remote service', () => {
  it('returns a refusal (4xx) with its code, status and field errors, and keeps nothing of it', async () => {
    svc.behaviours.set('/v1/compute', (_r, reply) =>
      reply.code(400).type('application/problem+json').send({ title: 'Invalid', status: 400, errors: [{ field: 'mode', message: 'unknown mode' }] }),
    );
    const r = await rpc.call('compute.run', { request: { query: 'q', mode: 'bogus' } });
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error.code).toBe('VALIDATION');
      expect(r.error.details).toMatchObject({ status: 400, fieldErrors: [{ field: 'mode', message: 'unknown mode' }] });
    }
    expect(svc.count('/v1/compute')).toBe(1);
    expect(value(await rpc.call('history.list', {})).items).toEqual([]);
  });

  it('keeps a request the service failed on (5xx) in the history, with its error', async () => {
    svc.behaviours.set('/v1/compute', (_r, reply) => reply.code(500).type('text/plain').send('the service fell over'));
    const r = await rpc.call('compute.run', { request: { query: 'airports near me' } });
    expect(!r.ok && r.error.code).toBe('HTTP');
    const [item] = value(await rpc.call('history.list', {})).items;
    expect(item).toMatchObject({ outcome: 'error', httpStatus: 500, queryText: 'airports near me' });
    const rec = value(await rpc.call('history.get', { id: item!.id }));
    expect(rec.error).toMatchObject({ code: 'HTTP', status: 500 });
    expect(rec.raw).toContain('fell over');
  });

  it('stores nothing of an oversized question: no row, and the cache file and its WAL stay as they were', async () => {
    const file = join(dir, 'cache.db');
    const onDisk = () => statSync(file).size + (existsSync(file + '-wal') ? statSync(file + '-wal').size : 0);
    const before = onDisk();
    // 4 MiB: past the app's limit, and past the service's body limit (the fake's 1 MiB: a 413).
    const huge = 'where are the depots '.repeat(Math.ceil((4 * 1024 * 1024) / 21));
    const atLimit = 'x'.repeat(QUERY_MAX_CHARS + 1);
    for (const [op, request] of [
      ['compute.run', { query: huge }],
      ['compute.run', { query: atLimit }],
      ['stream.run', { query: huge }],
      ['imagery.search', { query: huge }],
      ['queue.add', { query: huge }],
    ] as const) {
      const r = await rpc.call(op, { request } as never);
      expect(!r.ok && r.error.code, op).toBe('VALIDATION');
    }
    // Not sent either: a refused question costs no request.
    expect(svc.received).toEqual([]);
    expect(value(await rpc.call('history.list', {})).items).toEqual([]);
    expect(value(await rpc.call('queue.list', {})).items).toEqual([]);
    const db = new Database(file, { readonly: true });
    try {
      expect(db.prepare('SELECT (SELECT count(*) FROM queries) + (SELECT count(*) FROM question_queue)').pluck().get()).toBe(0);
    } finally {
      db.close();
    }
    // The file and the WAL did not grow by more than a few pages (one page is 16 KiB).
    expect(onDisk() - before).toBeLessThanOrEqual(64 * 1024);
  });

  it('refuses to store a request whose text is past the limit, however it reaches the cache', () => {
    const cache = Cache.open(join(dir, 'other.db'));
    try {
      const meta = (query: string) => ({ profileId: 'p', request: { query }, startedAt: 1, finishedAt: 2 });
      const error = { code: 'HTTP' as const, message: 'x', status: 500 };
      expect(() => cache.storeError('compute', meta('y'.repeat(QUERY_MAX_CHARS + 1)), error)).toThrow(RangeError);
      expect(cache.db.prepare('SELECT count(*) FROM queries').pluck().get()).toBe(0);
      const id = cache.storeError('compute', meta('y'.repeat(QUERY_MAX_CHARS)), error);
      expect(cache.get(id)!.queryText.length).toBe(QUERY_MAX_CHARS);
    } finally {
      cache.close();
    }
  });

  it('cancels a pending run by its runId', async () => {
    svc.behaviours.set('/v1/compute', async () => {
      await new Promise((r) => setTimeout(r, 2000));
      return computeResponse(1, 1).body;
    });
    const pendingRun = rpc.call('compute.run', { request: { query: 'slow' }, runId: 'run-1' });
    await new Promise((r) => setTimeout(r, 100));
    expect(value(await rpc.call('compute.cancel', { runId: 'run-1' }))).toEqual({ cancelled: true });
    const r = await pendingRun;
    expect(!r.ok && r.error.code).toBe('CANCELLED');
    expect(value(await rpc.call('compute.cancel', { runId: 'run-1' }))).toEqual({ cancelled: false });
    // A cancelled run is not part of the history.
    expect(value(await rpc.call('history.list', {})).items).toEqual([]);
  });

  it('reruns a query (with its attachments) and reports added, removed and changed features', async () => {
    const ids = ['a', 'b', 'c'];
    const before = computeResponse(3, 5, { ids });
    const after = computeResponse(3, 5, { ids: ['a', 'b', 'd'] });
    after.body.results.features[0]!.properties.score = 0.001;
    svc.behaviours.set('/v1/compute', (_r, _reply, n) => (n === 1 ? before.body : after.body));
    const csv = Buffer.from('name,lat,lon\nx,1,2\n');
    const first = value(
      await rpc.call('compute.run', {
        request: { query: 'shops' },
        attachments: [{ field: 'files', name: 'pts.csv', contentType: 'text/csv', dataBase64: csv.toString('base64') }],
      }),
    );
    const rerun = value(await rpc.call('history.rerun', { id: first.queryId }));
    expect(rerun.previousId).toBe(first.queryId);
    expect(rerun.diff).toEqual({ added: ['d'], removed: ['c'], changed: ['a'], unchanged: 1 });
    expect(svc.received[1]!.files!.map((f) => [f.filename, f.content])).toEqual([['pts.csv', csv.toString()]]);
    expect(svc.received[1]!.fields!['query']).toBe('shops');
    expect(svc.received[1]!.fields!['files']).toBeUndefined();
    expect(value(await rpc.call('history.get', { id: rerun.queryId })).rerunOf).toBe(first.queryId);

    expect(value(await rpc.call('history.delete', { id: first.queryId }))).toEqual({ deleted: true });
    const gone = await rpc.call('history.get', { id: first.queryId });
    expect(!gone.ok && gone.error.code).toBe('NOT_FOUND');
    expect(value(await rpc.call('cache.vacuum', {})).bytesAfter).toBeGreaterThan(0);
  });

  it('sends a staged file and an inline one byte for byte, and removes the staged copy after the run', async () => {
    svc.behaviours.set('/v1/compute', () => computeResponse(1, 1).body);
    const rows = Array.from({ length: 400_000 }, (_, i) => `p${i},${(i % 90).toFixed(1)},${(i % 180).toFixed(1)}`);
    const big = `name,lat,lon\n${rows.join('\n')}\n`;
    const small = 'name,lat,lon\nx,1,2\n';
    const files = [
      { field: 'files' as const, name: 'big.csv', contentType: 'text/csv', dataBase64: Buffer.from(big).toString('base64') },
      { field: 'files' as const, name: 'small.csv', contentType: 'text/csv', dataBase64: Buffer.from(small).toString('base64') },
    ];
    // The small file fits the call; the big one goes ahead in chunks.
    const sent = value(await createUploadService(rpc).forCall([files[1]!, files[0]!]));
    expect(sent.map((a) => 'stagedId' in a)).toEqual([false, true]);
    value(await rpc.call('compute.run', { request: { query: 'shops' }, attachments: sent }));
    expect(svc.received[0]!.files!.map((f) => [f.filename, f.content])).toEqual([
      ['small.csv', small],
      ['big.csv', big],
    ]);
    expect(readdirSync(join(dir, 'attachment-uploads'))).toEqual([]);
    // A staged id serves one call: used again, it is not found.
    const again = await rpc.call('compute.run', { request: { query: 'shops' }, attachments: sent });
    expect(!again.ok && again.error.code).toBe('NOT_FOUND');
  });

  it('cancels street-level and imagery runs through their own methods, each only its own kind', async () => {
    const slow = async () => {
      await new Promise((r) => setTimeout(r, 2000));
      return null;
    };
    svc.behaviours.set('/v1/stream', slow);
    svc.behaviours.set('/search', slow);
    const street = rpc.call('stream.run', { request: { query: 'bridge' }, runId: 'run-s' });
    const imagery = rpc.call('imagery.search', { request: { query: 'Paris' }, runId: 'run-i' });
    await new Promise((r) => setTimeout(r, 100));
    // Another kind's cancel leaves the run alone.
    expect(value(await rpc.call('compute.cancel', { runId: 'run-s' }))).toEqual({ cancelled: false });
    expect(value(await rpc.call('stream.cancel', { runId: 'run-i' }))).toEqual({ cancelled: false });
    expect(value(await rpc.call('stream.cancel', { runId: 'run-s' }))).toEqual({ cancelled: true });
    expect(value(await rpc.call('imagery.cancel', { runId: 'run-i' }))).toEqual({ cancelled: true });
    for (const r of [await street, await imagery]) expect(!r.ok && r.error.code).toBe('CANCELLED');
  });

  it('reruns a street-level entry on the connection it was made with, not the active one', async () => {
    const made = value(await rpc.call('stream.run', { request: { query: 'bridge' } }));
    const other = await new FakeService().start();
    try {
      const second = value(await rpc.call('profiles.save', { label: 'Other', baseUrl: other.url, searchBaseUrl: other.url }));
      value(await rpc.call('profiles.select', { id: second.id }));
      const rerun = value(await rpc.call('history.rerun', { id: made.queryId }));
      expect([svc.count('/v1/stream'), other.count('/v1/stream')]).toEqual([2, 0]);
      // With its own key, on its own host.
      expect(svc.received.at(-1)!.headers['authorization']).toBe('Bearer sk-test-bearer-key');
      const original = value(await rpc.call('history.get', { id: made.queryId }));
      expect(value(await rpc.call('history.get', { id: rerun.queryId })).profileId).toBe(original.profileId);
    } finally {
      await other.stop();
    }
  });

  it('reports the connection state on demand from GET /health', async () => {
    expect(value(await rpc.call('service.health', {}))).toEqual({ online: true, base: true, search: true, message: null });
    await svc.stop();
    const state = value(await rpc.call('service.health', {}));
    expect(state).toMatchObject({ online: false, base: false, search: false });
    expect(state.message).toMatch(/cannot be reached \(ECONNREFUSED\)/);
    svc = await new FakeService().start();
  });
});
