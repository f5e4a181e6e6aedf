import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ServiceClient, ServiceError, describeErrorBody, retryAfterMs, type Connectivity, type ServiceClientOptions } from '../../../electron/client';
import { createMemoryLogger } from '../../../electron/core/logger';
import type { KeyKind } from '../../../electron/core/secrets';
import { ComputeFormFields } from '../../../shared/service/compute';
import { computeResponse } from '../cache/fixtures';
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

describe('operations', () => {
  it('posts compute as JSON with a Bearer key and keeps unknown fields and the raw body', async () => {
    const fx = computeResponse(3, 1);
    const raw = JSON.stringify({ ...fx.body, extra_top: { x: 1 } }).replace('"properties":{', '"properties":{"extra_prop":7,');
    svc.behaviours.set('/v1/compute', (_req, reply) => reply.type('application/json').send(raw));
    const ex = await client().compute({ query: 'cafes', coordinates: [{ name: 'home', latitude: 48.1, longitude: 2.3 }] });
    const got = svc.received[0]!;
    expect(got.headers['authorization']).toBe(`Bearer ${KEYS.bearer}`);
    expect(got.headers['x-api-key']).toBeUndefined();
    expect(got.headers['content-type']).toMatch(/application\/json/);
    expect(got.body).toEqual({ query: 'cafes', limit: 100, answer: true, model: 'compute', coordinates: [{ name: 'home', latitude: 48.1, longitude: 2.3 }] });
    expect(ex.raw).toBe(raw);
    expect(Buffer.compare(Buffer.from(ex.bytes), Buffer.from(raw))).toBe(0);
    expect((ex.body as Record<string, unknown>)['extra_top']).toEqual({ x: 1 });
    expect(ex.body.results.features[0]!.properties['extra_prop']).toBe(7);
    expect(ex.request).toEqual(got.body);
    expect(ex.finishedAt).toBeGreaterThanOrEqual(ex.startedAt);
  });

  it('sends multipart form data with repeated files when attachments are given', async () => {
    const enc = new TextEncoder();
    await client().compute(
      { query: 'near my points', limit: 10, h3_ids: ['8a1fb46622dffff', '8a1fb46622d7fff'], coordinates: [{ name: 'a', latitude: 1, longitude: 2 }] },
      {
        attachments: [
          { field: 'files', name: 'a.csv', contentType: 'text/csv', content: enc.encode('name,lat,lon\nx,1,2\n') },
          { field: 'files', name: 'b.geojson', contentType: 'application/geo+json', content: enc.encode('{"type":"FeatureCollection","features":[]}') },
          { field: 'images', name: 'ref.jpg', contentType: 'image/jpeg', content: new Uint8Array([1, 2, 3]) },
        ],
      },
    );
    const got = svc.received[0]!;
    expect(got.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    expect(got.files!.map((f) => [f.field, f.filename, f.mimetype])).toEqual([
      ['files', 'a.csv', 'text/csv'],
      ['files', 'b.geojson', 'application/geo+json'],
      ['images', 'ref.jpg', 'image/jpeg'],
    ]);
    expect(got.files![0]!.content).toBe('name,lat,lon\nx,1,2\n');
    // The fields decode back to the same request with the shared form schema.
    const decoded = ComputeFormFields.parse(got.fields);
    expect(decoded).toMatchObject({ query: 'near my points', limit: 10, h3_ids: ['8a1fb46622dffff', '8a1fb46622d7fff'], coordinates: [{ name: 'a', latitude: 1, longitude: 2 }] });
  });

  it('posts stream to the base URL and imagery search with x-api-key to the search URL, with paging', async () => {
    const s = await client().stream({ query: 'crosswalks', year: 2024 });
    expect(s.body.isSuccess).toBe(true);
    expect(svc.received[0]!.path).toBe('/v1/stream');
    expect(svc.received[0]!.body).toEqual({ query: 'crosswalks', year: 2024, limit: 50 });
    expect(svc.received[0]!.headers['authorization']).toBe(`Bearer ${KEYS.bearer}`);

    const im = await client().imagerySearch({ query: 'avenida', limit: 3, page: 2 });
    expect(svc.count('/search')).toBe(0);
    const got = search.received[0]!;
    expect(got.headers['x-api-key']).toBe(KEYS.search);
    expect(got.headers['authorization']).toBeUndefined();
    expect(got.body).toEqual({ query: 'avenida', limit: 3, page: 2 });
    expect(im.body).toMatchObject({ isSuccess: true, page: 2, pageTotal: 3 });
  });

  it('sends no key header when none is stored', async () => {
    await client({ keys: { getKey: async () => null } }).stream({ query: 'x' });
    expect(svc.received[0]!.headers['authorization']).toBeUndefined();
  });

  it('rejects an invalid request before sending anything', async () => {
    const e = await failure(client().compute({ query: '  ', limit: 5000 }));
    expect(e.code).toBe('VALIDATION');
    expect(e.info.fieldErrors!.map((f) => f.field).sort()).toEqual(['limit', 'query']);
    expect(svc.received).toHaveLength(0);
  });
});

describe('error paths', () => {
  it('401 becomes AUTH with the server message (problem+json)', async () => {
    svc.behaviours.set('/v1/compute', (_r, reply) =>
      reply.code(401).type('application/problem+json').send({ type: 'about:blank', title: 'Unauthorized', status: 401, detail: 'Missing or invalid API key' }),
    );
    const e = await failure(client().compute({ query: 'q' }));
    expect(e.code).toBe('AUTH');
    expect(e.status).toBe(401);
    expect(e.info.serverMessage).toBe('Missing or invalid API key');
    expect(e.message).toContain('Missing or invalid API key');
    expect(svc.count('/v1/compute')).toBe(1);
  });

  it('400 becomes VALIDATION carrying the field errors', async () => {
    svc.behaviours.set('/v1/compute', (_r, reply) =>
      reply.code(400).type('application/problem+json').send({
        title: 'Invalid request',
        status: 400,
        errors: [
          { field: 'limit', message: 'Too big: expected number to be <=2000' },
          { field: 'coordinates.0.latitude', message: 'Too big' },
        ],
      }),
    );
    const e = await failure(client().compute({ query: 'q' }));
    expect(e.code).toBe('VALIDATION');
    expect(e.details()).toEqual({
      status: 400,
      serverMessage: 'Invalid request',
      fieldErrors: [
        { field: 'limit', message: 'Too big: expected number to be <=2000' },
        { field: 'coordinates.0.latitude', message: 'Too big' },
      ],
    });
  });

  it('404 for an unknown search_id becomes NOT_FOUND; 413 stays HTTP with its status', async () => {
    svc.behaviours.set('/v1/compute', (_r, reply, n) =>
      n === 1
        ? reply.code(404).send({ error: { message: 'search_id 7d0c… not found' } })
        : reply.code(413).type('text/plain').send('Payload Too Large: files exceed 10 MB'),
    );
    const c = client();
    const e1 = await failure(c.compute({ query: 'q', search_id: '7d0c1f3a-0000-4000-8000-000000000001' }));
    expect([e1.code, e1.status, e1.info.serverMessage]).toEqual(['NOT_FOUND', 404, 'search_id 7d0c… not found']);
    const e2 = await failure(c.compute({ query: 'q' }));
    expect([e2.code, e2.status, e2.info.serverMessage]).toEqual(['HTTP', 413, 'Payload Too Large: files exceed 10 MB']);
  });

  it('times out (TIMEOUT) without retrying a request that was sent', async () => {
    svc.behaviours.set('/v1/stream', async () => {
      await new Promise((r) => setTimeout(r, 1500));
      return { late: true };
    });
    const t = Date.now();
    const e = await failure(client({ timeouts: { stream: 200 } }).stream({ query: 'q' }));
    expect(e.code).toBe('TIMEOUT');
    expect(Date.now() - t).toBeLessThan(1400);
    expect(svc.count('/v1/stream')).toBe(1);
  });

  it('cancellation from the caller ends the request with CANCELLED', async () => {
    svc.behaviours.set('/v1/compute', async () => {
      await new Promise((r) => setTimeout(r, 1500));
      return {};
    });
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 100);
    const e = await failure(client().compute({ query: 'q' }, { signal: ac.signal }));
    expect(e.code).toBe('CANCELLED');
  });

  it('a server gone mid-request is a NETWORK error, not retried, and not "offline"', async () => {
    svc.behaviours.set('/v1/compute', (req) => {
      req.raw.socket.destroy();
      return new Promise(() => {});
    });
    const c = client();
    const e = await failure(c.compute({ query: 'q' }));
    expect(e.code).toBe('NETWORK');
    expect(e.info.sent).toBe(true);
    expect(svc.count('/v1/compute')).toBe(1);
    expect(c.online).toBe(true);
  });

  it('a malformed JSON body is an HTTP error that keeps the text received', async () => {
    svc.behaviours.set('/v1/compute', (_r, reply) => reply.type('application/json').send('{"id": "x", "results": [tru'));
    const e = await failure(client().compute({ query: 'q' }));
    expect(e.code).toBe('HTTP');
    expect(e.message).toMatch(/malformed/);
    expect(e.info.body).toBe('{"id": "x", "results": [tru');
  });

  it('a body outside the interface is rejected with the schema issues', async () => {
    svc.behaviours.set('/v1/compute', () => ({ id: 'not-a-uuid', query: 'q' }));
    const e = await failure(client().compute({ query: 'q' }));
    expect(e.code).toBe('HTTP');
    expect(e.message).toMatch(/outside the interface/);
  });
});

