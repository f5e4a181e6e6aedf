import { createServer, type AddressInfo } from 'node:net';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAppServices, type AppServices } from '../../../electron/root/app-services';
import { createMemoryLogger } from '../../../electron/ground/logger';
import { createMemorySecretStore } from '../../../electron/keys/memory-store';
import { createMemoryTransport } from '../../../electron/rpc/memory-transport';
import { createRpcClient } from '../../../shared/rpc/client';
import type { EventPayload } from '../../../shared/rpc/contract';
import type { Result } from '../../../shared/rpc/errors';
import type { QueryRecord } from '../../../shared/rpc/methods/history';
import { LOCAL_PROFILE_ID } from '../../../shared/rpc/methods/profiles';
import { ComputeResponseExact } from '../../../shared/service/compute';
import { ImageryRecordExact, ImageryResponseSuccess } from '../../../shared/service/imagery';
import { StreamResponseSuccess } from '../../../shared/service/stream';
import { SAMPLE_DIR } from './harness';

const dataDir = mkdtempSync(join(tmpdir(), 'fieldlens-offline-contract-'));
const secretStore = createMemorySecretStore();
let app: AppServices | null = null;

const value = <T>(r: Result<T>): T => {
  if (!r.ok) throw new Error(`${r.error.code}: ${r.error.message}`);
  return r.value;
};
const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

async function boot(startLocalService: boolean) {
  await app?.close();
  app = await createAppServices({
    dataDir,
    logger: createMemoryLogger(),
    shell: 'test',
    version: '0.0.0',
    clock: () => new Date(),
    secretStore,
    watchPhotos: false,
    startLocalService,
    client: { retry: { max: 1, baseDelayMs: 5 }, probeIntervalMs: 0 },
  });
  const rpc = createRpcClient(createMemoryTransport(app.router, app.bus));
  const connectivity: EventPayload<'connectivity.changed'>[] = [];
  rpc.on('connectivity.changed', (p) => connectivity.push(p));
  return { rpc, connectivity };
}

