import { createPinia } from 'pinia';
import { describe, expect, it } from 'vitest';
import { createApp } from 'vue';
import type { RpcClient } from '../../../shared/rpc/client';
import type { Result } from '../../../shared/rpc/errors';
import { UPLOAD_CHUNK_BYTES, type LayerInfo } from '../../../shared/rpc/methods/layers';
import { layerCredits } from '../../../renderer/src/about/credits';
import { provideRpc } from '../../../renderer/src/api/rpc';
import { bytesToBase64 } from '../../../renderer/src/lib/base64';
import { bboxText, progressText } from '../../../renderer/src/lib/layers';
import { useLayersStore } from '../../../renderer/src/stores/layers';

/** Deterministic bytes (no Node here: this file is type-checked as page code). */
function bytesOf(n: number, seed = 1): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(n);
  let x = seed >>> 0;
  for (let i = 0; i < n; i++) out[i] = (x = (Math.imul(x, 1664525) + 1013904223) >>> 0) >>> 24;
  return out;
}
function fromBase64(s: string): Uint8Array {
  const bin = atob(s);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}
/** Compared in a loop: a deep equality over megabytes would take minutes. */
function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

type Call = { method: string; input: Record<string, unknown> };

/** An RPC client whose answers the test scripts; calls are recorded, events can be sent. */
function scriptedClient(answer: (method: string, input: Record<string, unknown>) => Promise<Result<unknown>> | Result<unknown>) {
  const calls: Call[] = [];
  const listeners = new Map<string, ((p: unknown) => void)[]>();
  const client = {
    call: async (method: string, input: Record<string, unknown>) => {
      calls.push({ method, input });
      return answer(method, input);
    },
    on: (event: string, cb: (p: unknown) => void) => {
      listeners.set(event, [...(listeners.get(event) ?? []), cb]);
      return () => undefined;
    },
  } as unknown as RpcClient;
  return { client, calls, emit: (event: string, p: unknown) => listeners.get(event)?.forEach((cb) => cb(p)) };
}

function withStore(client: RpcClient) {
  const app = createApp({});
  provideRpc(app, client);
  app.use(createPinia());
  return app.runWithContext(() => useLayersStore());
}

const ok = <T>(value: T): Result<T> => ({ ok: true, value });
const layer = (id: string, over: Partial<LayerInfo> = {}): LayerInfo => ({
  id,
  name: `layer ${id}`,
  sourceFile: `/data/${id}.gpkg`,
  format: 'gpkg',
  featureCount: 10,
  geometryTypes: { Point: 10 },
  bbox: [8.5, 47.3, 8.54, 47.33],
  sizeBytes: 4096,
  licence: null,
  sourceText: `${id}.gpkg`,
  warnings: [],
  createdAt: '2026-11-23T10:00:00.000Z',
  ...over,
});

