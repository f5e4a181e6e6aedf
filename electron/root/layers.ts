import { randomUUID } from 'node:crypto';
import { basename, isAbsolute } from 'node:path';
import type { ConnectionInfo } from '../../shared/rpc/methods/app';
import type { LayerImportDone, LayerImportProgress, LayerInfo } from '../../shared/rpc/methods/layers';
import { RpcError, type RpcErrorBody } from '../../shared/rpc/errors';
import type { Geometry } from '../../shared/service/geojson';
import type { Logger } from '../ground/logger';
import { createStaging } from '../ground/staging';
import { createStreetTiles, type StreetTiles } from '../local-service/layers/basemap/street-tiles';
import type { ImportJob } from '../local-service/layers/import-job';
import { readerFor } from '../local-service/layers/readers';
import type { LayerStore } from '../local-service/layers/store/layer-store';
import { ImportCancelledError, LayerFileError } from '../local-service/layers/types';
import type { LocalService } from '../local-service/server';
import type { Handlers } from '../rpc/router';

type LayerMethods =
  | 'layers.list' | 'layers.import' | 'layers.cancel' | 'layers.remove' | 'layers.pick' | 'layers.uploadStart' | 'layers.uploadChunk' | 'layers.features'
  | 'layers.basemapTile';
type ServiceLayers = LocalService['layers'];

export interface LayerHandlerDeps {
  /** The bundled service's layers; null while it is not running. */
  layers: () => ServiceLayers | null;
  /** The store the bundled service was given, read here for drawing layers on the map. */
  store: () => LayerStore | null;
  connection: () => ConnectionInfo;
  /** Staging folder of files sent by the browser host; emptied at start and close. */
  uploadDir: string;
  logger: Logger;
  progress: (p: LayerImportProgress) => void;
  done: (d: LayerImportDone) => void;
  /** The layer list after a change (import done, layer removed). */
  changed: (layers: LayerInfo[]) => void;
  /** The desktop shell's native open dialog; absent in the browser host. */
  pickFile?: () => Promise<string | null>;
}

export function layerFileError(e: LayerFileError): RpcError {
  return new RpcError('VALIDATION', e.message, { file: e.file, reason: e.reason });
}

function errorBody(e: unknown): RpcErrorBody {
  if (e instanceof LayerFileError) return { code: 'VALIDATION', message: e.message, details: { file: e.file, reason: e.reason } };
  if (e instanceof ImportCancelledError) return { code: 'CANCELLED', message: e.message };
  return { code: 'INTERNAL', message: e instanceof Error ? e.message : String(e) };
}

/**
 * The layers.* RPC methods over the bundled service's layers: imports as jobs whose progress and
 * end go out as events, one import at a time (a second big extract would double the memory and
 * disk churn of the first), and chunked uploads for the browser host, which cannot hand over a path.
 */