afterAll(async () => {
  await app?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** The body as cached, checked with the shared schema of its operation; its features. */
function featuresOf(rec: QueryRecord): { name: string; lon: number; lat: number }[] {
  expect(rec.raw).not.toBeNull();
  const raw = JSON.parse(rec.raw!) as unknown;
  if (rec.kind === 'compute')
    return ComputeResponseExact.parse(raw).results.features.map((f) => ({
      name: f.properties.name,
      lon: (f.geometry as { coordinates: number[] }).coordinates[0]!,
      lat: (f.geometry as { coordinates: number[] }).coordinates[1]!,
    }));
  if (rec.kind === 'stream')
    return StreamResponseSuccess.parse(raw).data.geojson.features.map((f) => ({
      name: f.properties.address ?? '',
      lon: (f.geometry as { coordinates: number[] }).coordinates[0]!,
      lat: (f.geometry as { coordinates: number[] }).coordinates[1]!,
    }));
  return ImageryResponseSuccess.parse(raw).data.map((r) => {
    ImageryRecordExact.parse(r);
    return { name: r.address, lon: r.geometry.coordinates[0], lat: r.geometry.coordinates[1] };
  });
}

describe('offline review through RPC, the bundled service stopped', () => {
  const ids: number[] = [];
  const online = new Map<number, unknown>();
  const media: string[] = [];
  let firstId = 0;
  let followId = 0;

  beforeAll(async () => {
    const { rpc } = await boot(true);
    expect(value(await rpc.call('connection.active', {}))).toMatchObject({ profileId: LOCAL_PROFILE_ID, kind: 'local' });
    const first = value(await rpc.call('compute.run', { request: { query: 'airports in Spain', limit: 5 } }));
    ComputeResponseExact.parse(first.response);
    const follow = value(
      await rpc.call('compute.run', { request: { query: 'only those within 50 km of Madrid', search_id: first.response.id, limit: 20 } }),
    );
    expect(ComputeResponseExact.parse(follow.response).results.numberMatched).toBeLessThan(first.response.results.numberMatched);
    const stream = value(
      await rpc.call('stream.run', { request: { query: 'sample', year: 2023, position: { points: [{ latitude: 52.52, longitude: 13.38 }] } } }),
    );
    const streamBody = StreamResponseSuccess.parse(stream.response);
    const page1 = value(await rpc.call('imagery.search', { request: { query: '*', limit: 4, page: 1 } }));
    const page2 = value(await rpc.call('imagery.search', { request: { query: '*', limit: 4, page: 2 } }));
    const p1 = ImageryResponseSuccess.parse(page1.response);
    const p2 = ImageryResponseSuccess.parse(page2.response);
    expect([p1.page, p2.page, p2.pageTotal]).toEqual([1, 2, 3]);
    for (const r of [first, follow, stream, page1, page2]) {
      ids.push(r.queryId);
      online.set(r.queryId, r.response);
    }
    firstId = first.queryId;
    followId = follow.queryId;

    // Two images viewed while online, one from each host.
    const rec = p2.data[0]!;
    const obs = streamBody.data.geojson.features[0]!;
    for (const url of [rec.image, obs.properties.image_url!]) {
      const got = value(await rpc.call('media.get', { url }));
      expect(got.fromCache).toBe(false);
      expect(value(await rpc.call('media.get', { url })).fromCache).toBe(true);
      media.push(url);
    }
    await app!.close();
    app = null;
  });

  it('opens every cached query exactly as received, with its features, and the continuation thread', async () => {
    const { rpc } = await boot(false);
    expect(value(await rpc.call('connection.active', {}))).toMatchObject({ profileId: LOCAL_PROFILE_ID, baseUrl: '' });
    const list = value(await rpc.call('history.list', {}));
    expect(list.items.map((q) => q.id).sort((a, b) => a - b)).toEqual([...ids].sort((a, b) => a - b));
    expect(list.items.every((q) => q.outcome === 'ok')).toBe(true);
    for (const id of ids) {
      const rec = value(await rpc.call('history.get', { id }));
      expect(JSON.parse(rec.raw!)).toEqual(online.get(id));
      const feats = featuresOf(rec);
      expect(feats.length).toBe(rec.featureCount);
      expect(feats.length).toBeGreaterThan(0);
      // Each query is found again by the place of its features and by their words.
      const [minx, miny, maxx, maxy] = rec.bbox!;
      for (const f of feats) {
        expect(f.lon).toBeGreaterThanOrEqual(minx - 1e-9);
        expect(f.lat).toBeLessThanOrEqual(maxy + 1e-9);
      }
      const byPlace = value(await rpc.call('history.list', { bbox: [minx, miny, maxx, maxy] }));
      expect(byPlace.items.map((q) => q.id)).toContain(id);
      const word = feats.map((f) => f.name.split(/[\s,]+/).find((w) => /^[A-Za-z]{4,}$/.test(w))).find(Boolean)!;
      const byWord = value(await rpc.call('history.list', { text: word }));
      expect(byWord.items.map((q) => q.id)).toContain(id);
    }
    const thread = value(await rpc.call('history.thread', { id: followId }));
    expect(thread.nodes.map((n) => [n.query.id, n.parentId])).toEqual([
      [firstId, null],
      [followId, firstId],
    ]);
    expect(value(await rpc.call('history.get', { id: followId })).searchId).toBe(
      (online.get(firstId) as { id: string }).id,
    );
  });

  const closedPort = () =>
    new Promise<number>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const { port } = server.address() as AddressInfo;
        server.close(() => resolve(port));
      });
    });

  it('opens the cached media, and refuses what was never viewed', async () => {
    const { rpc } = await boot(false);
    const samples = new Set(readdirSync(SAMPLE_DIR).map((f) => sha(readFileSync(join(SAMPLE_DIR, f)))));
    for (const url of media) {
      const got = value(await rpc.call('media.get', { url }));
      expect(got).toMatchObject({ fromCache: true, contentType: 'image/jpeg' });
      const bytes = Buffer.from(got.dataBase64, 'base64');
      expect(bytes.length).toBe(got.size);
      // The very bytes of a sample photo, as the service served them.
      expect(samples.has(sha(bytes))).toBe(true);
    }
    const never = new URL(media[0]!);
    never.searchParams.set('sig', 'never-seen');
    // A port just freed, where nothing listens: the stopped service's own port may already
    // serve another test running in parallel.
    never.port = String(await closedPort());
    const miss = await rpc.call('media.get', { url: never.toString() });
    expect(!miss.ok && miss.error.code).toBe('OFFLINE');
  });

  it('fails a new query fast with OFFLINE and a plain message, and tells the UI', async () => {
    const { rpc, connectivity } = await boot(false);
    const t = Date.now();
    for (const call of [
      () => rpc.call('compute.run', { request: { query: 'airports in Portugal' } }),
      () => rpc.call('stream.run', { request: { query: 'sample' } }),
      () => rpc.call('imagery.search', { request: { query: 'Paris' } }),
      () => rpc.call('history.rerun', { id: firstId }),
    ]) {
      const r = await call();
      expect(r.ok).toBe(false);
      if (!r.ok) {
        expect(r.error.code).toBe('OFFLINE');
        expect(r.error.message).toBe('Offline: the bundled local service is not running');
      }
    }
    expect(Date.now() - t).toBeLessThan(500);
    expect(connectivity.at(-1)).toMatchObject({ online: false });
    // Nothing reached a service, so nothing was added to the history.
    expect(value(await rpc.call('history.list', {})).items).toHaveLength(ids.length);
  });
});
