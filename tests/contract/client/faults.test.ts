import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ComputeResponseExact } from '../../../shared/service/compute';
import { ImageryResponseSuccess } from '../../../shared/service/imagery';
import { FaultProxy } from './fault-proxy';
import { failure, makeClient, startLocal, type Local } from './harness';

let local: Local;
let base: FaultProxy;
let search: FaultProxy;

beforeAll(async () => {
  local = await startLocal();
  base = await new FaultProxy(local.baseUrl).start();
  search = await new FaultProxy(local.searchBaseUrl).start();
});
afterAll(async () => {
  await base.stop();
  await search.stop();
  await local.stop();
});
beforeEach(() => {
  base.plan = search.plan = null;
  base.requests.length = search.requests.length = 0;
  base.forwarded = search.forwarded = 0;
});

const proxied = (extra: Parameters<typeof makeClient>[1] = {}) => makeClient({ baseUrl: base.url, searchBaseUrl: search.url }, extra);
const served = (path: string) => local.seen.filter((s) => s.path === path).length;

describe('through the proxy, faults at the socket and in the body', () => {
  it('a late answer ends in TIMEOUT after the configured time, and is not sent again', async () => {
    base.plan = () => ({ delayMs: 1500 });
    const { client } = proxied({ timeouts: { compute: 200 } });
    const before = served('/v1/compute');
    const t = Date.now();
    const e = await failure(client.compute({ query: 'airports in Malta' }));
    expect(e.code).toBe('TIMEOUT');
    expect(e.message).toMatch(/No answer from the service within/);
    expect(Date.now() - t).toBeLessThan(1200);
    // The one request reaches the service in its own time on a loaded machine; then, past the
    // proxy's delay, nothing more may arrive.
    for (const until = Date.now() + 5000; served('/v1/compute') === before && Date.now() < until; ) await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, 1600));
    expect(base.requests).toHaveLength(1);
    expect(served('/v1/compute') - before).toBe(1);
    expect(client.online).toBe(true);
  });

  it('the caller cancels a pending request: CANCELLED', async () => {
    base.plan = () => ({ delayMs: 1500 });
    const { client } = proxied();
    const ac = new AbortController();
    // Cancelled once the request is pending at the service (a fixed delay can fire before it
    // arrives on a busy machine, and the request then lands in the next test).
    const arrived = setInterval(() => {
      if (base.requests.length) {
        clearInterval(arrived);
        ac.abort();
      }
    }, 5);
    const e = await failure(client.stream({ query: 'sample' }, { signal: ac.signal })).finally(() => clearInterval(arrived));
    expect(e.code).toBe('CANCELLED');
    expect(base.requests).toHaveLength(1);
  });

  it.each([
    ['before any answer', { dropBeforeHeaders: true }],
    ['after the headers', { dropAfterHeaders: true }],
    ['half-way through the body', { dropAfterBodyShare: 0.5 }],
  ])('a connection closed %s is NETWORK, never repeated, and the service stays online', async (_label, fault) => {
    // Only the operations fail: the client's reachability probe (a GET) gets through.
    base.plan = search.plan = (r) => (r.method === 'POST' ? fault : undefined);
    const { client, events } = proxied();
    for (const call of [() => client.compute({ query: 'airports in Malta' }), () => client.stream({ query: 'sample' }), () => client.imagerySearch({ query: 'Paris' })]) {
      const e = await failure(call());
      expect(e.code).toBe('NETWORK');
      expect(e.info.sent).toBe(true);
      expect(e.message).toMatch(/during the request/);
    }
    // Each operation went out once; after each failure the client checked the host with a GET.
    const posts = (p: FaultProxy) => p.requests.filter((r) => r.method === 'POST').map((r) => r.path);
    expect(posts(base)).toEqual(['/v1/compute', '/v1/stream']);
    expect(posts(search)).toEqual(['/search']);
    expect(base.requests.filter((r) => r.method === 'GET')).toHaveLength(2);
    expect(client.online).toBe(true);
    expect(events).toEqual([]);
  });

  it('a malformed JSON body is HTTP "malformed" and keeps the text received', async () => {
    let corrupted = '';
    base.plan = () => ({
      body: (up) => (corrupted = up.subarray(0, up.length - 20).toString() + ',"x": tru'),
    });
    const { client } = proxied();
    const e = await failure(client.compute({ query: 'airports in Malta' }));
    expect([e.code, e.status]).toEqual(['HTTP', 200]);
    expect(e.message).toMatch(/malformed/);
    expect(e.info.body).toBe(corrupted);
    expect(corrupted.length).toBeGreaterThan(100);
  });

  it('a body outside the interface is refused with the schema issue', async () => {
    search.plan = () => ({ body: (up) => JSON.stringify({ ...JSON.parse(up.toString()), page: 0 }) });
    const { client } = proxied();
    const e = await failure(client.imagerySearch({ query: 'Paris' }));
    expect([e.code, e.status]).toEqual(['HTTP', 200]);
    expect(e.message).toMatch(/outside the interface[\s\S]*page/);
    expect(JSON.parse(e.info.body!)).toMatchObject({ isSuccess: true, page: 0 });
  });

  it('unknown fields are kept, at the top and inside features, and the bytes are kept as received', async () => {
    let sent = '';
    base.plan = () => ({
      body: (up) => {
        const j = JSON.parse(up.toString()) as { results: { features: { properties: Record<string, unknown> }[] } };
        j.results.features[0]!.properties['extra_prop'] = 7;
        return (sent = JSON.stringify({ ...j, extra_top: { x: 1 } }));
      },
    });
    const { client } = proxied();
    const ex = await client.compute({ query: 'airports in Malta' });
    expect((ex.body as Record<string, unknown>)['extra_top']).toEqual({ x: 1 });
    expect(ex.body.results.features[0]!.properties['extra_prop']).toBe(7);
    expect(ex.raw).toBe(sent);
    expect(Buffer.from(ex.bytes).equals(Buffer.from(sent))).toBe(true);
    // Without the additions the body is exactly the interface's.
    const j = JSON.parse(sent) as Record<string, unknown>;
    delete j['extra_top'];
    delete (j['results'] as { features: { properties: Record<string, unknown> }[] }).features[0]!.properties['extra_prop'];
    ComputeResponseExact.parse(j);
  });
});

