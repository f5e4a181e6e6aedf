import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { AppInfo, ConnectionInfo } from '../../shared/rpc/methods/app';
import type { MethodName } from '../../shared/rpc/contract';
import { EXPORT_EXTENSION } from '../../shared/rpc/methods/export';
import { RpcError } from '../../shared/rpc/errors';
import { Cache } from '../cache';
import { ServiceClient, createQueryHandlers, type ServiceClientOptions } from '../client';
import { createCacheLayerLoader } from '../export/from-cache';
import { createEvidenceService, latestBundleSha256 } from '../fieldkit/evidence/service';
import { createSigningKey } from '../fieldkit/evidence/signing-key';
import { createFieldKitHandlers } from '../fieldkit/handlers';
import { createQuestionQueue, type QuestionQueue } from '../fieldkit/queue';
import { createFieldSettings } from '../fieldkit/settings';
import { createTileFetcher } from '../fieldkit/pack/fetch-tile';
import { createPackHandlers } from '../fieldkit/pack/handlers';
import { createPackService, type PackService } from '../fieldkit/pack/service';
import { createExportService, type ExportService, type LoadLayers } from '../export/service';
import { createFallbackStore } from '../keys/fallback-store';
import { createKeyFileStore } from '../keys/file-store';
import { createKeytarStore } from '../keys/keytar-store';
import type { SecretStore } from '../keys/secret-store';
import { createImageryPlugin, type ImageryPlugin } from '../local-service/imagery';
import { createFaceBlur, type FaceBlurService } from '../local-service/imagery/perception/face-blur';
import type { LocalServicePlugin } from '../local-service/plugin';
import type { LocalServiceKeys } from '../../shared/rpc/methods/keys';
import { createLocalService, type LocalService } from '../local-service/server';
import type { EmbeddedLayerStore, LayerStore } from '../local-service/layers/store/layer-store';
import { asAsyncLayerStore } from '../local-service/layers/store/async-layer-store';
import { openSqliteLayerStore } from '../local-service/layers/store/sqlite-layer-store';
import { exportContextLayers, withEvidence } from './export-context';
import { createLayerHandlers } from './layers';
import { packLayers } from './pack-layers';
import { PhotoFolders } from './photo-folders';
import { previewUpload } from './upload-preview';
import { loadNameHeaders } from '../local-service/vocabulary/header-words';
import { createConnections } from './connections';
import { LOCAL_PROFILE_ID } from '../../shared/rpc/methods/profiles';
import { EventBus } from '../rpc/events';
import { createRouter, type Handlers, type Router } from '../rpc/router';
import type { Logger } from '../ground/logger';
import { createStaging } from '../ground/staging';
import type { InlineAttachment } from '../../shared/rpc/methods/compute';
import { resourcesDir } from '../ground/paths';
import { createPlaceHandlers } from './places';

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
  /** The process environment: keys given there (FIELDLENS_KEY_<CONNECTION>, docs/connections.md) are used read only. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Reads the selected queries for export; the query cache when absent. */
  loadExportLayers?: LoadLayers;
  /** Service client tuning and test seams (fetch, timeouts, retries, probe interval). */
  client?: Partial<Pick<ServiceClientOptions, 'fetch' | 'timeouts' | 'retry' | 'probeIntervalMs' | 'maxResponseBytes'>>;
  /** false: do not start the bundled local service (tests that need no connection). */
  startLocalService?: boolean;
  /**
   * The bundled service starts once this settles (at once when absent). Loading its catalog
   * holds the event loop for a moment, so the browser host lets it begin only after it printed
   * its URL.
   */
  startLocalServiceAfter?: Promise<unknown>;
  /** Photo folders given at start (a flag); they join the folders saved in the app's settings. */
  photoDirs?: string[];
  /** Extra routes for the bundled service, beside stream and imagery search. */
  localServicePlugins?: LocalServicePlugin[];
  /** Watch photo folders for changes (default true; tests turn it off). */
  watchPhotos?: boolean;
  /** Look at photos with the detectors (worker threads) so stream finds what is in them; default true but in tests. */
  seePhotos?: boolean;
  /** The desktop shell's native save dialog (absent in the browser host, which downloads instead). */
  chooseSavePath?: (opts: { defaultName: string; extension: string }) => Promise<string | null>;
  /** The desktop shell's native open dialog for a data layer file (absent in the browser host, which uploads). */
  pickLayerFile?: () => Promise<string | null>;
}

