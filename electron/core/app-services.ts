import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { AppInfo, ConnectionInfo } from '../../shared/rpc/methods/app';
import { EventBus } from '../rpc/events';
import { createRouter, type Handlers, type Router } from '../rpc/router';
import type { LocalServicePlugin } from '../local-service/plugin';
import { createLocalService, type LocalService, type LocalServiceKeys } from '../local-service/server';
import type { Logger } from './logger';

export interface AppDeps {
  dataDir: string;
  logger: Logger;
  shell: AppInfo['shell'];
  version: string;
  clock: () => Date;
  /** Keys of the bundled local service; default: random per run. */
  localServiceKeys?: () => Promise<LocalServiceKeys>;
  /** Routes added to the local service (stream, imagery search). */
  localServicePlugins?: LocalServicePlugin[];
  /** false: do not start the bundled local service (tests that need no connection). */
  startLocalService?: boolean;
}

const randomKeys = async (): Promise<LocalServiceKeys> => ({
  bearer: randomBytes(32).toString('base64url'),
  search: randomBytes(32).toString('base64url'),
});

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
  const connection: ConnectionInfo = {
    profileId: 'local',
    label: 'Local (bundled)',
    kind: 'local',
    baseUrl: '',
    searchBaseUrl: '',
  };

  // The default connection: the bundled service on loopback, in this process.
  let localService: LocalService | null = null;
  if (deps.startLocalService !== false) {
    const keys = await (deps.localServiceKeys ?? randomKeys)();
    localService = createLocalService({
      dataDir: join(deps.dataDir, 'local-service'),
      keys,
      logger: deps.logger,
      clock: deps.clock,
      plugins: deps.localServicePlugins,
    });
    try {
      const urls = await localService.start();
      connection.baseUrl = urls.baseUrl;
      connection.searchBaseUrl = urls.searchBaseUrl;
    } catch (e) {
      // The app still opens (history, exports) without its bundled connection; the log says why.
      deps.logger.error('local service did not start', e);
      await localService.close();
      localService = null;
    }
  }

  const handlers: Handlers = {
    'app.info': () => ({ name: APP_NAME, version: deps.version, shell: deps.shell, dataDir: deps.dataDir }),
    'connection.active': () => connection,
  };

  return {
    router: createRouter(handlers, deps.logger),
    bus,
    async close() {
      await localService?.close();
      localService = null;
    },
  };
}