describe('retries', () => {
  it('503 then 429 honour Retry-After (seconds, HTTP date), then the real answer', async () => {
    base.plan = (r) => (r.n === 1 ? { answer: { status: 503, headers: { 'retry-after': '2', 'content-type': 'text/plain' }, body: 'busy' } } : undefined);
    search.plan = (r) =>
      r.n === 1
        ? { answer: { status: 429, headers: { 'retry-after': new Date(Date.now() + 5000).toUTCString() }, body: '{"message":"slow down"}' } }
        : undefined;
    const { client, sleeps } = proxied();
    const before = served('/v1/compute');
    const ex = await client.compute({ query: 'airports in Malta' });
    ComputeResponseExact.parse(JSON.parse(ex.raw));
    expect([base.requests.length, base.forwarded, served('/v1/compute') - before]).toEqual([2, 1, 1]);
    const im = await client.imagerySearch({ query: 'Paris' });
    ImageryResponseSuccess.parse(im.body);
    expect([search.requests.length, search.forwarded]).toEqual([2, 1]);
    expect(sleeps[0]).toBe(2000);
    expect(sleeps[1]).toBeGreaterThan(3000);
    expect(sleeps[1]).toBeLessThanOrEqual(5000);
  });

  it('is bounded, gives up at once on a Retry-After past the cap, and never retries other errors', async () => {
    base.plan = () => ({ answer: { status: 503, headers: { 'content-type': 'application/json' }, body: '{"message":"maintenance"}' } });
    const a = proxied({ retry: { max: 2, baseDelayMs: 10 } });
    const e = await failure(a.client.compute({ query: 'airports in Malta' }));
    expect([e.code, e.status, e.info.serverMessage]).toEqual(['HTTP', 503, 'maintenance']);
    expect([base.requests.length, base.forwarded]).toEqual([3, 0]);
    expect(a.sleeps).toEqual([10, 20]);

    base.requests.length = 0;
    base.plan = () => ({ answer: { status: 429, headers: { 'retry-after': '3600' }, body: 'quota' } });
    const b = proxied();
    const e2 = await failure(b.client.stream({ query: 'sample' }));
    expect([e2.status, e2.info.serverMessage, base.requests.length, b.sleeps]).toEqual([429, 'quota', 1, []]);

    base.requests.length = 0;
    base.plan = () => ({ answer: { status: 500, headers: { 'content-type': 'text/html' }, body: '<html><title>Internal Server Error</title></html>' } });
    const e3 = await failure(b.client.compute({ query: 'airports in Malta' }));
    expect([e3.code, e3.status, e3.info.serverMessage, base.requests.length]).toEqual(['HTTP', 500, 'Internal Server Error', 1]);
  });
});

