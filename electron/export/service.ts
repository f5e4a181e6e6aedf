import { randomUUID } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import { basename, dirname, extname, isAbsolute, join } from 'node:path';
import { RpcError, type RpcErrorBody } from '../../shared/rpc/errors';
import {
  exportDataDownloadPath,
  exportDownloadPath,
  type ExportProgressEvent,
  type ExportSelection,
} from '../../shared/rpc/methods/export';
import { ONLINE_TILE_TEMPLATE } from '../../shared/rpc/methods/pack';
import type { MethodOutput, MethodParsedInput } from '../../shared/rpc/contract';
import type { Logger } from '../ground/logger';
import { withDisplayDistances } from './display';
import { ExportCancelledError, startExport } from './job';
import { estimateProject } from './project';
import { FORMAT_EXTENSION, type ExportFormat, type ExportLayer } from './types';

/** Turns a selection into layers (from the cache); throws RpcError NOT_FOUND for unknown ids. */
export type LoadLayers = (selection: ExportSelection) => Promise<ExportLayer[]>;

/** Layers a QGIS project holds beside the entries (their uploads, data layers in their extent), below them. */
export type ContextLayers = (queryIds: readonly string[]) => Promise<ExportLayer[]>;

export interface ExportServiceDeps {
  dataDir: string;
  loadLayers: LoadLayers;
  contextLayers?: ContextLayers;
  emit: (payload: ExportProgressEvent) => void;
  logger: Logger;
  clock?: () => Date;
  /** Whether callers may name a destination path (the desktop save dialog); otherwise exports are downloads. */
  allowDestination: boolean;
  /**
   * Whether a file is an area pack this app wrote. A host without destinations reads no other
   * file for a basemap: a path from its page would read any file the host can.
   */
  packWritten?: (path: string) => boolean;
}

interface Job {
  id: string;
  controller: AbortController;
  fileName: string;
  path: string;
  /** The GeoPackage beside a downloaded .qgz. */
  dataPath: string | null;
  download: boolean;
  state: ExportProgressEvent['state'];
  done: Promise<void>;
}

export interface ExportService {
  start(input: MethodParsedInput<'export.start'>): Promise<MethodOutput<'export.start'>>;
  cancel(input: MethodParsedInput<'export.cancel'>): MethodOutput<'export.cancel'>;
  estimate(input: MethodParsedInput<'export.estimate'>): Promise<MethodOutput<'export.estimate'>>;
  /** A finished download export, for the browser host's file route; `data`: the GeoPackage beside a .qgz. */
  download(jobId: string, part?: 'file' | 'data'): { path: string; fileName: string } | undefined;
  /** Settles when the job ends (tests and shutdown). */
  settled(jobId: string): Promise<void> | undefined;
  close(): Promise<void>;
}

/** The file named after the question of the first answer (the files and data layers beside it do not count). */
function fileNameFor(layers: readonly ExportLayer[], format: ExportFormat): string {
  const first = layers.find((l) => (l.role ?? 'answer') === 'answer') ?? layers[0]!;
  const base = first.name.normalize('NFC').replace(/[^\p{L}\p{N} ._-]+/gu, '_').replace(/\s+/g, ' ').trim().slice(0, 60).trim() || 'export';
  return base + FORMAT_EXTENSION[format];
}

const toErrorBody = (e: unknown): RpcErrorBody =>
  e instanceof RpcError
    ? { code: e.code, message: e.message }
    : { code: 'INTERNAL', message: `Export failed: ${(e as Error)?.message ?? 'unknown error'}` };

