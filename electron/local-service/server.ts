import { join } from 'node:path';
import type { Socket } from 'node:net';
import multipart from '@fastify/multipart';
import type { FastifyInstance } from 'fastify';
import type pg from 'pg';
import type { LocalServiceKeys } from '../../shared/rpc/methods/keys';
import type { Logger } from '../ground/logger';
import { defaultCatalogDir, loadCatalog, type Catalog } from './catalog/catalog';
import { createPointIndexer, type PointIndexer } from './catalog/index-worker';
import { createUploadParser, type UploadParser } from './upload/parse-pool';
import { registerCompute } from './http/compute';
import { MAX_UPLOAD_REQUEST_BYTES, UPLOAD_LIMITS } from './http/compute-body';
import { createHost, createTraffic } from './http/host';
import { createUploadBudget, uploadGate, uploadTempDir } from './http/upload-gate';
import { DEFAULT_STALL, type StallLimits } from './http/body-watch';
import { openPgPool } from './pg/database';
import { listenToChannel } from './pg/notifications';
import { openPgResultStore } from './pg/pg-result-store';
import { createDatabaseRouter, type DatabaseRouter } from './pg/replicas';
import type { LocalServicePlugin, ServiceContext } from './plugin';
import { createServiceLayers, type ServiceLayers } from './layers/registry';
import { cachingLayerStore, type CachingLayerStore } from './layers/store/answer-cache';
import { asAsyncLayerStore } from './layers/store/async-layer-store';
import type { LayerStore } from './layers/store/layer-store';
import { LAYERS_CHANNEL } from './layers/store/postgis-migrations';
import { openPostgisLayerStore } from './layers/store/postgis-layer-store';
import { reclaimScratchFiles } from './layers/readers/scratch';
import { openSqliteLayerStore } from './layers/store/sqlite-layer-store';
import type { PhotoDetections } from './query/sources/detections';
import { isGrammarWord } from './query/words';
import { sqliteResultStore, type ResultStore } from './result-store';
import { DEFAULT_RETENTION, scheduleRetention, type RetentionOptions } from './retention';
import { createSearchStore, openDatabase, startCheckpointer, type Checkpointer } from './store';
import type { Keyring } from './team/keyring';
import { createRateLimiter } from './team/rate-limit';
import { createWrongKeys } from './team/wrong-keys';
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
  /**
   * A PostgreSQL (PostGIS) URL: saved results, uploads and data layers live there instead of
   * the data folder's SQLite files, so several service processes can share them (a team service).
   */
  database?: string;
  /**
   * With `database`: PostgreSQL streaming replicas of it (`--replica URL`). Layer features, saved
   * sets and imagery searches are read there; writes, the layer list and LISTEN stay on the primary.
   */
  replicas?: { urls: string[]; maxLagMs?: number; probeMs?: number; waitMs?: number };
  /** Keys mapped to users (a team service): replaces `keys` for authentication on both hosts. */
  keyring?: Keyring;
  /** Requests per minute per key (429 with Retry-After past it); none by default. */
  rateLimitPerMinute?: number;
  /** One structured log line per request; `logBodies` adds request bodies at debug level. */
  accessLog?: boolean;
  logBodies?: boolean;
  /** How long close() lets requests in flight finish, in ms (new ones get 503 meanwhile); 0 by default. */
  drainMs?: number;
  /** Where data layers are kept; defaults to PostGIS with `database`, else the SQLite layer store in the data folder. */
  layerStore?: LayerStore;
  /** Wrong keys per client address and minute before it gets 429 (right keys are still served); 20 by default, 0 for no limit. */
  wrongKeysPerMinute?: number;
  /** Upload bytes all requests in flight may declare together (503 with Retry-After past it); 256 MiB by default. */
  uploadBudgetBytes?: number;
  /** When a request body that stopped arriving, or trickles, is cut with 408 (http/body-watch.ts; 1 MiB per 30 s by default). */
  bodyStall?: StallLimits;
  /** How long saved searches are kept (retention.ts; DEFAULT_RETENTION by default): run at start, then every `everyMs`. */
  retention?: Partial<RetentionOptions>;
}

