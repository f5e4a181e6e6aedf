import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ServiceClient, ServiceError, describeErrorBody, retryAfterMs, type Connectivity, type ServiceClientOptions } from '../../../electron/client';
import { createMemoryLogger } from '../../../electron/ground/logger';
import type { KeyKind } from '../../../shared/rpc/methods/keys';
import { FakeService } from './fake-service';

const KEYS: Record<KeyKind, string> = { bearer: 'sk-bearer-123456', search: 'sk-search-654321' };

let svc: FakeService;
let search: FakeService;
let events: Connectivity[];
let sleeps: number[];

function client(extra: Partial<ServiceClientOptions> = {}) {
  return new ServiceClient({
    connection: () => ({ profileId: 'p1', label: 'Fake', kind: 'remote', baseUrl: svc.url + '/', searchBaseUrl: search.url }),
    keys: { getKey: async (_p, kind) => KEYS[kind] },
    logger: createMemoryLogger(),
    onConnectivity: (s) => events.push(s),
    probeIntervalMs: 0,
    // Retry waits are recorded, not slept, so the tests stay fast and can assert on them.
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    ...extra,
  });
}

async function failure(p: Promise<unknown>): Promise<ServiceError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof ServiceError) return e;
    throw e;
  }
  throw new Error('expected the call to fail');
}

beforeEach(async () => {
  svc = await new FakeService().start();
  search = await new FakeService().start();
  events = [];
  sleeps = [];
});
afterEach(async () => {
  await svc.stop();
  await search.stop();
});

describe('offline', () => {
  it('forgets an unreachable service when the connection switches to another one', async () => {
    let conn = { profileId: 'p1', label: 'Gone', kind: 'remote' as const, baseUrl: 'http://127.0.0.1:9', searchBaseUrl: search.url };
    const c = client({ connection: () => conn, retry: { max: 0 } });
    expect((await failure(c.stream({ query: 'q' }))).code).toBe('OFFLINE');
    expect(c.online).toBe(false);
    conn = { ...conn, label: 'Fake', baseUrl: svc.url };
    await expect(c.stream({ query: 'q' })).resolves.toBeDefined();
    expect(c.online).toBe(true);
    expect(events.map((e) => e.online)).toEqual([false, true]);
  });

  it('probes in the background while offline', async () => {
    const port = svc.port;
    await svc.stop();
    const c = client({ probeIntervalMs: 50, retry: { max: 0 } });
    await failure(c.stream({ query: 'q' }));
    expect(c.online).toBe(false);
    svc = await new FakeService().start(port);
    for (let i = 0; i < 40 && !c.online; i++) await new Promise((r) => setTimeout(r, 25));
    expect(c.online).toBe(true);
    c.dispose();
  });
});

describe('error bodies of any shape', () => {
  it('reads the message from problem+json, other JSON, text and HTML', () => {
    expect(describeErrorBody('{"title":"Bad","detail":"limit too big"}', 'application/problem+json').message).toBe('limit too big');
    expect(describeErrorBody('{"message":"nope"}', 'application/json').message).toBe('nope');
    expect(describeErrorBody('{"error":"invalid_key"}', 'application/json').message).toBe('invalid_key');
    expect(describeErrorBody('{"error":{"code":7,"message":"deep"}}', null).message).toBe('deep');
    expect(describeErrorBody('{"code":17}', 'application/json').message).toBe('{"code":17}');
    expect(describeErrorBody('  plain words \n here ', 'text/plain').message).toBe('plain words here');
    expect(describeErrorBody('<html><head><title>502 Bad Gateway</title></head><body>x</body></html>', 'text/html').message).toBe('502 Bad Gateway');
    expect(describeErrorBody('', null)).toEqual({ fieldErrors: [] });
  });

  it('reads field errors from lists, maps, zod issues and FastAPI details', () => {
    expect(describeErrorBody('{"errors":{"limit":["too big","not even"]}}', null).fieldErrors).toEqual([
      { field: 'limit', message: 'too big' },
      { field: 'limit', message: 'not even' },
    ]);
    expect(describeErrorBody('{"issues":[{"path":["coordinates",0,"latitude"],"message":"Too big"}]}', null).fieldErrors).toEqual([
      { field: 'coordinates.0.latitude', message: 'Too big' },
    ]);
    const fastapi = describeErrorBody('{"detail":[{"loc":["body","query"],"msg":"field required"}]}', null);
    expect(fastapi.fieldErrors).toEqual([{ field: 'query', message: 'field required' }]);
    expect(fastapi.message).toBe('query: field required');
  });

  it('reads Retry-After as seconds or a date', () => {
    expect(retryAfterMs('3', 0)).toBe(3000);
    expect(retryAfterMs(new Date(10_000).toUTCString(), 4000)).toBe(6000);
    expect(retryAfterMs('soon', 0)).toBeNull();
    expect(retryAfterMs(null, 0)).toBeNull();
  });
});