describe('the service itself goes away', () => {
  it('stopped during a request: OFFLINE; then refused connections fail fast; back after a restart and a probe', async () => {
    const { client, events } = makeClient(local, { retry: { max: 2, baseDelayMs: 5 } });
    const held = local.holdNext();
    const pending = failure(client.compute({ query: 'airports in Malta' }));
    await held.entered;
    const port = Number(new URL(local.baseUrl).port);
    const searchPort = Number(new URL(local.searchBaseUrl).port);
    const closing = local.stop(false);
    const e = await pending;
    held.release();
    await closing;
    expect(e.code).toBe('OFFLINE');
    expect(e.info.sent).toBe(true);
    expect(e.message).toMatch(/went away during the request/);
    expect(client.online).toBe(false);
    expect(events).toEqual([expect.objectContaining({ online: false, base: false, search: true })]);

    // Known to be offline: no network use at all.
    const t = Date.now();
    const fast = await failure(client.stream({ query: 'sample' }));
    expect([fast.code, fast.info.sent]).toEqual(['OFFLINE', false]);
    expect(Date.now() - t).toBeLessThan(200);

    // A fresh client finds the port closed: OFFLINE at once, with one attempt and no wait
    // (a refused connection means nobody listens; retrying only delayed the answer).
    let fetches = 0;
    const counting: typeof fetch = (input, init) => {
      fetches++;
      return fetch(input, init);
    };
    const fresh = makeClient(local, { fetch: counting, retry: { max: 2, baseDelayMs: 5 } });
    const refused = await failure(fresh.client.imagerySearch({ query: 'Paris' }));
    expect([refused.code, refused.info.sent, fetches]).toEqual(['OFFLINE', false, 1]);
    expect(fresh.sleeps).toEqual([]);

    // Each host is judged on its own: with only the base host gone, the search host still answers.
    const split = makeClient({ baseUrl: local.baseUrl, searchBaseUrl: search.url }, { retry: { max: 0 } });
    expect((await failure(split.client.compute({ query: 'airports in Malta' }))).code).toBe('OFFLINE');
    expect(split.client.connectivity()).toMatchObject({ online: false, base: false, search: true });
    search.plan = () => ({ answer: { status: 200, headers: { 'content-type': 'application/json' }, body: '{"isSuccess":false}' } });
    expect((await split.client.imagerySearch({ query: 'Paris' })).body).toEqual({ isSuccess: false });

    // The same service back on the same ports and data: a probe brings the client online.
    local = await startLocal({ dataDir: local.dataDir, port, searchPort });
    expect(await client.probe()).toMatchObject({ online: true, base: true, search: true });
    expect(events.at(-1)).toMatchObject({ online: true });
    ComputeResponseExact.parse(JSON.parse((await client.compute({ query: 'airports in Malta' })).raw));
  });
});
