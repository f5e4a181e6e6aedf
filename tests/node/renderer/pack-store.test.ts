import { createPinia } from 'pinia';
import { describe, expect, it } from 'vitest';
import { createApp } from 'vue';
import type { RpcClient } from '../../../shared/rpc/client';
import type { Result } from '../../../shared/rpc/errors';
import type { PackProgressEvent } from '../../../shared/rpc/methods/pack';
import { provideRpc } from '../../../renderer/src/api/rpc';
import { usePackStore } from '../../../renderer/src/stores/pack';

type Call = { method: string; input: Record<string, unknown> };

/** An RPC client whose answers the test scripts; calls are recorded, events can be sent. */
function scriptedClient(answer: (method: string, input: Record<string, unknown>) => Result<unknown>) {
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
  return app.runWithContext(() => usePackStore());
}

const ok = <T>(value: T): Result<T> => ({ ok: true, value });
const event = (over: Partial<PackProgressEvent>): PackProgressEvent => ({
  jobId: 'j1',
  state: 'running',
  phase: 'results',
  done: 0,
  total: 10,
  path: '/p/a.gpkg',
  bytes: null,
  contents: null,
  mediaMissing: null,
  error: null,
  ...over,
});
const SEL = { area: { bbox: [10, 50, 11, 51] as [number, number, number, number] }, maxTileZoom: 3 };

describe('pack store', () => {
  it('estimates a selection and keeps which one it estimated', async () => {
    const est = { queries: 2, features: 30, media: { count: 1, bytes: 100, missing: 0 }, uploads: { count: 0, bytes: 0 }, layers: [], tiles: { count: 4, online: true, tooMany: false }, bytes: 5000 };
    const s = scriptedClient(() => ok(est));
    const store = withStore(s.client);
    await store.runEstimate(SEL);
    expect(s.calls).toEqual([{ method: 'pack.estimate', input: SEL }]);
    expect(store.estimate).toEqual(est);
    expect(store.estimated).toEqual(SEL);
  });

  it('follows its job through progress events to the end, and cancels it', async () => {
    const s = scriptedClient((m) => (m === 'pack.create' ? ok({ jobId: 'j1', path: '/p/a.gpkg' }) : ok({ cancelled: true })));
    const store = withStore(s.client);
    await store.create(SEL, '/p/a.gpkg');
    expect(s.calls[0]).toEqual({ method: 'pack.create', input: { selection: SEL, path: '/p/a.gpkg' } });
    expect(store.running).toBe(true);
    s.emit('pack.progress', event({ phase: 'media', done: 5 }));
    expect(store.job?.phase).toBe('media');
    // Another job's events do not take over the one being followed.
    s.emit('pack.progress', event({ jobId: 'other', done: 9 }));
    expect(store.job?.jobId).toBe('j1');
    await store.cancel();
    expect(s.calls[1]).toEqual({ method: 'pack.cancel', input: { jobId: 'j1' } });
    s.emit('pack.progress', event({ state: 'cancelled', phase: 'finishing' }));
    expect(store.running).toBe(false);
    expect(store.job?.state).toBe('cancelled');
  });

  it('shows a failed job and a refused open as errors', async () => {
    const s = scriptedClient((m) =>
      m === 'pack.open' ? { ok: false, error: { code: 'VALIDATION', message: '/x.gpkg is not a Fieldlens area pack' } } : ok({ jobId: 'j1', path: '/p/a.gpkg' }),
    );
    const store = withStore(s.client);
    await store.create(SEL);
    expect(s.calls[0]!.input).toEqual({ selection: SEL });
    s.emit('pack.progress', event({ state: 'failed', error: { code: 'CONFLICT', message: 'exists and is not a pack' } }));
    expect(store.error?.code).toBe('CONFLICT');
    await store.open('/x.gpkg');
    expect(store.error).toEqual({ code: 'VALIDATION', message: '/x.gpkg is not a Fieldlens area pack' });
    expect(store.opened).toBeNull();
  });
});