export function createLayerHandlers(deps: LayerHandlerDeps): {
  handlers: Pick<Handlers, LayerMethods>;
  /** Follows the started service's layer changes (as layers.changed events). */
  attach(service: ServiceLayers): void;
  close(): Promise<void>;
} {
  const staging = createStaging({ dir: deps.uploadDir, prefix: 'layer-upload', fallbackName: 'layer' });
  const jobs = new Map<string, ImportJob>();
  // Made once the store exists; the layers are on this machine whichever connection is active.
  let streets: { store: LayerStore; tiles: StreetTiles } | null = null;
  const streetTiles = (): StreetTiles | null => {
    const store = deps.store();
    if (!store) return null;
    if (streets?.store !== store) streets = { store, tiles: createStreetTiles({ store, layers: () => store.list() }) };
    return streets.tiles;
  };

  const layers = (): ServiceLayers => {
    const c = deps.connection();
    if (c.kind === 'remote')
      throw new RpcError(
        'CONFLICT',
        `Data layers belong to the bundled local service; the active connection "${c.label}" is a remote service. Switch to the local connection to list, add or remove layers.`,
      );
    const l = deps.layers();
    if (!l) throw new RpcError('OFFLINE', 'The bundled local service is not running, so its data layers cannot be reached');
    return l;
  };

  function follow(jobId: string, job: ImportJob, after: () => Promise<unknown>): void {
    jobs.set(jobId, job);
    job.events.on('progress', (p) =>
      deps.progress({ jobId, file: job.file, phase: p.phase, done: p.done, total: p.total || null, unit: p.unit, features: p.features }),
    );
    job.done
      .then(
        (layer) => ({ jobId, file: job.file, state: 'done' as const, layer, error: null }),
        (e: unknown) => ({ jobId, file: job.file, state: e instanceof ImportCancelledError ? ('cancelled' as const) : ('failed' as const), layer: null, error: errorBody(e) }),
      )
      .then(async (end) => {
        jobs.delete(jobId);
        await after().catch((e: unknown) => deps.logger.warn('Layer upload staging not removed', String(e)));
        if (end.state === 'failed') deps.logger.warn('Layer import failed', end.error?.message);
        deps.done(end);
      });
  }

  async function startImport(jobId: string, file: string, opts: { name?: string; sourceFile?: string }, after: () => Promise<unknown>) {
    const service = layers();
    if (jobs.size > 0) {
      const running = [...jobs.values()][0]!;
      throw new RpcError('CONFLICT', `An import is running (${running.file}); wait for it to finish or cancel it first`);
    }
    // Wrong files are told at once, before a job exists: missing, empty, of an unknown type.
    await readerFor(file).catch((e: unknown) => {
      throw e instanceof LayerFileError ? layerFileError(new LayerFileError(basename(file), e.reason)) : e;
    });
    const job = service.startImport(file, { name: opts.name, sourceFile: opts.sourceFile });
    follow(jobId, job, after);
    return { jobId, file: job.file };
  }

  const handlers: Pick<Handlers, LayerMethods> = {
    'layers.list': async () => ({ layers: (await layers().list()) as LayerInfo[] }),
    'layers.import': async (input) => {
      if ('path' in input) {
        if (!isAbsolute(input.path)) throw new RpcError('VALIDATION', `${input.path}: give the full path of the file`);
        return startImport(`layer-import-${randomUUID()}`, input.path, { name: input.name }, async () => undefined);
      }
      const u = staging.take(input.uploadId);
      const cleanup = () => staging.remove(u);
      try {
        return await startImport(input.uploadId, u.file, { name: input.name, sourceFile: u.name }, cleanup);
      } catch (e) {
        await cleanup();
        throw e;
      }
    },
    'layers.cancel': async ({ jobId }) => {
      const job = jobs.get(jobId);
      if (job) {
        job.cancel();
        return { cancelled: true };
      }
      return { cancelled: await staging.drop(jobId) };
    },
    'layers.remove': async ({ id }) => {
      if (!(await layers().remove(id))) throw new RpcError('NOT_FOUND', `No layer ${id}`);
      return { removed: true as const };
    },
    'layers.pick': async () => {
      layers();
      if (!deps.pickFile) throw new RpcError('NOT_FOUND', 'No file dialog here: the browser host uploads the chosen file instead');
      return { path: await deps.pickFile() };
    },
    'layers.uploadStart': async ({ name, size }) => {
      layers();
      return { uploadId: (await staging.start(name, size)).id };
    },
    'layers.uploadChunk': async ({ uploadId, offset, dataBase64 }) => {
      const u = await staging.chunk(uploadId, offset, dataBase64);
      deps.progress({ jobId: uploadId, file: u.name, phase: 'uploading', done: u.received, total: u.size, unit: 'bytes', features: 0 });
      return { received: u.received };
    },
    'layers.features': async ({ id, limit }) => {
      const info = (await layers().get(id)) as LayerInfo | null;
      const store = deps.store();
      if (!info || !store) throw new RpcError('NOT_FOUND', `No layer ${id}`);
      const found = info.bbox ? await store.inBBox(id, info.bbox, { limit: limit + 1 }) : [];
      const features = found.slice(0, limit).map((f) => ({
        type: 'Feature' as const,
        id: `${id}/${f.fid}`,
        // The store's GeoJSON positions are plain number[]; the contract's tuple type says the same.
        geometry: f.geometry as Geometry,
        properties: { ...f.tags, source_id: f.sourceId, ...(f.sublayer ? { sublayer: f.sublayer } : {}) },
      }));
      return { layer: info, features: { type: 'FeatureCollection' as const, features }, truncated: found.length > limit };
    },
    'layers.basemapTile': async ({ z, x, y }) => {
      const data = await streetTiles()?.tile(z, x, y);
      return { dataBase64: data ? Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('base64') : null };
    },
  };

  return {
    handlers,
    attach(service) {
      service.onChange(() => {
        streets?.tiles.invalidate();
        void Promise.resolve(service.list())
          .then((list) => deps.changed(list as LayerInfo[]))
          .catch((e: unknown) => deps.logger.warn('Layer list not read after a change', String(e)));
      });
    },
    async close() {
      for (const job of jobs.values()) job.cancel();
      await Promise.all([...jobs.values()].map((j) => j.done.catch(() => undefined)));
      await staging.close();
    },
  };
}