export const DEFAULT_WRONG_KEYS_PER_MINUTE = 20;
export const DEFAULT_UPLOAD_BUDGET_BYTES = 256 * 1024 * 1024;
/** Seconds a request refused for the upload budget is told to wait. */
const UPLOAD_RETRY_AFTER_S = 2;

export interface LocalService {
  /**
   * `host`: the address to listen on (loopback by default; a container listens on 0.0.0.0).
   * `handedOff`: another process listens at these URLs and hands connections to accept().
   */
  start(opts?: { port?: number; searchPort?: number; host?: string; handedOff?: { baseUrl: string; searchBaseUrl: string } }): Promise<{ baseUrl: string; searchBaseUrl: string }>;
  /** A connection accepted by another process (the primary of --workers), for one of the two hosts. */
  accept(host: 'base' | 'search', socket: Socket): void;
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
  let handedOff = false;
  let closeDb: (() => void) | null = null;
  let store: ResultStore | null = null;
  let closePool: (() => Promise<void>) | null = null;
  const traffic = createTraffic();
  let checkpointer: Checkpointer | null = null;
  let retention: { stop(): Promise<void> } | null = null;
  let indexer: PointIndexer | null = null;
  let parser: UploadParser | null = null;
  const plugins = opts.plugins ?? [];
  // The layer store opens on first use (an own one closes with the service, a given one stays
  // open); on PostgreSQL it opens with the pool in start().
  let ownStore: LayerStore | null = null;
  let answers: CachingLayerStore | null = null;
  const layerStore = () => {
    if (opts.layerStore) return opts.layerStore;
    if (opts.database && !ownStore) throw new Error('the layers of a service on PostgreSQL are read once it has started');
    return (ownStore ??= asAsyncLayerStore(openSqliteLayerStore({ dataDir: opts.dataDir, clock: opts.clock })));
  };
  const vocabulary = createVocabularyProvider({ store: layerStore, reserved: isGrammarWord });
  const layers = createServiceLayers({ store: layerStore, tempDir: join(opts.dataDir, 'tmp') });
  layers.onChange(() => {
    answers?.forget();
    vocabulary.invalidate();
  });

