import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { AppInfo, ConnectionInfo } from '../../shared/rpc/methods/app';
import { Cache } from '../cache';
import { ServiceClient, createQueryHandlers, type ServiceClientOptions } from '../client';
import { createCacheLayerLoader } from '../export/from-cache';
import { createExportService, type ExportService, type LoadLayers } from '../export/service';
import { createKeytarStore } from '../keys/keytar-store';
import type { SecretStore } from '../keys/secret-store';
import { createConnections } from '../profiles/connections';
import { EventBus } from '../rpc/events';
import { createRouter, type Handlers, type Router } from '../rpc/router';
import type { Logger } from './logger';

export interface AppDeps {
  dataDir: string;
  logger: Logger;
  shell: AppInfo['shell'];
  version: string;
  clock: () => Date;
  /** Where keys live; the OS keychain when absent. Tests of other units pass createMemorySecretStore(). */
  secretStore?: SecretStore;
  /** Used by keys.test; globalThis.fetch when absent. */
  fetch?: typeof fetch;
  /** Address of the bundled service once it listens, shown as the Local profile's URLs. */
  localEndpoint?: () => { baseUrl: string; searchBaseUrl: string } | null;
  /** Reads the selected queries for export; the query cache when absent. */
  loadExportLayers?: LoadLayers;
  /** Service client tuning and test seams (fetch, timeouts, retries, probe interval). */
  client?: Partial<Pick<ServiceClientOptions, 'fetch' | 'timeouts' | 'retry' | 'probeIntervalMs'>>;
}

export interface AppServices {
  router: Router;
  bus: EventBus;
  /** For the logger's `secrets` option: current key values, so they are redacted from every line. */
  secretValues: () => Iterable<string>;
  /** Keychain-backed keys of the bundled service (generated on first run); for its `localServiceKeys`. */
  localServiceKeys: () => Promise<{ bearer: string; search: string }>;
  exports: ExportService;
  close(): Promise<void>;
}

export const APP_NAME = 'Fieldlens';

/**
 * Builds every Node-side service from injected dependencies and joins their handlers into one
 * router. Both shells (Electron main, browser host) and the contract tests call this.
 */
export async function createAppServices(deps: AppDeps): Promise<AppServices> {
  mkdirSync(deps.dataDir, { recursive: true });
  const bus = new EventBus();

  const connections = createConnections({
    dataDir: deps.dataDir,
    logger: deps.logger,
    store: deps.secretStore ?? createKeytarStore({ service: APP_NAME, clock: deps.clock }),
    fetch: deps.fetch ?? globalThis.fetch,
    localEndpoint: deps.localEndpoint,
    onActiveChanged: (c: ConnectionInfo) => bus.emit('connection.changed', c),
  });
  // Learn stored key values early so the log redacts them from the first line on.
  connections.keys.warm().catch((e: unknown) => deps.logger.warn('Keychain not readable at start', String(e)));
  const connection = () => connections.profiles.active();

  const cache = Cache.open(join(deps.dataDir, 'cache.db'));
  const client = new ServiceClient({
    ...deps.client,
    connection,
    keys: connections.keys,
    logger: deps.logger,
    onConnectivity: (state) => bus.emit('connectivity.changed', state),
  });

  const profileOf = (id: string) => {
    const p = connections.profiles.list().profiles.find((x) => x.id === id);
    return p ? { label: p.label, baseUrl: p.baseUrl, searchBaseUrl: p.searchBaseUrl } : null;
  };
  const exports = createExportService({
    dataDir: deps.dataDir,
    logger: deps.logger,
    clock: deps.clock,
    allowDestination: deps.shell !== 'browser-host',
    emit: (payload) => bus.emit('export.progress', payload),
    loadLayers: deps.loadExportLayers ?? createCacheLayerLoader(cache, profileOf),
  });

  const handlers: Handlers = {
    'app.info': () => ({ name: APP_NAME, version: deps.version, shell: deps.shell, dataDir: deps.dataDir }),
    ...connections.handlers,
    ...createQueryHandlers({ client, cache, connection, logger: deps.logger, now: () => deps.clock().getTime() }),
    'export.start': (input) => exports.start(input),
    'export.cancel': (input) => exports.cancel(input),
  };

  return {
    router: createRouter(handlers, deps.logger),
    bus,
    secretValues: connections.keys.secretValues,
    localServiceKeys: connections.localServiceKeys,
    exports,
    async close() {
      await exports.close();
      client.dispose();
      cache.close();
    },
  };
}