describe('the layers store', () => {
  it('loads the list, and keeps the reason when there is none (a remote connection)', async () => {
    let remote = false;
    const s = scriptedClient(() =>
      remote
        ? { ok: false, error: { code: 'CONFLICT', message: 'Data layers belong to the bundled local service' } }
        : ok({ layers: [layer('1'), layer('2')] }),
    );
    const store = withStore(s.client);
    await store.load();
    expect(store.layers.map((l) => l.id)).toEqual(['1', '2']);
    expect(store.listError).toBeNull();
    remote = true;
    s.emit('connection.changed', {});
    await expect.poll(() => store.listError?.code).toBe('CONFLICT');
    expect(store.layers).toEqual([]);
  });

  it('sends a chosen file in chunks in order, then imports it and follows its job to the new layer', async () => {
    const bytes = bytesOf(2 * UPLOAD_CHUNK_BYTES + 10);
    const s = scriptedClient((method, input) => {
      if (method === 'layers.uploadStart') return ok({ uploadId: 'up-1' });
      if (method === 'layers.uploadChunk') return ok({ received: (input['offset'] as number) + fromBase64(input['dataBase64'] as string).length });
      if (method === 'layers.import') return ok({ jobId: 'up-1', file: 'town.osm.pbf' });
      throw new Error(`unexpected ${method}`);
    });
    const store = withStore(s.client);
    await store.addFile(new File([bytes], 'town.osm.pbf'));
    expect(s.calls.map((c) => c.method)).toEqual(['layers.uploadStart', 'layers.uploadChunk', 'layers.uploadChunk', 'layers.uploadChunk', 'layers.import']);
    expect(s.calls[0]!.input).toEqual({ name: 'town.osm.pbf', size: bytes.length });
    const chunks = s.calls.filter((c) => c.method === 'layers.uploadChunk');
    expect(chunks.map((c) => c.input['offset'])).toEqual([0, UPLOAD_CHUNK_BYTES, 2 * UPLOAD_CHUNK_BYTES]);
    const sent = chunks.map((c) => fromBase64(c.input['dataBase64'] as string));
    const joined = new Uint8Array(sent.reduce((n, c) => n + c.length, 0));
    sent.reduce((at, c) => (joined.set(c, at), at + c.length), 0);
    expect(sameBytes(joined, bytes)).toBe(true);
    expect(s.calls.at(-1)!.input).toEqual({ uploadId: 'up-1' });
    expect(store.busy).toBe(true);

    s.emit('layers.progress', { jobId: 'other', file: 'x', phase: 'reading', done: 1, total: 9, unit: 'bytes', features: 0 });
    s.emit('layers.progress', { jobId: 'up-1', file: 'town.osm.pbf', phase: 'reading', done: 5, total: 10, unit: 'bytes', features: 7 });
    expect(store.job).toMatchObject({ jobId: 'up-1', phase: 'reading', done: 5, features: 7 });
    s.emit('layers.done', { jobId: 'up-1', file: 'town.osm.pbf', state: 'done', layer: layer('9', { name: 'town' }), error: null });
    expect(store.job).toBeNull();
    expect(store.added?.name).toBe('town');
    expect(store.layers.map((l) => l.id)).toEqual(['9']);
  });

  it('cancel while sending stops between chunks, drops the upload, and imports nothing', async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const s = scriptedClient(async (method) => {
      if (method === 'layers.uploadStart') return ok({ uploadId: 'up-2' });
      if (method === 'layers.uploadChunk') {
        await held;
        return { ok: false, error: { code: 'NOT_FOUND', message: 'No upload up-2' } };
      }
      if (method === 'layers.cancel') return ok({ cancelled: true });
      throw new Error(`unexpected ${method}`);
    });
    const store = withStore(s.client);
    const sending = store.addFile(new File([bytesOf(3 * UPLOAD_CHUNK_BYTES)], 'big.gpkg'));
    await expect.poll(() => s.calls.some((c) => c.method === 'layers.uploadChunk')).toBe(true);
    await store.cancel();
    release();
    await sending;
    expect(s.calls.map((c) => c.method)).toEqual(['layers.uploadStart', 'layers.uploadChunk', 'layers.cancel']);
    expect(s.calls.at(-1)!.input).toEqual({ jobId: 'up-2' });
    expect([store.job, store.error, store.cancelled]).toEqual([null, null, 'big.gpkg']);
  });

  it('imports a path; cancel asks the Node side and the cancelled end is told, not an error', async () => {
    const s = scriptedClient((method) => (method === 'layers.import' ? ok({ jobId: 'j-1', file: 'grid.osm.pbf' }) : ok({ cancelled: true })));
    const store = withStore(s.client);
    await store.addPath('/data/grid.osm.pbf');
    expect(s.calls[0]).toEqual({ method: 'layers.import', input: { path: '/data/grid.osm.pbf' } });
    expect(store.job).toMatchObject({ jobId: 'j-1', file: 'grid.osm.pbf' });
    await store.cancel();
    expect(s.calls[1]).toEqual({ method: 'layers.cancel', input: { jobId: 'j-1' } });
    s.emit('layers.done', { jobId: 'j-1', file: 'grid.osm.pbf', state: 'cancelled', layer: null, error: { code: 'CANCELLED', message: 'grid.osm.pbf: import cancelled' } });
    expect([store.job, store.error, store.cancelled]).toEqual([null, null, 'grid.osm.pbf']);
  });

  it('shows a refused file at once, and a failed job when it ends', async () => {
    const refusal = { code: 'VALIDATION' as const, message: 'empty.gpkg: the file is empty (0 bytes)' };
    let refuse = true;
    const s = scriptedClient(() => (refuse ? { ok: false, error: refusal } : ok({ jobId: 'j-2', file: 'cut.osm.pbf' })));
    const store = withStore(s.client);
    await store.addPath('/data/empty.gpkg');
    expect([store.job, store.error]).toEqual([null, refusal]);
    refuse = false;
    await store.addPath('/data/cut.osm.pbf');
    expect(store.error).toBeNull();
    const failure = { code: 'VALIDATION' as const, message: 'cut.osm.pbf: truncated OSM PBF at byte 70' };
    s.emit('layers.done', { jobId: 'j-2', file: 'cut.osm.pbf', state: 'failed', layer: null, error: failure });
    expect([store.job, store.error, store.added]).toEqual([null, failure, null]);
  });

  it('removes a layer, hiding it from the map if shown; draws a layer and asks the map to zoom', async () => {
    const features = { type: 'FeatureCollection', features: [{ type: 'Feature', id: '1/1', geometry: { type: 'Point', coordinates: [8.5, 47.3] }, properties: {} }] };
    const s = scriptedClient((method) => {
      if (method === 'layers.list') return ok({ layers: [layer('1'), layer('2')] });
      if (method === 'layers.features') return ok({ layer: layer('1'), features, truncated: false });
      if (method === 'layers.remove') return ok({ removed: true });
      throw new Error(method);
    });
    const store = withStore(s.client);
    await store.load();
    await store.showOnMap('1');
    expect(store.shown?.features.features).toHaveLength(1);
    expect(store.fitSeq).toBe(1);
    store.zoomToShown();
    expect(store.fitSeq).toBe(2);
    expect(await store.remove('1')).toBe(true);
    expect(s.calls.at(-1)).toEqual({ method: 'layers.remove', input: { id: '1' } });
    expect(store.layers.map((l) => l.id)).toEqual(['2']);
    expect(store.shown).toBeNull();
    store.zoomToShown();
    expect(store.fitSeq).toBe(2);
    s.emit('layers.changed', { layers: [layer('2'), layer('3')] });
    expect(store.layers.map((l) => l.id)).toEqual(['2', '3']);
  });
});