  return {
    async start(startOpts = {}) {
      if (base) throw new Error('local service already started');
      traffic.draining = false;
      const catalog = opts.catalog ?? loadCatalog(opts.catalogDir ?? defaultCatalogDir());
      // Scratch files of OSM imports a killed process left (never a live import's: readers/scratch.ts).
      const reclaimed = reclaimScratchFiles(join(opts.dataDir, 'tmp'));
      if (reclaimed.files) opts.logger.info('local service: removed scratch files of imports that did not finish', reclaimed);
      // Plugins get the data folder's SQLite database (ctx.db) on either backend, and the pool on PostgreSQL.
      const db = openDatabase(opts.dataDir);
      const onSaveError = (e: unknown) => opts.logger.error('local service: saving results failed', e);
      let ping: () => Promise<void> = async () => {};
      let health: (() => ReturnType<DatabaseRouter['health']>) | undefined;
      let pool: pg.Pool | undefined;
      let reads: DatabaseRouter | undefined;
      if (opts.database) {
        pool = openPgPool({ url: opts.database, onError: (e) => opts.logger.warn('local service: database connection lost', e) });
        const open = pool;
        const router = createDatabaseRouter({
          primary: pool,
          primaryUrl: opts.database,
          replicaUrls: opts.replicas?.urls ?? [],
          maxLagMs: opts.replicas?.maxLagMs,
          probeMs: opts.replicas?.probeMs,
          waitMs: opts.replicas?.waitMs,
          onError: (e) => opts.logger.warn('local service: replica connection lost', e),
          onChange: (replica, inRotation, reason) =>
            opts.logger.warn(inRotation ? 'local service: replica back in rotation' : 'local service: replica out of rotation', { replica, reason }),
        });
        reads = router;
        health = () => router.health();
        // Layers another process makes ready or removes reach this one's vocabulary at once.
        const layerChanges = listenToChannel({
          url: opts.database,
          channel: LAYERS_CHANNEL,
          onNotify: () => {
            answers?.forget();
            vocabulary.invalidate();
          },
          onError: (e) => opts.logger.warn('local service: listening for layer changes failed; trying again', e),
        });
        closePool = async () => {
          await layerChanges.close();
          await router.close();
          await open.end();
        };
        ping = async () => void (await open.query('SELECT 1'));
        try {
          store = await openPgResultStore({ pool, onError: onSaveError, codes: catalog.kinds.codes, reads: router });
          // Distance questions a follow-up asks again are answered from memory (answer-cache.ts).
          if (!opts.layerStore) ownStore = answers = cachingLayerStore(await openPostgisLayerStore({ pool, clock: opts.clock, reads: router }));
        } catch (e) {
          db.close();
          await closePool();
          closePool = null;
          throw e;
        }
        closeDb = () => db.close();
      } else {
        const sqlite = createSearchStore(db, onSaveError, catalog.kinds.codes);
        // Its close() writes pending saves and closes the database.
        store = sqliteResultStore(sqlite);
        closeDb = null;
      }
      const results = store;
      // Expired saved searches go before the first request, then every few minutes.
      const scheduled = scheduleRetention(results, { ...DEFAULT_RETENTION, ...opts.retention }, opts.clock, opts.logger);
      retention = scheduled;
      await scheduled.first;
      checkpointer = startCheckpointer(db, (e) => opts.logger.error('local service: checkpoint failed', e));
      indexer = createPointIndexer((e) => opts.logger.error('local service: index worker failed; indexing on the request thread', e));
      const uploadParser = createUploadParser({ onError: (e) => opts.logger.error('local service: upload parsing worker failed', e) });
      parser = uploadParser;
      const ctx: ServiceContext = {
        dataDir: opts.dataDir,
        db,
        pool,
        reads,
        logger: opts.logger,
        clock: opts.clock,
        catalog,
        baseUrl: () => baseUrl,
        searchBaseUrl: () => searchBaseUrl,
      };
      const keyring = opts.keyring;
      const rateLimiter = opts.rateLimitPerMinute ? createRateLimiter(opts.rateLimitPerMinute) : undefined;
      const wrongKeysPerMinute = opts.wrongKeysPerMinute ?? DEFAULT_WRONG_KEYS_PER_MINUTE;
      const shared = {
        logger: opts.logger,
        bodyLimit: JSON_BODY_LIMIT,
        authenticate: keyring && ((k: string) => keyring.verify(k)),
        authenticateKnown: keyring && ((k: string) => keyring.known(k)),
        // One count of wrong keys per address across both hosts.
        wrongKeys: wrongKeysPerMinute > 0 ? createWrongKeys({ perMinute: wrongKeysPerMinute, logger: opts.logger }) : undefined,
        rateLimiter,
        accessLog: opts.accessLog,
        logBodies: opts.logBodies,
        traffic,
        stall: opts.bodyStall ?? DEFAULT_STALL,
      };
      base = createHost({ ...shared, auth: 'bearer', key: () => keys.bearer });
      search = createHost({ ...shared, auth: 'x-api-key', key: () => keys.search });
      await base.register(multipart, { limits: UPLOAD_LIMITS });
      const databases = health;
      const uploadBudget = createUploadBudget(opts.uploadBudgetBytes ?? DEFAULT_UPLOAD_BUDGET_BYTES);
      for (const app of [base, search]) {
        // On PostgreSQL each database with its role and lag, from the last probe (no query per
        // request); a primary that fails its probe is an error.
        app.get('/health', { config: { auth: false } }, async (_req, reply) => {
          const list = databases?.();
          if (!list) return { status: 'ok' };
          const down = list.some((d) => d.role === 'primary' && d.state !== 'ok');
          return reply.code(down ? 503 : 200).send({ status: down ? 'primary database unavailable' : 'ok', databases: list });
        });
        // Liveness: the process answers. Readiness: it takes work (its database answers, not draining).
        app.get('/healthz', { config: { auth: false } }, async () => ({ status: 'ok' }));
        app.get('/readyz', { config: { auth: false } }, async (_req, reply) => {
          if (traffic.draining) return reply.code(503).send({ status: 'draining' });
          try {
            await ping();
          } catch {
            return reply.code(503).send({ status: 'database unavailable' });
          }
          return { status: 'ready' };
        });
      }
      registerCompute(base, {
        catalog, logger: opts.logger, store: results, clock: opts.clock, answerFault: () => opts.answerFault === true, indexer, parser: uploadParser,
        layers: { store: layerStore, vocabulary },
        photos: () => plugins.reduce<PhotoDetections | null>((found, p) => found ?? p.detections?.() ?? null, null),
        uploadDir: uploadTempDir(opts.dataDir),
        uploadGate: uploadGate({ budget: uploadBudget, maxRequestBytes: MAX_UPLOAD_REQUEST_BYTES, retryAfterS: UPLOAD_RETRY_AFTER_S }),
        receipt: { stall: shared.stall, maxRequestBytes: MAX_UPLOAD_REQUEST_BYTES },
      });
      // Process figures for soak runs and support: memory in MiB, saved query count.
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
          saved_queries: await results.count(),
          // Upload bytes the requests in flight hold of the budget.
          upload_budget_in_use_mb: mb(uploadBudget.inUse()),
        };
      });
      // The vocabulary (presets read, layer words gathered) is built before the first question needs it.
      await vocabulary.get();
      for (const p of plugins) {
        await p.registerBase?.(base, ctx);
        await p.registerSearch?.(search, ctx);
      }
      if (startOpts.handedOff) {
        await base.ready();
        await search.ready();
        ({ baseUrl, searchBaseUrl } = startOpts.handedOff);
        handedOff = true;
      } else try {
        const host = startOpts.host ?? HOST;
        baseUrl = (await base.listen({ host, port: startOpts.port ?? 0 })).replace('localhost', HOST);
        searchBaseUrl = (await search.listen({ host, port: startOpts.searchPort ?? 0 })).replace('localhost', HOST);
      } catch (e) {
        await this.close();
        throw e;
      }
      opts.logger.info('local service started', { baseUrl, searchBaseUrl, catalog: catalog.version });
      return { baseUrl, searchBaseUrl };
    },
    async close() {
      // New requests get 503 while those in flight finish (up to drainMs), then the hosts close.
      traffic.draining = true;
      if (opts.drainMs) await Promise.race([traffic.idle(), new Promise((ok) => setTimeout(ok, opts.drainMs).unref())]);
      const apps = [base, search];
      base = search = null;
      for (const app of apps) await app?.close();
      // Fastify closes its connections only where it listened itself.
      if (handedOff) for (const app of apps) app?.server.closeAllConnections();
      handedOff = false;
      for (const p of plugins) await p.close?.();
      await retention?.stop();
      retention = null;
      // Pending saves first (they are written on close), then the last checkpoint.
      await store?.close();
      store = null;
      closeDb?.();
      await closePool?.();
      closePool = null;
      await checkpointer?.close();
      await indexer?.close();
      await parser?.close();
      parser = null;
      checkpointer = null;
      indexer = null;
      closeDb = null;
      await ownStore?.close();
      ownStore = answers = null;
      vocabulary.invalidate();
    },
    accept(host, socket) {
      const app = host === 'base' ? base : search;
      if (!app) return void socket.destroy();
      app.server.emit('connection', socket);
      // Sockets are handed over unread (the primary listens with pauseOnConnect).
      socket.resume();
    },
    setKeys(next) {
      keys = { ...next };
    },
    layers,
  };
}
