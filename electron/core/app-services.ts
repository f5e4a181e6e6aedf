import { mkdirSync } from 'node:fs';
import type { AppInfo, ConnectionInfo } from '../../shared/rpc/methods/app';
import { EventBus } from '../rpc/events';
import { createRouter, type Handlers, type Router } from '../rpc/router';
import { RpcError } from '../../shared/rpc/errors';
import { createExportService, type ExportService, type LoadLayers } from '../export/service';
import type { Logger } from './logger';

export interface AppDeps {
  dataDir: string;
  logger: Logger;
  shell: AppInfo['shell'];
  version: string;
  clock: () => Date;
  /** Reads the selected queries for export (from the cache). */
  loadExportLayers?: LoadLayers;
}

export interface AppServices {
  router: Router;
  bus: EventBus;
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
  const connection: ConnectionInfo = {
    profileId: 'local',
    label: 'Local (bundled)',
    kind: 'local',
    baseUrl: '',
    searchBaseUrl: '',
  };

  const exports = createExportService({
    dataDir: deps.dataDir,
    logger: deps.logger,
    clock: deps.clock,
    allowDestination: deps.shell !== 'browser-host',
    emit: (payload) => bus.emit('export.progress', payload),
    loadLayers:
      deps.loadExportLayers ??
      (async () => {
        throw new RpcError('NOT_FOUND', 'No query cache is available to export from');
      }),
  });

  const handlers: Handlers = {
    'app.info': () => ({ name: APP_NAME, version: deps.version, shell: deps.shell, dataDir: deps.dataDir }),
    'connection.active': () => connection,
    'export.start': (input) => exports.start(input),
    'export.cancel': (input) => exports.cancel(input),
  };

  return {
    router: createRouter(handlers, deps.logger),
    bus,
    exports,
    async close() {
      await exports.close();
    },
  };
}