describe('retries', () => {
  it('retries 429 and 503 honouring Retry-After (seconds and HTTP date)', async () => {
    svc.behaviours.set('/v1/compute', (_r, reply, n) => {
      if (n === 1) return reply.code(429).header('retry-after', '2').send({ message: 'slow down' });
      if (n === 2) return reply.code(503).header('retry-after', new Date(Date.now() + 5000).toUTCString()).send('busy');
      return computeResponse(2, 3).body;
    });
    const ex = await client().compute({ query: 'q' });
    expect(ex.body.results.features).toHaveLength(2);
    expect(svc.count('/v1/compute')).toBe(3);
    expect(sleeps[0]).toBe(2000);
    expect(sleeps[1]).toBeGreaterThan(3000);
    expect(sleeps[1]).toBeLessThanOrEqual(5000);
  });

  it('is bounded, and gives up at once when Retry-After exceeds the cap', async () => {
    svc.behaviours.set('/v1/compute', (_r, reply) => reply.code(503).send({ message: 'maintenance' }));
    const e = await failure(client({ retry: { max: 2, baseDelayMs: 10 } }).compute({ query: 'q' }));
    expect([e.code, e.status, e.info.serverMessage]).toEqual(['HTTP', 503, 'maintenance']);
    expect(svc.count('/v1/compute')).toBe(3);
    expect(sleeps).toEqual([10, 20]);

    svc.behaviours.set('/v1/stream', (_r, reply) => reply.code(429).header('retry-after', '3600').send('quota'));
    sleeps = [];
    const e2 = await failure(client().stream({ query: 'q' }));
    expect(e2.status).toBe(429);
    expect(svc.count('/v1/stream')).toBe(1);
    expect(sleeps).toEqual([]);
  });

  it('never retries other server errors', async () => {
    svc.behaviours.set('/v1/compute', (_r, reply) => reply.code(500).send('Internal Server Error'));
    const e = await failure(client().compute({ query: 'q' }));
    expect([e.code, e.status]).toEqual(['HTTP', 500]);
    expect(svc.count('/v1/compute')).toBe(1);
  });
});

