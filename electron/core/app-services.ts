import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { AppInfo, ConnectionInfo } from '../../shared/rpc/methods/app';
import { Cache } from '../cache';
import { ServiceClient, createQueryHandlers, type ServiceClientOptions } from '../client';
import { EventBus } from '../rpc/events';
import { createRouter, type Handlers, type Router } from '../rpc/router';
import type { Logger } from './logger';
import type { KeyProvider } from './secrets';

export interface AppDeps {
  dataDir: string;
  logger: Logger;
  shell: AppInfo['shell'];
  version: string;
  clock: () => Date;
  /** API keys (the OS keychain in the shells); without one, requests go out without keys. */
  keys?: KeyProvider;
  /** The active connection; defaults to the bundled local service. */
  connection?: () => ConnectionInfo;
  /** Service client tuning and test seams (fetch, timeouts, retries, probe interval). */
  client?: Partial<Pick<ServiceClientOptions, 'fetch' | 'timeouts' | 'retry' | 'probeIntervalMs'>>;
}

export interface AppServices {
  router: Router;
  bus: EventBus;
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
  const fixedConnection: ConnectionInfo = {
    profileId: 'local',
    label: 'Local (bundled)',
    kind: 'local',
    baseUrl: '',
    searchBaseUrl: '',
  };
  const connection = deps.connection ?? (() => fixedConnection);
  const cache = Cache.open(join(deps.dataDir, 'cache.db'));
  const client = new ServiceClient({
    ...deps.client,
    connection,
    keys: deps.keys ?? { getKey: async () => null },
    logger: deps.logger,
    onConnectivity: (state) => bus.emit('connectivity.changed', state),
  });

  const handlers: Handlers = {
    'app.info': () => ({ name: APP_NAME, version: deps.version, shell: deps.shell, dataDir: deps.dataDir }),
    'connection.active': () => connection(),
    ...createQueryHandlers({ client, cache, connection, logger: deps.logger, now: () => deps.clock().getTime() }),
  };

  return {
    router: createRouter(handlers, deps.logger),
    bus,
    async close() {
      client.dispose();
      cache.close();
    },
  };
}