export interface AppServices {
  router: Router;
  bus: EventBus;
  /** For the logger's `secrets` option: current key values, so they are redacted from every line. */
  secretValues: () => Iterable<string>;
  /** The bundled service's addresses, null when it is not running. */
  localEndpoint: () => { baseUrl: string; searchBaseUrl: string } | null;
  exports: ExportService;
  /** Finished area packs, offered as downloads by the browser host. */
  packs: Pick<PackService, 'download'>;
  close(): Promise<void>;
}

export const APP_NAME = 'Fieldlens';
/** The encrypted key file in the data folder, used where no system keychain answers. */
export const KEY_FILE = 'keys.enc';

/**
 * Builds every Node-side service from injected dependencies and joins their handlers into one
 * router. Both shells (Electron main, browser host) and the contract tests call this.
 */
export async function createAppServices(deps: AppDeps): Promise<AppServices> {
  mkdirSync(deps.dataDir, { recursive: true });
  const bus = new EventBus();
  let localUrls: { baseUrl: string; searchBaseUrl: string } | null = null;

  // The system keychain; where none answers, an encrypted key file opened with a passphrase.
  const secretStore = createFallbackStore(
    deps.secretStore ?? createKeytarStore({ service: APP_NAME, clock: deps.clock }),
    createKeyFileStore({ path: join(deps.dataDir, KEY_FILE), clock: deps.clock }),
  );
  const keyBackend = async () => ({ backend: await secretStore.backend(), keyFile: secretStore.fileExists() });
  const connections = createConnections({
    dataDir: deps.dataDir,
    logger: deps.logger,
    store: secretStore,
    fetch: deps.fetch ?? globalThis.fetch,
    localEndpoint: () => localUrls,
    onActiveChanged: (c: ConnectionInfo) => bus.emit('connection.changed', c),
    env: deps.env,
  });
  const connection = () => connections.profiles.active();
  // Learn stored key values early so the log redacts them from the first line on.
  connections.keys.warm().catch((e: unknown) => deps.logger.warn('Keychain not readable at start', String(e)));

  // The default connection: the bundled service on loopback, in this process. It starts in the
  // background (loading its catalog takes seconds), so a shell can serve its window at once;
  // handlers that need its address wait for the start to settle (see waitForLocal).
  const photoFolders = new PhotoFolders(deps.dataDir, deps.logger);
  // Faces in images leaving the laptop are hidden; without the models, bundles say they were not.
  let faceBlur: FaceBlurService | null = null;
  try {
    faceBlur = createFaceBlur(join(resourcesDir(), 'models'));
  } catch (err) {
    deps.logger.warn('face detector unavailable: evidence bundles keep faces as photographed', { error: (err as Error).message });
  }
  let imagery: ImageryPlugin | null = null;
  let localService: RunningService | null = null;
  // Opened here rather than inside the service so the layer list can also draw a layer's features.
  let layerStore: LayerStore | null = null;
  // The same store's synchronous calls, for area packs (they list and write the app's own layers).
  let embedded: EmbeddedLayerStore | null = null;
  let localStarted: Promise<void> = Promise.resolve();
  let closing = false;
  if (deps.startLocalService !== false) {
    imagery = createImageryPlugin({
      photoDirs: [...new Set([...photoFolders.list(), ...(deps.photoDirs ?? [])])],
      sample: true,
      sampleDir: join(resourcesDir(), 'sample-photos'),
      watch: deps.watchPhotos ?? true,
      perception: (deps.seePhotos ?? deps.shell !== 'test') ? { modelsDir: join(resourcesDir(), 'models') } : false,
      detectionOff: photoFolders.detectionOff(),
    });
    const plugins = [imagery, ...(deps.localServicePlugins ?? [])];
    localStarted = Promise.resolve(deps.startLocalServiceAfter)
      .catch(() => undefined)
      .then(() =>
        // Closed before the start began (a shell stopped at once): nothing to start.
        closing
          ? null
          : startBundledService(deps, plugins, (layerStore = asAsyncLayerStore((embedded = openSqliteLayerStore({ dataDir: localDataDir(deps), clock: deps.clock })))), {
              fromKeychain: () => connections.localServiceKeys(),
              holdForThisRun: (keys) => connections.keys.holdForThisRun(LOCAL_PROFILE_ID, keys),
            },
            // Saved results a cached query, its thread or an opened pack names outlive retention.
            () => cache.serviceSearchIds()),
      )
      .then((started) => {
        localService = started;
        if (!started) return;
        localUrls = started.urls;
        layerHandlers.attach(started.layers);
        // Local's URLs exist only now; tell the status bar what the active connection really is.
        bus.emit('connection.changed', connection());
      })
      // Settles either way: waiting handlers then answer as with the service stopped.
      .catch((e: unknown) => deps.logger.error('The bundled local service did not start', e));
  }

  const layerHandlers = createLayerHandlers({
    layers: () => localService?.layers ?? null,
    store: () => layerStore,
    connection,
    uploadDir: join(deps.dataDir, 'layer-uploads'),
    logger: deps.logger,
    progress: (p) => bus.emit('layers.progress', p),
    done: (d) => bus.emit('layers.done', d),
    changed: (layers) => bus.emit('layers.changed', { layers }),
    pickFile: deps.pickLayerFile,
  });

  // Files of questions sent ahead in chunks; what a previous run left is removed here.
  const staging = createStaging({ dir: join(deps.dataDir, 'attachment-uploads'), prefix: 'attachment', fallbackName: 'file' });
  const cache = Cache.open(join(deps.dataDir, 'cache.db'));
  let queue: QuestionQueue | null = null;
  const client = new ServiceClient({
    ...deps.client,
    connection,
    keys: connections.keys,
    logger: deps.logger,
    onConnectivity: (state) => {
      bus.emit('connectivity.changed', state);
      // The connection is back: questions kept while it was down go now.
      if (state.online) void queue?.flush();
    },
  });
  // Queued questions are sent through the router (validated like any compute.run), so the queue
  // needs the router that is built last; it is looked up when a question is sent.
  let router: Router | null = null;
  queue = createQuestionQueue({
    cache,
    run: async (input) => {
      // A kept question's files go staged, as the page sends large ones: no call carries them all inline.
      const attachments = [];
      for (const a of (input.attachments ?? []) as InlineAttachment[]) {
        const { dataBase64, ...head } = a;
        attachments.push({ ...head, stagedId: (await staging.put(head.name, Buffer.from(dataBase64, 'base64'))).id });
      }
      const r = await router!.dispatch('compute.run', { request: input.request, ...(attachments.length ? { attachments } : {}) });
      if (!r.ok) throw new RpcError(r.error.code, r.error.message, r.error.details);
      return r.value as { queryId: number };
    },
    profileId: () => connection().profileId,
    online: () => client.online,
    settled: (q) => bus.emit('queue.settled', q),
    logger: deps.logger,
    now: () => deps.clock().getTime(),
    staging,
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
    packWritten: (path) => packs.written(path),
    emit: (payload) => bus.emit('export.progress', payload),
    loadLayers: deps.loadExportLayers ?? withEvidence(createCacheLayerLoader(cache, profileOf), (id) => latestBundleSha256(deps.dataDir, id)),
    contextLayers: exportContextLayers(cache, () => (embedded && localService ? packLayers(embedded, localService.layers) : null), deps.logger),
  });

  const packs = createPackService({
    cache,
    dataDir: deps.dataDir,
    layers: () => (embedded && localService ? packLayers(embedded, localService.layers) : null),
    online: () => client.online,
    fetchMedia: (url, signal) => client.fetchMedia(url, { signal }),
    fetchTile: createTileFetcher(deps.fetch ?? globalThis.fetch, `${APP_NAME}/${deps.version} (offline area pack)`),
    clock: deps.clock,
    faceBlur: faceBlur ?? undefined,
    emit: (e) => bus.emit('pack.progress', e),
    logger: deps.logger,
  });

  // Name headers in other languages, read on the first preview that needs them.
  let nameHeaders: ReadonlySet<string> | undefined;
  const handlers: Handlers = {
    'app.info': () => ({ name: APP_NAME, version: deps.version, shell: deps.shell, dataDir: deps.dataDir }),
    ...connections.handlers,
    'keys.backend': keyBackend,
    'keys.unlock': async ({ passphrase }) => {
      connections.keys.redact(passphrase);
      await secretStore.unlockFile(passphrase);
      // Keys kept in the file are redacted from the log from now on, as the keychain's are at start.
      await connections.keys.warm();
      return keyBackend();
    },
    ...createQueryHandlers({
      client,
      cache,
      connection,
      connectionOf: (id) => connections.profiles.connectionOf(id),
      logger: deps.logger,
      staging,
      now: () => deps.clock().getTime(),
    }),
    'export.chooseDestination': async ({ format, suggestedName }) => {
      if (!deps.chooseSavePath)
        throw new RpcError('NOT_FOUND', 'No save dialog here: the browser host offers exports as downloads');
      const extension = EXPORT_EXTENSION[format];
      const base = suggestedName.replace(/[\\/:*?"<>|]+/g, '_');
      return { path: await deps.chooseSavePath({ defaultName: `${base}.${extension}`, extension }) };
    },
    'export.start': (input) => exports.start(input),
    'export.cancel': (input) => exports.cancel(input),
    'export.estimate': (input) => exports.estimate(input),
    ...createFieldKitHandlers({
      settings: createFieldSettings(deps.dataDir, deps.logger),
      evidence: createEvidenceService({
        cache,
        signingKey: createSigningKey(secretStore),
        dataDir: deps.dataDir,
        app: { name: APP_NAME, version: deps.version },
        clock: deps.clock,
        faceBlur: faceBlur ?? undefined,
      }),
      queue,
      cache,
    }),
    ...layerHandlers.handlers,
    ...createPackHandlers(packs),
    ...createPlaceHandlers(join(resourcesDir(), 'catalog')),
    'photos.status': async () => {
      // Report after the first scan, not a half-built count.
      await imagery?.catalog()?.ready().catch(() => undefined);
      return photoFolders.status(imagery);
    },
    'photos.setFolders': async ({ folders }) => {
      await photoFolders.set(folders, imagery);
      return photoFolders.status(imagery);
    },
    'photos.setDetection': async ({ folder, on }) => {
      await photoFolders.setDetection(folder, on, imagery);
      return photoFolders.status(imagery);
    },
    'photos.perception': async ({ action }) => {
      if (action === 'cancel') imagery?.cancelPerception();
      else imagery?.resumePerception();
      return photoFolders.status(imagery);
    },
    'uploads.preview': async (input) => {
      const bytes = 'dataBase64' in input ? Buffer.from(input.dataBase64, 'base64') : (await staging.read(input.stagedId)).bytes;
      return previewUpload(input.name, bytes, () => (nameHeaders ??= loadNameHeaders()));
    },
    'uploads.stageStart': async ({ name, size }) => ({ stagedId: (await staging.start(name, size)).id }),
    'uploads.stageChunk': async ({ stagedId, offset, dataBase64 }) => ({ received: (await staging.chunk(stagedId, offset, dataBase64)).received }),
    'uploads.stageDrop': async ({ stagedId }) => ({ dropped: await staging.drop(stagedId) }),
  };

  router = createRouter(waitForLocal(handlers, () => localStarted), deps.logger);
  return {
    router,
    bus,
    secretValues: connections.keys.secretValues,
    localEndpoint: () => localUrls,
    exports,
    packs,
    async close() {
      closing = true;
      await exports.close();
      await packs.close();
      await layerHandlers.close();
      await staging.close();
      await faceBlur?.close();
      client.dispose();
      cache.close();
      await localStarted;
      await localService?.close();
      await layerStore?.close();
    },
  };
}

/**
 * Methods that read the bundled service's address or catalog, or send to it. The cancels wait
 * too, so each is queued behind a run that is waiting (and finds it); the health probe waits so
 * that a service still starting reads as "checking", not offline.
 */
const NEEDS_LOCAL = new Set<MethodName>([
  'connection.active', 'profiles.list', 'profiles.save', 'profiles.select', 'profiles.delete',
  'keys.test', 'compute.run', 'compute.cancel', 'stream.run', 'stream.cancel', 'imagery.search',
  'imagery.cancel', 'history.rerun', 'media.get', 'photos.status', 'photos.setFolders', 'photos.perception', 'photos.setDetection',
  'service.health',
  'layers.list', 'layers.import', 'layers.cancel', 'layers.remove', 'layers.features',
  'pack.estimate', 'pack.create', 'pack.open',
]);

/**
 * Makes the NEEDS_LOCAL handlers wait until the bundled service's start settled (started or
 * failed); history, cache, exports, keys and app info answer at once.
 */
function waitForLocal(handlers: Handlers, started: () => Promise<void>): Handlers {
  const out: Record<string, unknown> = { ...handlers };
  for (const [method, handler] of Object.entries(handlers) as [string, (input: never, ctx: never) => unknown][]) {
    if (!NEEDS_LOCAL.has(method as MethodName)) continue;
    out[method] = async (input: never, ctx: never) => {
      await started();
      return handler(input, ctx);
    };
  }
  return out as Handlers;
}

const localDataDir = (deps: AppDeps) => join(deps.dataDir, 'local-service');

type RunningService = LocalService & { urls: { baseUrl: string; searchBaseUrl: string } };

/**
 * Starts the bundled service with its keys from the keychain. Without a keychain it still
 * runs on keys made for this run and held in memory only: the app keeps doing its job
 * offline, and no key is ever written anywhere else.
 */
async function startBundledService(
  deps: AppDeps,
  plugins: LocalServicePlugin[],
  layerStore: LayerStore,
  keySource: { fromKeychain(): Promise<LocalServiceKeys>; holdForThisRun(keys: LocalServiceKeys): void },
  pinned: () => Iterable<string>,
): Promise<RunningService | null> {
  let keys: LocalServiceKeys;
  try {
    keys = await keySource.fromKeychain();
  } catch (e) {
    deps.logger.warn('Keychain unavailable: the bundled service uses keys for this run only', String(e));
    keys = { bearer: randomBytes(32).toString('base64url'), search: randomBytes(32).toString('base64url') };
    keySource.holdForThisRun(keys);
  }
  const service = createLocalService({
    dataDir: localDataDir(deps),
    keys,
    layerStore,
    logger: deps.logger,
    clock: deps.clock,
    plugins,
    retention: { pinned },
  });
  try {
    const urls = await service.start();
    return Object.assign(service, { urls });
  } catch (e) {
    // The app still opens (history, exports, remote profiles) without its bundled connection.
    deps.logger.error('The bundled local service did not start', e);
    await service.close();
    return null;
  }
}
