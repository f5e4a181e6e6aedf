import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync } from 'node:fs';
import { basename, dirname, extname, isAbsolute, join } from 'node:path';
import { RpcError, type RpcErrorBody } from '../../../shared/rpc/errors';
import { PACK_MAX_TILES, type PackEstimate, type PackProgressEvent, type PackSelection } from '../../../shared/rpc/methods/pack';
import type { Logger } from '../../ground/logger';
import { openPack, type OpenDeps } from './open';
import { estimate, select } from './select';
import { PackCancelledError, writePack, type WriterDeps } from './write';

export interface PackServiceDeps extends WriterDeps, OpenDeps {
  dataDir: string;
  emit: (e: PackProgressEvent) => void;
  logger: Logger;
}

export interface PackService {
  estimate(sel: PackSelection): Promise<PackEstimate>;
  create(sel: PackSelection, path?: string): Promise<{ jobId: string; path: string }>;
  cancel(jobId: string): { cancelled: boolean };
  open(path: string): ReturnType<typeof openPack>;
  /** Settles when the job ends (tests and shutdown). */
  settled(jobId: string): Promise<void> | undefined;
  /** A finished pack, for the browser host's file route (its browser has no other way to it). */
  download(jobId: string): { path: string; fileName: string } | undefined;
  /** Whether a file is a pack written here to the end (and still there). */
  written(path: string): boolean;
  close(): Promise<void>;
}

const toErrorBody = (e: unknown): RpcErrorBody =>
  e instanceof RpcError ? { code: e.code, message: e.message } : { code: 'INTERNAL', message: `The pack failed: ${(e as Error)?.message ?? 'unknown error'}` };

/** Area packs: estimate, write as a job (progress events, cancel), open. One job per file at a time. */
export function createPackService(deps: PackServiceDeps): PackService {
  const jobs = new Map<string, { controller: AbortController; path: string; done: Promise<void> }>();
  /** Packs written to the end, by job: what may be downloaded. */
  const finished = new Map<string, string>();
  // A pack is read back into the same cache it is written from: one at a time keeps both simple.
  let opening: Promise<unknown> = Promise.resolve();

  return {
    async estimate(sel) {
      return estimate(deps, await select(deps, sel));
    },

    async create(sel, given) {
      if (given !== undefined && (!isAbsolute(given) || extname(given).toLowerCase() !== '.gpkg'))
        throw new RpcError('VALIDATION', 'A pack path must be absolute and end in .gpkg');
      const path = given ?? join(deps.dataDir, 'packs', `area-${deps.clock().toISOString().slice(0, 10)}.gpkg`);
      mkdirSync(dirname(path), { recursive: true });
      if ([...jobs.values()].some((j) => j.path === path)) throw new RpcError('CONFLICT', `${path} is being written already`);
      const s = await select(deps, sel);
      if (s.tileCount > PACK_MAX_TILES && deps.online())
        throw new RpcError(
          'VALIDATION',
          `The area needs ${s.tileCount} basemap tiles up to zoom ${sel.maxTileZoom}; the tile server allows ${PACK_MAX_TILES} per pack. Choose a lower zoom or a smaller area.`,
        );
      const id = randomUUID();
      const controller = new AbortController();
      const event = (e: Partial<PackProgressEvent> & Pick<PackProgressEvent, 'state' | 'phase'>) =>
        deps.emit({ jobId: id, path, done: 0, total: 0, bytes: null, contents: null, mediaMissing: null, error: null, ...e });
      const done = (async () => {
        // The caller hears of the job before its first event.
        await new Promise<void>((r) => setImmediate(r));
        event({ state: 'running', phase: 'results', total: s.features });
        try {
          const out = await writePack(deps, sel, s, path, {
            signal: controller.signal,
            progress: (p) => event({ state: 'running', ...p }),
          });
          const { bytes, mediaMissing, ...contents } = out;
          finished.set(id, path);
          event({ state: 'done', phase: 'finishing', done: 1, total: 1, bytes, contents, mediaMissing: mediaMissing.length });
        } catch (e) {
          if (e instanceof PackCancelledError || controller.signal.aborted) event({ state: 'cancelled', phase: 'finishing' });
          else {
            deps.logger.error('Area pack failed', e);
            event({ state: 'failed', phase: 'finishing', error: toErrorBody(e) });
          }
        } finally {
          jobs.delete(id);
        }
      })();
      jobs.set(id, { controller, path, done });
      return { jobId: id, path };
    },

    cancel(jobId) {
      const j = jobs.get(jobId);
      if (!j) return { cancelled: false };
      j.controller.abort();
      return { cancelled: true };
    },

    open(path) {
      if (!isAbsolute(path)) throw new RpcError('VALIDATION', 'A pack path must be absolute');
      const run = opening.then(() => openPack(deps, path));
      opening = run.catch(() => undefined);
      return run;
    },

    written(path) {
      return [...finished.values()].includes(path) && existsSync(path);
    },

    download(jobId) {
      const path = finished.get(jobId);
      return path && existsSync(path) ? { path, fileName: basename(path) } : undefined;
    },
    settled(jobId) {
      return jobs.get(jobId)?.done;
    },

    async close() {
      for (const j of jobs.values()) j.controller.abort();
      await Promise.all([...jobs.values()].map((j) => j.done));
    },
  };
}
