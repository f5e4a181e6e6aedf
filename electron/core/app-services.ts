import { mkdirSync } from 'node:fs';
import type { AppInfo, ConnectionInfo } from '../../shared/rpc/methods/app';
import { EventBus } from '../rpc/events';
import { createRouter, type Handlers, type Router } from '../rpc/router';
import type { Logger } from './logger';

export interface AppDeps {
  dataDir: string;
  logger: Logger;
  shell: AppInfo['shell'];
  version: string;
  clock: () => Date;
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
  const connection: ConnectionInfo = {
    profileId: 'local',
    label: 'Local (bundled)',
    kind: 'local',
    baseUrl: '',
    searchBaseUrl: '',
  };

  const handlers: Handlers = {
    'app.info': () => ({ name: APP_NAME, version: deps.version, shell: deps.shell, dataDir: deps.dataDir }),
    'connection.active': () => connection,
  };

  return {
    router: createRouter(handlers, deps.logger),
    bus,
    async close() {},
  };
}
