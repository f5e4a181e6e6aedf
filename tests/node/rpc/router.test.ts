import { describe, expect, it } from 'vitest';
import { createRouter, type Handlers } from '../../../electron/rpc/router';
import { createMemoryLogger } from '../../../electron/ground/logger';
import { RpcError } from '../../../shared/rpc/errors';
import { METHOD_NAMES, EVENT_NAMES } from '../../../shared/rpc/names';
import { methodNames, eventNames } from '../../../shared/rpc/contract';

const connection = { profileId: 'local', label: 'Local', kind: 'local' as const, baseUrl: 'http://127.0.0.1:1', searchBaseUrl: 'http://127.0.0.1:2' };

function handlers(over: Partial<Handlers> = {}): Handlers {
  return {
    'app.info': () => ({ name: 'Fieldlens', version: '1.0.0', shell: 'test', dataDir: '/tmp' }),
    'connection.active': () => connection,
    ...over,
  } as Handlers;
}

describe('router', () => {
  it('returns ok envelopes with validated output', async () => {
    const router = createRouter(handlers(), createMemoryLogger());
    expect(await router.dispatch('connection.active', {})).toEqual({ ok: true, value: connection });
  });

  it('turns a thrown exception into INTERNAL and keeps the stack in the log only', async () => {
    const logger = createMemoryLogger();
    const router = createRouter(
      handlers({
        'app.info': () => {
          throw new Error('disk on fire');
        },
      }),
      logger,
    );
    const r = await router.dispatch('app.info', {});
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error.code).toBe('INTERNAL');
      expect(JSON.stringify(r.error)).not.toMatch(/at .*router\.test/);
    }
    expect(logger.lines.join('\n')).toMatch(/disk on fire[\s\S]*router\.test/);
  });

  it('passes RpcError codes and details through', async () => {
    const router = createRouter(
      handlers({
        'app.info': () => {
          throw new RpcError('OFFLINE', 'No network', { retryAfter: 5 });
        },
      }),
      createMemoryLogger(),
    );
    expect(await router.dispatch('app.info', {})).toEqual({
      ok: false,
      error: { code: 'OFFLINE', message: 'No network', details: { retryAfter: 5 } },
    });
  });

  it('refuses output outside the contract as INTERNAL', async () => {
    const logger = createMemoryLogger();
    const router = createRouter(handlers({ 'app.info': () => ({ name: 1 }) as never }), logger);
    const r = await router.dispatch('app.info', {});
    expect(!r.ok && r.error.code).toBe('INTERNAL');
    expect(logger.lines.some((l) => l.includes('outside the contract'))).toBe(true);
  });

  it('gives NOT_FOUND for unknown or non-string methods and VALIDATION for bad input', async () => {
    const router = createRouter(handlers(), createMemoryLogger());
    // An object name whose toString is not a function made String() throw out of dispatch.
    for (const m of ['x.y', 42, undefined, null, [], '__proto__', 'toString', { toString: 1 }, { toString: () => 'app.info' }])
      expect((await router.dispatch(m, {})) as unknown).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
    expect(await router.dispatch('app.info', 'text')).toMatchObject({ ok: false, error: { code: 'VALIDATION' } });
  });

  it('the preload allowlist names exactly the contract', () => {
    expect([...METHOD_NAMES].sort()).toEqual([...methodNames].sort());
    expect([...EVENT_NAMES].sort()).toEqual([...eventNames].sort());
  });
});

describe('one validation per boundary', () => {
  // A response as the service client hands it over: already checked when it came over HTTP.
  const response = {
    id: 'r1',
    query: 'q',
    status: 'completed',
    answer: { status: 'completed', content: null },
    results: { type: 'FeatureCollection', features: [], numberMatched: 0, numberReturned: 0 },
    warnings: [],
    usage: { meters: 1 },
  };

  it('hands a run response over as the client validated it, without parsing it again', async () => {
    const router = createRouter(handlers({ 'compute.run': () => ({ queryId: 7, response }) as never }), createMemoryLogger());
    const r = await router.dispatch('compute.run', { request: { query: 'q' } });
    expect(r.ok).toBe(true);
    // The very object, not a parsed copy: zod builds a new object for every object it parses.
    if (r.ok) expect((r.value as { response: unknown }).response).toBe(response);
  });

  it('still checks the envelope of a run', async () => {
    const router = createRouter(handlers({ 'stream.run': () => ({ queryId: 'x', response }) as never }), createMemoryLogger());
    const r = await router.dispatch('stream.run', { request: { query: 'q' } });
    expect(r.ok ? null : r.error.code).toBe('INTERNAL');
  });

  it('parses the output of other methods (a copy comes back)', async () => {
    const router = createRouter(handlers({ 'connection.active': () => connection }), createMemoryLogger());
    const r = await router.dispatch('connection.active', {});
    expect(r.ok && r.value).toEqual(connection);
    expect(r.ok && r.value).not.toBe(connection);
  });
});

describe('router and values nested thousands deep', () => {
  const deep = (d: number) => {
    const root: unknown[] = [];
    let at = root;
    for (let i = 1; i < d; i++) at.push((at = []));
    return root;
  };

  it('refuses such an input as VALIDATION without calling the handler', async () => {
    let called = false;
    const router = createRouter(handlers({ 'app.info': () => ((called = true), { name: 'Fieldlens', version: '1', shell: 'test', dataDir: '/tmp' }) }), createMemoryLogger());
    const r = await router.dispatch('app.info', { x: deep(5000) });
    expect(r).toMatchObject({ ok: false, error: { code: 'VALIDATION' } });
    expect(called).toBe(false);
  });

  it('answers INTERNAL, never a value no transport could send, when a handler returns one', async () => {
    const logger = createMemoryLogger();
    // A preview's attributes are any JSON: the output schema lets the depth through.
    const preview = (nested: unknown) => ({
      name: 'x.geojson',
      format: 'geojson' as const,
      featureCount: 1,
      columns: null,
      sample: [{ name: 'x', longitude: 2, latitude: 48, attributes: { nested } }],
      positions: [{ name: 'x', longitude: 2, latitude: 48 }],
      badRows: [],
      badRowCount: 0,
      warnings: [],
      error: null,
    });
    let nested: unknown = deep(5000);
    const router = createRouter(handlers({ 'uploads.preview': () => preview(nested) }), logger);
    const input = { name: 'x.geojson', dataBase64: 'e30=' };
    const r = await router.dispatch('uploads.preview', input);
    expect(r).toMatchObject({ ok: false, error: { code: 'INTERNAL', message: expect.stringMatching(/nested deeper than 100 levels/) } });
    expect(logger.lines.join('\n')).toMatch(/uploads\.preview returned a value nested deeper than 100 levels/);
    // The same answer 50 levels deep goes through.
    nested = deep(50);
    expect((await router.dispatch('uploads.preview', input)).ok).toBe(true);
    // The answer itself serialises: that was the point.
    expect(() => JSON.stringify(r)).not.toThrow();
  });
});