describe('layer helpers of the renderer', () => {
  it('base64 gives the RFC 4648 test vectors and round-trips sizes around its block boundary', () => {
    const ascii = (s: string) => Uint8Array.from(s, (c) => c.charCodeAt(0));
    expect(['', 'f', 'fo', 'foo', 'foob', 'fooba', 'foobar'].map((s) => bytesToBase64(ascii(s)))).toEqual(['', 'Zg==', 'Zm8=', 'Zm9v', 'Zm9vYg==', 'Zm9vYmE=', 'Zm9vYmFy']);
    for (const n of [1, 2, 3, 0x8000 - 1, 0x8000, 0x8000 + 1, 100_000]) {
      const b = bytesOf(n, n);
      expect(sameBytes(fromBase64(bytesToBase64(b)), b)).toBe(true);
    }
  });

  it('credits name each layer with its source and licence: ODbL for OSM, a plain note when the file states none', () => {
    const rows = layerCredits([
      layer('1', { name: 'Lennbrück', format: 'osm-pbf', sourceFile: '/data/town.osm.pbf', featureCount: 1234, licence: 'OpenStreetMap contributors, ODbL 1.0', sourceText: 'town.osm.pbf (OpenStreetMap contributors, ODbL 1.0)' }),
      layer('2', { name: 'Sites', sourceFile: 'C:\\data\\sites.gpkg', featureCount: 3 }),
    ]);
    expect(rows).toEqual([
      { name: 'Lennbrück', role: 'Data layer: 1,234 features from town.osm.pbf', via: 'town.osm.pbf (OpenStreetMap contributors, ODbL 1.0)', licence: 'OpenStreetMap contributors, ODbL 1.0', url: 'https://www.openstreetmap.org/copyright' },
      { name: 'Sites', role: 'Data layer: 3 features from sites.gpkg', via: '2.gpkg', licence: 'Licence not stated in the file: check it with its supplier', url: '' },
    ]);
  });

  it('writes extents and progress for people', () => {
    expect(bboxText([8.50104, 47.29651, 8.54, 47.3235])).toBe('W 8.5010, S 47.2965 – E 8.5400, N 47.3235');
    expect(bboxText(null)).toBe('none (no features)');
    expect(progressText({ phase: 'uploading', done: 512, total: 2048, unit: 'bytes', features: 0 })).toBe('Sending the file: 512 B of 2 KB');
    expect(progressText({ phase: 'reading', done: 3, total: null, unit: 'items', features: 1500 })).toBe('Reading features: 3, 1,500 features');
  });
});