export function createExportService(deps: ExportServiceDeps): ExportService {
  const jobs = new Map<string, Job>();
  const exportsDir = join(deps.dataDir, 'exports');
  const checkPack = (path: string) => {
    if (!isAbsolute(path)) throw new RpcError('VALIDATION', 'The area pack path must be absolute');
    if (!deps.allowDestination && !deps.packWritten?.(path))
      throw new RpcError('VALIDATION', 'This app host reads only the area packs it wrote: pack the area here first (Field kit)');
  };

  return {
    async start({ selection, format, destination, project, units }) {
      if (destination !== undefined) {
        if (!deps.allowDestination) throw new RpcError('VALIDATION', 'This app host offers exports as downloads only');
        if (!isAbsolute(destination)) throw new RpcError('VALIDATION', 'destination must be an absolute path');
        const what = { gpkg: 'A GeoPackage', qgz: 'A QGIS project' } as const;
        if ((format === 'gpkg' || format === 'qgz') && extname(destination).toLowerCase() !== FORMAT_EXTENSION[format])
          throw new RpcError('VALIDATION', `${what[format]} destination must end in ${FORMAT_EXTENSION[format]}`);
      }
      if (project?.basemap.kind === 'pack') checkPack(project.basemap.path);
      const layers = withDisplayDistances(await deps.loadLayers(selection), units);
      if (layers.length === 0) throw new RpcError('NOT_FOUND', 'Nothing to export for this selection');
      if ((format === 'qgz' || format === 'qfield') && !selection.compare && deps.contextLayers)
        layers.push(...(await deps.contextLayers(selection.queryIds)));
      const id = randomUUID();
      const download = destination === undefined;
      const fileName = download ? fileNameFor(layers, format) : basename(destination);
      // A .qgz download is two files: the project and its GeoPackage, named alike in a folder of the job's own.
      const twoFiles = download && format === 'qgz';
      if (download) mkdirSync(twoFiles ? join(exportsDir, id) : exportsDir, { recursive: true });
      const path = destination ?? (twoFiles ? join(exportsDir, id, fileName) : join(exportsDir, id + FORMAT_EXTENSION[format]));
      const dataPath = twoFiles ? join(exportsDir, id, `${basename(fileName, extname(fileName))}.gpkg`) : null;
      const downloadPath = download ? exportDownloadPath(id) : null;
      const controller = new AbortController();
      const event = (
        state: ExportProgressEvent['state'],
        p: { written: number; total: number | null; layer: string | null; bytes?: number; error?: RpcErrorBody },
      ): ExportProgressEvent => ({
        jobId: id,
        state,
        written: p.written,
        total: p.total,
        layer: p.layer,
        fileName,
        bytes: p.bytes ?? null,
        downloadPath: state === 'done' ? downloadPath : null,
        dataDownloadPath: state === 'done' && dataPath ? exportDataDownloadPath(id) : null,
        error: p.error ?? null,
      });
      let last = { written: 0, total: null as number | null, layer: null as string | null };
      const job: Job = { id, controller, fileName, path, dataPath, download, state: 'running', done: Promise.resolve() };
      jobs.set(id, job);
      job.done = startExport(
        {
          layers,
          format,
          destination: path,
          project: {
            ...project,
            name: basename(fileName, extname(fileName)),
            // The offline basemap always; the online tiles only when the map shows them.
            basemap: project?.basemap.kind === 'online' ? { kind: 'online', url: ONLINE_TILE_TEMPLATE } : (project?.basemap ?? { kind: 'none' }),
          },
        },
        {
          signal: controller.signal,
          clock: deps.clock,
          onProgress: (p) => {
            last = p;
            deps.emit(event('running', p));
          },
        },
      ).then(
        (summary) => {
          job.state = 'done';
          deps.emit(event('done', { written: summary.features, total: summary.features, layer: null, bytes: summary.bytes }));
        },
        (e: unknown) => {
          const cancelled = e instanceof ExportCancelledError;
          job.state = cancelled ? 'cancelled' : 'failed';
          if (!cancelled) deps.logger.error('Export failed', e);
          deps.emit(
            event(job.state, {
              ...last,
              error: cancelled ? { code: 'CANCELLED', message: 'Export cancelled' } : toErrorBody(e),
            }),
          );
        },
      );
      return { jobId: id, fileName, downloadPath };
    },

    async estimate({ selection, project }) {
      if (project?.basemap.kind === 'pack') checkPack(project.basemap.path);
      const layers = await deps.loadLayers(selection);
      if (!selection.compare && deps.contextLayers) layers.push(...(await deps.contextLayers(selection.queryIds)));
      return estimateProject(layers, project?.basemap.kind === 'pack' ? project.basemap.path : null);
    },

    cancel({ jobId }) {
      const job = jobs.get(jobId);
      if (!job) throw new RpcError('NOT_FOUND', `No export job ${jobId}`);
      if (job.state !== 'running') return { cancelled: false };
      job.controller.abort();
      return { cancelled: true };
    },

    download(jobId, part = 'file') {
      const job = jobs.get(jobId);
      if (!job?.download || job.state !== 'done') return undefined;
      if (part === 'file') return { path: job.path, fileName: job.fileName };
      return job.dataPath ? { path: job.dataPath, fileName: basename(job.dataPath) } : undefined;
    },

    settled: (jobId) => jobs.get(jobId)?.done,

    async close() {
      for (const job of jobs.values()) job.controller.abort();
      await Promise.all([...jobs.values()].map((j) => j.done));
      // Download files live only for the session that made them.
      for (const job of jobs.values()) if (job.download) rmSync(job.dataPath ? dirname(job.path) : job.path, { force: true, recursive: true });
      jobs.clear();
    },
  };
}
