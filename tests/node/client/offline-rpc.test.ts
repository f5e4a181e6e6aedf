import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAppServices, type AppServices } from '../../../electron/core/app-services';
import { createMemorySecretStore } from '../../../electron/keys/memory-store';
import type { SecretStore } from '../../../electron/keys/secret-store';
import { createMemoryLogger } from '../../../electron/core/logger';
import { createMemoryTransport } from '../../../electron/rpc/memory-transport';
import { createRpcClient, type RpcClient } from '../../../shared/rpc/client';
import type { EventPayload } from '../../../shared/rpc/contract';
import type { Result } from '../../../shared/rpc/errors';
import { computeResponse } from '../cache/fixtures';
import { FakeService } from './fake-service';

let dir: string;
let svc: FakeService;
let store: SecretStore;
let app: AppServices;
let rpc: RpcClient;
let connectivity: EventPayload<'connectivity.changed'>[];

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
  });
  rpc = createRpcClient(createMemoryTransport(app.router, app.bus));
  rpc.on('connectivity.changed', (p) => connectivity.push(p));
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
  connectivity = [];
  await boot();
});
afterEach(async () => {
  await app.close();
  await svc.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('queries through RPC, reviewed with the service stopped', () => {
  it('opens every cached query, its features and its cached media offline', async () => {
    // Online: a compute query and its continuation, a stream query, two imagery pages, one image.
    const first = value(await rpc.call('compute.run', { request: { query: 'bakeries in Paris', limit: 5 } }));
    const followFx = computeResponse(4, 77);
    svc.behaviours.set('/v1/compute', () => followFx.body);
    const follow = value(
      await rpc.call('compute.run', { request: { query: 'only the open ones', search_id: first.response.id } }),
    );
    const stream = value(await rpc.call('stream.run', { request: { query: 'crosswalks' } }));
    const page1 = value(await rpc.call('imagery.search', { request: { query: 'avenida', page: 1 } }));
    const page2 = value(await rpc.call('imagery.search', { request: { query: 'avenida', page: 2 } }));
    expect(page2.response).toMatchObject({ page: 2, pageTotal: 3 });
    const mediaUrl = `${svc.url}/media/a.jpg`;
    expect(value(await rpc.call('media.get', { url: mediaUrl })).fromCache).toBe(false);
    expect(value(await rpc.call('media.get', { url: mediaUrl })).fromCache).toBe(true);
    expect(svc.count('/media')).toBe(1);

    const ids = [first.queryId, follow.queryId, stream.queryId, page1.queryId, page2.queryId];
    await svc.stop();

    // Offline: a new query discovers it and fails with OFFLINE; the UI heard about it.
    const failed = await rpc.call('compute.run', { request: { query: 'anything new' } });
    expect(failed.ok).toBe(false);
    if (!failed.ok) expect(failed.error.code).toBe('OFFLINE');
    expect(connectivity.at(-1)).toMatchObject({ online: false });
    const t = Date.now();
    const fast = await rpc.call('stream.run', { request: { query: 'again' } });
    expect(!fast.ok && fast.error.code).toBe('OFFLINE');
    expect(Date.now() - t).toBeLessThan(100);

    // Restart the app over the same data folder, still with no service: everything opens.
    await app.close();
    connectivity = [];
    await boot();
    const list = value(await rpc.call('history.list', {}));
    const answered = list.items.filter((q) => q.outcome === 'ok');
    expect(answered.map((q) => q.id).sort()).toEqual([...ids].sort());
    // The request that met the stopped service may have gone out, so it is kept as an error.
    expect(list.items.filter((q) => q.outcome === 'error').map((q) => q.queryText)).toEqual(['anything new']);
    for (const id of ids) {
      const rec = value(await rpc.call('history.get', { id }));
      expect(rec.raw).not.toBeNull();
      const body = JSON.parse(rec.raw!) as Record<string, unknown>;
      expect(rec.featureCount).toBeGreaterThan(0);
      // The features are there in the body exactly as received.
      const n =
        rec.kind === 'compute'
          ? (body['results'] as { features: unknown[] }).features.length
          : rec.kind === 'stream'
            ? (body['data'] as { geojson: { features: unknown[] } }).geojson.features.length
            : (body['data'] as unknown[]).length;
      expect(n).toBe(rec.featureCount);
    }
    const followRec = value(await rpc.call('history.get', { id: follow.queryId }));
    expect(followRec.raw).toBe(followFx.raw);
    expect(followRec.searchId).toBe(first.response.id);
    expect(JSON.stringify(followRec)).not.toContain('sk-test');

    const thread = value(await rpc.call('history.thread', { id: follow.queryId }));
    expect(thread.nodes.map((n) => [n.query.id, n.parentId])).toEqual([
      [first.queryId, null],
      [follow.queryId, first.queryId],
    ]);
    const byText = value(await rpc.call('history.list', { text: 'crosswalk' }));
    expect(byText.items.map((q) => q.id)).toEqual([stream.queryId]);
    const media = value(await rpc.call('media.get', { url: mediaUrl }));
    expect(media).toMatchObject({ fromCache: true, contentType: 'image/jpeg', size: 4 });
    expect(Buffer.from(media.dataBase64, 'base64')).toEqual(Buffer.from([0xff, 0xd8, 0xff, 0xd9]));
    const uncached = await rpc.call('media.get', { url: `${svc.url}/media/never-seen.jpg` });
    expect(!uncached.ok && uncached.error.code).toMatch(/OFFLINE/);
    const stats = value(await rpc.call('cache.stats', {}));
    expect(stats.queries).toEqual({ compute: 3, stream: 1, imagery: 2 }); // one kept as an error
    expect(stats.media.count).toBe(1);
  });

  it('stores HTTP errors in the history and returns their code, status and field errors', async () => {
    svc.behaviours.set('/v1/compute', (_r, reply) =>
      reply.code(400).type('application/problem+json').send({ title: 'Invalid', status: 400, errors: [{ field: 'mode', message: 'unknown mode' }] }),
    );
    const r = await rpc.call('compute.run', { request: { query: 'q', mode: 'bogus' } });
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error.code).toBe('VALIDATION');
      expect(r.error.details).toMatchObject({ status: 400, fieldErrors: [{ field: 'mode', message: 'unknown mode' }] });
    }
    const [item] = value(await rpc.call('history.list', {})).items;
    expect(item).toMatchObject({ outcome: 'error', httpStatus: 400, queryText: 'q' });
    const rec = value(await rpc.call('history.get', { id: item!.id }));
    expect(rec.error).toMatchObject({ code: 'VALIDATION', status: 400 });
    expect(rec.raw).toContain('unknown mode');
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
});
