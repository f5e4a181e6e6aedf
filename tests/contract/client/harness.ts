import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ServiceClient, ServiceError, type Connectivity, type ServiceClientOptions } from '../../../electron/client';
import { createMemoryLogger } from '../../../electron/ground/logger';
import type { KeyKind } from '../../../shared/rpc/methods/keys';
import { createImageryPlugin } from '../../../electron/local-service/imagery';
import type { LocalServicePlugin } from '../../../electron/local-service/plugin';
import { createLocalService, type LocalService } from '../../../electron/local-service/server';
import { catalog, KEYS } from '../local-service/harness';

export { KEYS };
export const SAMPLE_DIR = resolve('resources/sample-photos');

/** One request as the service's hosts saw it, after their key check let it through. */
export interface Seen {
  host: 'base' | 'search';
  method: string;
  path: string;
  authorization?: string;
  apiKey?: string;
  contentType?: string;
}

export interface Local {
  service: LocalService;
  baseUrl: string;
  searchBaseUrl: string;
  dataDir: string;
  seen: Seen[];
  /**
   * Holds the next request at the server until the returned release() is called; `entered`
   * resolves once the request has arrived.
   */
  holdNext(): { entered: Promise<void>; release: () => void };
  stop(removeData?: boolean): Promise<void>;
}

/** The bundled service with its imagery plugin over the sample photos, on loopback with known keys. */
export async function startLocal(opts: { dataDir?: string; port?: number; searchPort?: number } = {}): Promise<Local> {
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'fieldlens-client-contract-'));
  const seen: Seen[] = [];
  let hold: { enter: () => void; gate: Promise<void> } | null = null;
  const record =
    (host: Seen['host']): LocalServicePlugin['registerBase'] =>
    (app) => {
      app.addHook('onRequest', async (req) => {
        const h = req.headers;
        seen.push({
          host,
          method: req.method,
          path: req.url.split('?')[0]!,
          ...(typeof h.authorization === 'string' ? { authorization: h.authorization } : {}),
          ...(typeof h['x-api-key'] === 'string' ? { apiKey: h['x-api-key'] } : {}),
          ...(typeof h['content-type'] === 'string' ? { contentType: h['content-type'] } : {}),
        });
        const held = hold;
        if (held) {
          hold = null;
          held.enter();
          await held.gate;
        }
      });
    };
  const recorder: LocalServicePlugin = { name: 'recorder', registerBase: record('base'), registerSearch: record('search') };
  const service = createLocalService({
    dataDir,
    keys: KEYS,
    logger: createMemoryLogger(),
    clock: () => new Date('2026-01-02T03:04:05Z'),
    catalog: catalog(),
    plugins: [createImageryPlugin({ photoDirs: [], sample: true, sampleDir: SAMPLE_DIR, watch: false }), recorder],
  });
  const urls = await service.start({ port: opts.port, searchPort: opts.searchPort });
  return {
    service,
    dataDir,
    seen,
    ...urls,
    holdNext() {
      let enter!: () => void;
      let release!: () => void;
      const entered = new Promise<void>((r) => (enter = r));
      const gate = new Promise<void>((r) => (release = r));
      hold = { enter, gate };
      return { entered, release };
    },
    async stop(removeData = true) {
      await service.close();
      if (removeData) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface TestClient {
  client: ServiceClient;
  /** Retry waits asked for (ms); they are recorded, not slept. */
  sleeps: number[];
  events: Connectivity[];
}

/** The real service client pointed at the given hosts, with the harness keys unless told otherwise. */
export function makeClient(
  urls: { baseUrl: string; searchBaseUrl: string },
  opts: { keys?: Partial<Record<KeyKind, string | null>> } & Omit<Partial<ServiceClientOptions>, 'keys'> = {},
): TestClient {
  const { keys: keyOverride, ...extra } = opts;
  const keys: Record<KeyKind, string | null> = { ...KEYS, ...keyOverride };
  const sleeps: number[] = [];
  const events: Connectivity[] = [];
  const client = new ServiceClient({
    connection: () => ({ profileId: 'contract', label: 'Local under test', kind: 'local', ...urls }),
    keys: { getKey: async (_profile, kind) => keys[kind] },
    logger: createMemoryLogger(),
    probeIntervalMs: 0,
    onConnectivity: (s) => events.push(s),
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    ...extra,
  });
  return { client, sleeps, events };
}

/** The ServiceError a call fails with (anything else fails the test). */
export async function failure(p: Promise<unknown>): Promise<ServiceError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof ServiceError) return e;
    throw e;
  }
  throw new Error('expected the call to fail');
}
