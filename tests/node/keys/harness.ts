import { join } from 'node:path';
import Fastify from 'fastify';
import { createAppServices, type AppServices } from '../../../electron/root/app-services';
import { createLogger, type Logger } from '../../../electron/ground/logger';
import { createKeytarStore } from '../../../electron/keys/keytar-store';
import type { EventName } from '../../../shared/rpc/contract';
import type { Result } from '../../../shared/rpc/errors';
import { KEYRING_TIMEOUT_MS, tempDir, testService } from './keyring';

export interface Recorded {
  method: string;
  input: unknown;
  result: Result<unknown>;
}

export interface TestApp {
  services: AppServices;
  /** The app's logger (file, redacting the keys the services know). */
  logger: Logger;
  dataDir: string;
  logFile: string;
  service: string;
  /** Every RPC answer and event payload, as the renderer would receive them. */
  calls: Recorded[];
  events: { event: EventName; payload: unknown }[];
  call(method: string, input?: unknown): Promise<Result<unknown>>;
  /** Like call, but fails the test with the error when the call is not ok. */
  value<T = unknown>(method: string, input?: unknown): Promise<T>;
}

/** The app as a shell builds it (file logger with redaction, keytar store on the test keyring). */
export async function startTestApp(
  opts: {
    fetch?: typeof fetch;
    dataDir?: string;
    service?: string;
  } = {},
) {
  const dataDir = opts.dataDir ?? join(tempDir('fieldlens-app-'), 'data');
  const logFile = join(dataDir, 'logs', 'test.log');
  const service = opts.service ?? testService();
  let secretValues: () => Iterable<string> = () => [];
  const logger = createLogger({ file: logFile, level: 'debug', secrets: () => secretValues(), echo: false });
  const services = await createAppServices({
    dataDir,
    logger,
    shell: 'test',
    version: '0.0.0-test',
    clock: () => new Date(),
    // The test keyring runs beside other jobs; its slowness under load is not what these tests check.
    secretStore: createKeytarStore({ service, timeoutMs: KEYRING_TIMEOUT_MS }),
    fetch: opts.fetch,
    watchPhotos: false,
  });
  secretValues = services.secretValues;
  const calls: Recorded[] = [];
  const events: TestApp['events'] = [];
  services.bus.subscribe((event, payload) => events.push({ event, payload: JSON.parse(JSON.stringify(payload)) }));
  const call = async (method: string, input: unknown = {}) => {
    const result = JSON.parse(JSON.stringify(await services.router.dispatch(method, input))) as Result<unknown>;
    calls.push({ method, input, result });
    return result;
  };
  const app: TestApp = {
    services,
    logger,
    dataDir,
    logFile,
    service,
    calls,
    events,
    call,
    async value<T>(method: string, input: unknown = {}) {
      const r = await call(method, input);
      if (!r.ok) throw new Error(`${method} failed: ${r.error.code} ${r.error.message}`);
      return r.value as T;
    },
  };
  return app;
}

export interface SeenRequest {
  path: string;
  authorization?: string;
  apiKey?: string;
  body: unknown;
}

/**
 * A stand-in for a remote service that checks spec 5's headers: /v1/compute wants
 * "Authorization: Bearer <bearer>", /search wants "x-api-key: <search>". Other paths answer
 * 500 (/broken/...) or redirect elsewhere (/moved/...). `keys` is read per request, so a test
 * may fill it in later (the bundled service's keys are generated at first use).
 */
export async function startFakeService(keys: { bearer: string; search: string }) {
  const seen: SeenRequest[] = [];
  const app = Fastify({ logger: false });
  const record = (req: { url: string; headers: Record<string, unknown>; body: unknown }) =>
    seen.push({
      path: req.url,
      authorization: req.headers['authorization'] as string | undefined,
      apiKey: req.headers['x-api-key'] as string | undefined,
      body: req.body,
    });
  app.post('/v1/compute', async (req, reply) => {
    record(req);
    if (req.headers['authorization'] !== `Bearer ${keys.bearer}`)
      return reply.code(401).type('application/problem+json').send({ title: 'Unauthorized', status: 401 });
    return {
      id: '00000000-0000-4000-8000-000000000000',
      query: 'connection test',
      answer: { status: 'skipped', content: null, error: null },
      results: { type: 'FeatureCollection', numberMatched: 0, numberReturned: 0, features: [] },
      warnings: [],
      usage: { meters: 0 },
    };
  });
  app.post('/search', async (req, reply) => {
    record(req);
    if (req.headers['x-api-key'] !== keys.search) return reply.code(403).send({ error: 'forbidden' });
    return { isSuccess: true, page: 1, pageTotal: 0, data: [], result_id: 'r1', region: 'World', region_id: null };
  });
  app.post('/broken/v1/compute', async (req, reply) => {
    record(req);
    return reply.code(500).send({ error: 'boom' });
  });
  app.post('/moved/search', async (req, reply) => {
    record(req);
    return reply.redirect('/search', 307);
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const addr = app.server.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  return { url: `http://127.0.0.1:${port}`, seen, keys, close: () => app.close() };
}

/** An address where nothing listens: a server that was started and closed again. */
export async function deadAddress(): Promise<string> {
  const app = Fastify();
  await app.listen({ host: '127.0.0.1', port: 0 });
  const addr = app.server.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  await app.close();
  return `http://127.0.0.1:${port}`;
}