describe('offline', () => {
  it('retries a refused connection, then goes offline, fails fast, and comes back on probe', async () => {
    const port = svc.port;
    await svc.stop();
    let fetches = 0;
    const counting: typeof fetch = (input, init) => {
      fetches++;
      return fetch(input, init);
    };
    const c = client({ fetch: counting, retry: { max: 2, baseDelayMs: 5 } });
    const e = await failure(c.compute({ query: 'q' }));
    expect(e.code).toBe('OFFLINE');
    expect(fetches).toBe(3); // first attempt + 2 retries, all refused before sending
    expect(c.online).toBe(false);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ online: false, base: false, search: true });

    const t = Date.now();
    const fast = await failure(c.stream({ query: 'q' }));
    expect(fast.code).toBe('OFFLINE');
    expect(fast.message).toMatch(/^Offline/);
    expect(fetches).toBe(3); // no network use at all
    expect(Date.now() - t).toBeLessThan(50);
    // The search host is a separate service and still answers.
    await expect(c.imagerySearch({ query: 'x' })).resolves.toBeDefined();

    svc = await new FakeService().start(port);
    const state = await c.probe();
    expect(state).toMatchObject({ online: true, base: true, search: true });
    expect(events.at(-1)).toMatchObject({ online: true });
    await expect(c.stream({ query: 'q' })).resolves.toBeDefined();
  });

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

describe('media', () => {
  it('fetches bytes, sending a key only to the connection hosts', async () => {
    const c = client();
    const m = await c.fetchMedia(`${svc.url}/media/a.jpg`);
    expect(m.contentType).toBe('image/jpeg');
    expect(Array.from(m.bytes)).toEqual([0xff, 0xd8, 0xff, 0xd9]);
    expect(svc.received[0]!.headers['authorization']).toBe(`Bearer ${KEYS.bearer}`);
    // Another origin (a third-party image host) gets no key.
    const other = await new FakeService().start();
    try {
      await c.fetchMedia(`${other.url}/media/b.jpg`);
      expect(other.received[0]!.headers['authorization']).toBeUndefined();
      expect(other.received[0]!.headers['x-api-key']).toBeUndefined();
    } finally {
      await other.stop();
    }
    expect((await failure(c.fetchMedia('file:///etc/passwd'))).code).toBe('VALIDATION');
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
