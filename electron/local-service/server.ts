import multipart from '@fastify/multipart';
import type { FastifyInstance } from 'fastify';
import type { LocalServiceKeys } from '../../shared/rpc/methods/keys';
import type { Logger } from '../ground/logger';
import { defaultCatalogDir, loadCatalog, type Catalog } from './catalog/catalog';
import { createPointIndexer, type PointIndexer } from './catalog/index-worker';
import { registerCompute, UPLOAD_LIMITS } from './http/compute';
import { createHost } from './http/host';
import type { LocalServicePlugin, ServiceContext } from './plugin';
import { createSearchStore, openDatabase, startCheckpointer, type Checkpointer } from './store';
import { join } from 'node:path';
import { startLayerImport, type ImportJob, type ImportOptions } from './layers/import-job';
import type { LayerInfo, LayerStore } from './layers/store/layer-store';
import { openSqliteLayerStore } from './layers/store/sqlite-layer-store';


export interface LocalServiceOptions {
  dataDir: string;
  keys: LocalServiceKeys;
  logger: Logger;
  clock: () => Date;
  /** Fault switch: every answer generation fails (status failed, results intact, HTTP 200). */
  answerFault?: boolean;
  plugins?: LocalServicePlugin[];
  /** Folder of the built catalog; defaults to resources/catalog of the app. */
  catalogDir?: string;
  /** A catalog already loaded (tests share one between restarts). */
  catalog?: Catalog;
  /** Where data layers live; the SqliteLayerStore in dataDir when absent (then closed with the service). */
  layerStore?: LayerStore;
}

/** The service's data layers (API in layers/README.md); onChange returns its unsubscribe. */
export interface ServiceLayers {
  list(): LayerInfo[];
  get(id: string): LayerInfo | null;
  remove(id: string): boolean;
  startImport(file: string, opts?: Omit<ImportOptions, 'store' | 'file' | 'tempDir'>): ImportJob;
  onChange(cb: () => void): () => void;
}

export interface LocalService {
  start(opts?: { port?: number; searchPort?: number }): Promise<{ baseUrl: string; searchBaseUrl: string }>;
  close(): Promise<void>;
  setKeys(keys: LocalServiceKeys): void;
  layers: ServiceLayers;
}

const JSON_BODY_LIMIT = 1024 * 1024;
const HOST = '127.0.0.1';

/**
 * The bundled implementation of the service interface: the compute/stream host ({base_url})
 * and the imagery-search host ({search_base_url}), two Fastify instances on loopback.
 */
export function createLocalService(opts: LocalServiceOptions): LocalService {
  let keys = { ...opts.keys };
  let baseUrl = '';
  let searchBaseUrl = '';
  let base: FastifyInstance | null = null;
  let search: FastifyInstance | null = null;
  let closeDb: (() => void) | null = null;
  let checkpointer: Checkpointer | null = null;
  let indexer: PointIndexer | null = null;
  const plugins = opts.plugins ?? [];
  let ownLayerStore: LayerStore | null = null;
  const layerStore = () => opts.layerStore ?? (ownLayerStore ??= openSqliteLayerStore({ dataDir: opts.dataDir, clock: opts.clock }));
  const layerListeners = new Set<() => void>();
  const layersChanged = () => {
    for (const cb of layerListeners) cb();
  };
  const layers: ServiceLayers = {
    list: () => layerStore().list(),
    get: (id) => layerStore().get(id),
    remove(id) {
      const removed = layerStore().remove(id);
      if (removed) layersChanged();
      return removed;
    },
    startImport(file, importOpts = {}) {
      const job = startLayerImport({ ...importOpts, store: layerStore(), file, tempDir: join(opts.dataDir, 'tmp') });
      job.done.then(layersChanged, () => undefined);
      return job;
    },
    onChange(cb) {
      layerListeners.add(cb);
      return () => layerListeners.delete(cb);
    },
  };

  return {
    layers,
    async start(startOpts = {}) {
      if (base) throw new Error('local service already started');
      const catalog = opts.catalog ?? loadCatalog(opts.catalogDir ?? defaultCatalogDir());
      const db = openDatabase(opts.dataDir);
      const store = createSearchStore(db, (e) => opts.logger.error('local service: saving results failed', e), catalog.kinds.codes);
      checkpointer = startCheckpointer(db, (e) => opts.logger.error('local service: checkpoint failed', e));
      closeDb = () => store.close();
      indexer = createPointIndexer((e) => opts.logger.error('local service: index worker failed; indexing on the request thread', e));
      const ctx: ServiceContext = {
        dataDir: opts.dataDir,
        db,
        logger: opts.logger,
        clock: opts.clock,
        catalog,
        baseUrl: () => baseUrl,
        searchBaseUrl: () => searchBaseUrl,
      };
      base = createHost({ logger: opts.logger, auth: 'bearer', key: () => keys.bearer, bodyLimit: JSON_BODY_LIMIT });
      search = createHost({ logger: opts.logger, auth: 'x-api-key', key: () => keys.search, bodyLimit: JSON_BODY_LIMIT });
      await base.register(multipart, { limits: UPLOAD_LIMITS });
      for (const app of [base, search]) app.get('/health', { config: { auth: false } }, async () => ({ status: 'ok' }));
      registerCompute(base, { catalog, logger: opts.logger, store, clock: opts.clock, answerFault: () => opts.answerFault === true, indexer });
      // Process figures for soak runs and support: memory in MiB, saved query count.
      const countSaved = db.prepare('SELECT count(*) AS n FROM searches');
      base.get<{ Querystring: { gc?: string } }>('/v1/status', async (req) => {
        // Soak runs compare memory after a full collection; only a process started with --expose-gc can.
        const gc = (globalThis as { gc?: () => void }).gc;
        if (req.query.gc === '1' && gc) gc();
        const m = process.memoryUsage();
        const mb = (v: number) => Math.round((v / 1048576) * 10) / 10;
        return {
          catalog: catalog.version,
          uptime_s: Math.round(process.uptime()),
          rss_mb: mb(m.rss),
          heap_used_mb: mb(m.heapUsed),
          heap_total_mb: mb(m.heapTotal),
          external_mb: mb(m.external),
          saved_queries: (countSaved.get() as { n: number }).n,
        };
      });
      for (const p of plugins) {
        await p.registerBase?.(base, ctx);
        await p.registerSearch?.(search, ctx);
      }
      try {
        baseUrl = (await base.listen({ host: HOST, port: startOpts.port ?? 0 })).replace('localhost', HOST);
        searchBaseUrl = (await search.listen({ host: HOST, port: startOpts.searchPort ?? 0 })).replace('localhost', HOST);
      } catch (e) {
        await this.close();
        throw e;
      }
      opts.logger.info('local service started', { baseUrl, searchBaseUrl, catalog: catalog.version });
      return { baseUrl, searchBaseUrl };
    },
    async close() {
      const apps = [base, search];
      base = search = null;
      for (const app of apps) await app?.close();
      for (const p of plugins) await p.close?.();
      // Pending saves first (they are written on close), then the last checkpoint.
      closeDb?.();
      await checkpointer?.close();
      await indexer?.close();
      checkpointer = null;
      indexer = null;
      closeDb = null;
      ownLayerStore?.close();
      ownLayerStore = null;
    },
    setKeys(next) {
      keys = { ...next };
    },
  };
}
