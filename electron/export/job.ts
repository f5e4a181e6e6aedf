import { randomBytes } from 'node:crypto';
import { readdir, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { writeGeoPackage } from './gpkg';
import { layerLooks, setDefaultStyles } from './layer-styles';
import { writeProject, type ProjectOptions } from './project';
import { writeText } from './text-formats';
import type { ExportedLayer, ExportFormat, ExportLayer, ExportProgress, ExportSummary, Tick } from './types';

export interface ExportRequest {
  layers: readonly ExportLayer[];
  format: ExportFormat;
  /** Final file path; written under a temporary name beside it and renamed when complete. */
  destination: string;
  /** For the QGIS project formats (qgz, qfield): basemap, extent, styles; for a GeoPackage, the styles. */
  project?: ProjectOptions;
}

export interface ExportHooks {
  onProgress?: (p: ExportProgress) => void;
  signal?: AbortSignal;
  clock?: () => Date;
  /** Minimum time between progress reports (the last one is always sent). */
  progressIntervalMs?: number;
}

export class ExportCancelledError extends Error {
  constructor() {
    super('Export cancelled');
    this.name = 'ExportCancelledError';
  }
}

// Writers run on the main thread: yield this often so cancel requests and RPC traffic get through.
const YIELD_EVERY_MS = 40;
const CHECK_EVERY = 512;

/** A temporary file untouched this long was left by an export that was killed, not one still writing. */
export const STALE_PARTIAL_MS = 60 * 60_000;
const PARTIAL_SUFFIX = /^[0-9a-f]{12}\.partial(?:-journal|-wal|-shm)?$/;

/**
 * Removes the temporary files of earlier exports to the same destination that a killed process
 * left beside it (a live export keeps writing to its own, so only old ones go).
 */
async function removeStalePartials(destination: string, now: number): Promise<void> {
  const dir = dirname(destination);
  const prefix = `.${basename(destination)}.`;
  const names = await readdir(dir).catch(() => [] as string[]);
  for (const name of names) {
    if (!name.startsWith(prefix) || !PARTIAL_SUFFIX.test(name.slice(prefix.length))) continue;
    const path = join(dir, name);
    const st = await stat(path).catch(() => null);
    if (st && now - st.mtimeMs > STALE_PARTIAL_MS) await rm(path, { force: true });
  }
}

/**
 * Runs one export: writes to a temporary file beside the destination, reports features written
 * out of the known total, stops on abort, and removes the partial file on cancel or failure.
 */
export async function startExport(req: ExportRequest, hooks: ExportHooks = {}): Promise<ExportSummary> {
  const { signal, onProgress } = hooks;
  const interval = hooks.progressIntervalMs ?? 100;
  if (signal?.aborted) throw new ExportCancelledError();
  const counts = req.layers.map((l) => l.count);
  const total = counts.every((c) => typeof c === 'number') ? counts.reduce<number>((s, c) => s + (c ?? 0), 0) : null;
  const partial = join(dirname(req.destination), `.${basename(req.destination)}.${randomBytes(6).toString('hex')}.partial`);
  await removeStalePartials(req.destination, Date.now());

  let written = 0;
  let lastYield = performance.now();
  let lastReport = 0;
  const report = (layer: string, force = false) => {
    const now = performance.now();
    if (!onProgress || (!force && now - lastReport < interval)) return;
    lastReport = now;
    onProgress({ written, total, layer });
  };
  const tick: Tick = (layer) => {
    written++;
    if (written % CHECK_EVERY !== 0) return;
    if (signal?.aborted) throw new ExportCancelledError();
    report(layer);
    if (performance.now() - lastYield < YIELD_EVERY_MS) return;
    return yieldToLoop().then(() => {
      lastYield = performance.now();
      if (signal?.aborted) throw new ExportCancelledError();
    });
  };

  report(req.layers[0]?.name ?? '', true);
  try {
    const layers =
      req.format === 'gpkg'
        ? await writeStyledGeoPackage(partial, req.layers, req.project?.styles, { tick, clock: hooks.clock })
        : req.format === 'qgz' || req.format === 'qfield'
          ? (
              await writeProject(partial, req.destination, req.format === 'qfield', req.layers, req.project ?? { basemap: { kind: 'none' } }, {
                tick,
                clock: hooks.clock,
              })
            ).layers
          : (await writeText(partial, req.format, req.layers, tick)).layers;
    if (signal?.aborted) throw new ExportCancelledError();
    await rename(partial, req.destination);
    const bytes = (await stat(req.destination)).size;
    report(req.layers.at(-1)?.name ?? '', true);
    return { path: req.destination, format: req.format, features: written, bytes, layers };
  } catch (e) {
    await Promise.all([partial, `${partial}-journal`, `${partial}-wal`, `${partial}-shm`].map((p) => rm(p, { force: true })));
    throw signal?.aborted ? new ExportCancelledError() : e;
  }
}

/** A GeoPackage alone, each table drawn by default as the map draws it. */
async function writeStyledGeoPackage(
  path: string,
  layers: readonly ExportLayer[],
  styles: ProjectOptions['styles'],
  opts: Parameters<typeof writeGeoPackage>[2],
): Promise<ExportedLayer[]> {
  const exported = await writeGeoPackage(path, layers, opts);
  const looks = layerLooks(layers, exported, styles);
  setDefaultStyles(
    path,
    exported.map((l, i) => ({ table: l.table, geometryType: l.geometryType, look: looks[i]!, mixed: l.geometryType === 'GEOMETRY' })),
  );
  return exported;
}
