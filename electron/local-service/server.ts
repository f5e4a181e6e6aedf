import { join } from 'node:path';
import multipart from '@fastify/multipart';
import type { FastifyInstance } from 'fastify';
import type { LocalServiceKeys } from '../../shared/rpc/methods/keys';
import type { Logger } from '../ground/logger';
import { defaultCatalogDir, loadCatalog, type Catalog } from './catalog/catalog';
import { createPointIndexer, type PointIndexer } from './catalog/index-worker';
import { registerCompute, UPLOAD_LIMITS } from './http/compute';
import { createHost } from './http/host';
import type { LocalServicePlugin, ServiceContext } from './plugin';
import { createServiceLayers, type ServiceLayers } from './layers/registry';
import type { LayerStore } from './layers/store/layer-store';
import { openSqliteLayerStore } from './layers/store/sqlite-layer-store';
import { isGrammarWord } from './query/words';
import { createSearchStore, openDatabase, startCheckpointer, type Checkpointer } from './store';
import { createVocabularyProvider } from './vocabulary/provider';


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
  /** Where data layers are kept; defaults to the SQLite layer store in the data folder. */
  layerStore?: LayerStore;
}

export interface LocalService {
  start(opts?: { port?: number; searchPort?: number }): Promise<{ baseUrl: string; searchBaseUrl: string }>;
  close(): Promise<void>;
  setKeys(keys: LocalServiceKeys): void;
  /** The data layers questions are answered over: list, import, remove, and a change signal. */
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
  // The layer store opens on first use (an own one closes with the service, a given one stays open).
  let ownStore: LayerStore | null = null;
  const layerStore = () => opts.layerStore ?? (ownStore ??= openSqliteLayerStore({ dataDir: opts.dataDir, clock: opts.clock }));
  const vocabulary = createVocabularyProvider({ store: layerStore, reserved: isGrammarWord });
  const layers = createServiceLayers({ store: layerStore, tempDir: join(opts.dataDir, 'tmp') });
  layers.onChange(() => vocabulary.invalidate());

  return {
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
      registerCompute(base, {
        catalog, logger: opts.logger, store, clock: opts.clock, answerFault: () => opts.answerFault === true, indexer,
        layers: { store: layerStore, vocabulary },
      });
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
      // The vocabulary (presets read, layer words gathered) is built before the first question needs it.
      await vocabulary.get();
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
      ownStore?.close();
      ownStore = null;
      vocabulary.invalidate();
    },
    setKeys(next) {
      keys = { ...next };
    },
    layers,
  };
}
