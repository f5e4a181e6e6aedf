import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServiceClient } from '../../../electron/client';
import { createMemoryLogger } from '../../../electron/ground/logger';
import { ComputeResponseExact } from '../../../shared/service/compute';
import { failure, makeClient, startLocal, type Local } from './harness';

let local: Local;
beforeAll(async () => {
  local = await startLocal();
});
afterAll(async () => {
  await local.stop();
});

/** A port that was free a moment ago: nothing listens there, so a connection is refused. */
const closedPort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => resolve(port));
    });
  });

/** A service that accepts every request and never answers: a question the service is still working on. */
async function silentService(): Promise<{ url: string; server: Server; arrived: Promise<void> }> {
  let arrive: () => void = () => {};
  const arrived = new Promise<void>((r) => (arrive = r));
  const server = createServer((_req: IncomingMessage, _res: ServerResponse) => arrive());
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server, arrived };
}

describe('connection state from a health probe', () => {
  it('probes GET /health on both hosts without sending a key', async () => {
    const { client, events } = makeClient(local);
    const before = local.seen.length;
    expect(await client.probe()).toEqual({ online: true, base: true, search: true, message: null });
    const probes = local.seen.slice(before);
    expect(probes.map((s) => `${s.host} ${s.method} ${s.path}`).sort()).toEqual(['base GET /health', 'search GET /health']);
    expect(probes.every((s) => s.authorization === undefined && s.apiKey === undefined)).toBe(true);
    // Nothing changed, so nothing is announced.
    expect(events).toEqual([]);
  });

  it('reports a closed port as offline, naming the host and the cause', async () => {
    const port = await closedPort();
    const { client, events } = makeClient({ baseUrl: `http://127.0.0.1:${port}`, searchBaseUrl: local.searchBaseUrl });
    const state = await client.probe();
    expect(state).toMatchObject({ online: false, base: false, search: true });
    expect(state.message).toBe(`http://127.0.0.1:${port} cannot be reached (ECONNREFUSED)`);
    expect(events.at(-1)).toMatchObject({ online: false });
  });

  it('a refused connection fails at once with the default retry policy: one attempt, no wait', async () => {
    const port = await closedPort();
    let fetches = 0;
    // The real sleep and the default retry policy, as the app runs.
    const client = new ServiceClient({
      connection: () => ({ profileId: 'p', label: 'Gone', kind: 'remote', baseUrl: `http://127.0.0.1:${port}`, searchBaseUrl: local.searchBaseUrl }),
      keys: { getKey: async () => 'k' },
      logger: createMemoryLogger(),
      probeIntervalMs: 0,
      fetch: (input, init) => {
        fetches++;
        return fetch(input, init);
      },
    });
    const t = performance.now();
    const e = await failure(client.compute({ query: 'airports in Malta' }));
    const ms = performance.now() - t;
    expect([e.code, e.info.sent, fetches]).toEqual(['OFFLINE', false, 1]);
    // The old policy waited 500 + 1000 + 2000 ms before saying so.
    expect(ms).toBeLessThan(400);
  });

  it('a request pending on a host that a probe finds gone fails at once with OFFLINE', async () => {
    const silent = await silentService();
    const { client } = makeClient({ baseUrl: silent.url, searchBaseUrl: local.searchBaseUrl }, { timeouts: { compute: 60_000 } });
    const pending = failure(client.compute({ query: 'airports in Malta' }));
    await silent.arrived;
    // The service stops listening; its open connection stays silent (no reset, no answer).
    await new Promise<void>((r) => {
      silent.server.close(() => r());
      setTimeout(r, 50);
    });
    const t = performance.now();
    expect(await client.probe()).toMatchObject({ online: false, base: false });
    const e = await pending;
    expect(performance.now() - t).toBeLessThan(1000);
    expect([e.code, e.info.sent]).toEqual(['OFFLINE', true]);
    expect(e.message).toMatch(/^Offline: the service stopped answering during the request \(http:\/\/127\.0\.0\.1:\d+ cannot be reached \(ECONNREFUSED\)\)$/);
    silent.server.closeAllConnections();
  });

  it('sends to a given connection instead of the active one, without judging the active one by it', async () => {
    const port = await closedPort();
    const { client, events } = makeClient({ baseUrl: `http://127.0.0.1:${port}`, searchBaseUrl: `http://127.0.0.1:${port}` });
    const other = { profileId: 'made-with', label: 'Local', kind: 'local' as const, baseUrl: local.baseUrl, searchBaseUrl: local.searchBaseUrl };
    const before = local.seen.filter((s) => s.path === '/v1/stream').length;
    const ex = await client.stream({ query: 'sample' }, { connection: other });
    expect(ex.status).toBe(200);
    expect(local.seen.filter((s) => s.path === '/v1/stream').length).toBe(before + 1);
    expect(events).toEqual([]);
    // The active connection is still judged on its own.
    expect((await failure(client.compute({ query: 'airports in Malta' }))).code).toBe('OFFLINE');
    ComputeResponseExact.parse(JSON.parse((await client.compute({ query: 'airports in Malta' }, { connection: other })).raw));
  });
});
