import { join } from 'node:path';
import { startLayerImport, type ImportProgress } from './import-job';
import { openPgPool } from '../pg/database';
import { asAsyncLayerStore } from './store/async-layer-store';
import type { LayerInfo, LayerStore } from './store/layer-store';
import { openPostgisLayerStore } from './store/postgis-layer-store';
import { openSqliteLayerStore } from './store/sqlite-layer-store';
import { reclaimScratchFiles } from './readers/scratch';

export interface CliImportOptions {
  /** The service's data folder: layers go to its layers.sqlite, scratch files to its tmp/. */
  dataDir: string;
  files: string[];
  /** One line of text per call (progress, results, errors). */
  log: (line: string) => void;
  signal?: AbortSignal;
  /** A PostgreSQL (PostGIS) URL: layers go there instead of layers.sqlite. */
  database?: string;
}

export interface CliImportResult {
  imported: LayerInfo[];
  failed: { file: string; message: string }[];
}

const size = (bytes: number) => (bytes >= 1e6 ? `${(bytes / 1e6).toFixed(1)} MB` : `${Math.max(1, Math.round(bytes / 1e3))} kB`);
const pct = (p: ImportProgress) => (p.total ? `${Math.floor((100 * p.done) / p.total)} %` : `${p.done} ${p.unit}`);

/**
 * Imports layer files one after the other for the stand-alone service's `--layer FILE`. A file
 * that fails is reported and skipped; the others still import and the service still starts.
 */
export async function importLayerFiles(opts: CliImportOptions): Promise<CliImportResult> {
  let store: LayerStore;
  let done = async () => {};
  if (opts.database) {
    const pool = openPgPool({ url: opts.database, max: 2 });
    store = await openPostgisLayerStore({ pool }).catch(async (e: unknown) => {
      await pool.end();
      throw e;
    });
    done = () => pool.end();
  } else store = asAsyncLayerStore(openSqliteLayerStore({ dataDir: opts.dataDir }));
  const result: CliImportResult = { imported: [], failed: [] };
  const tempDir = join(opts.dataDir, 'tmp');
  // What a killed import left goes before this one adds its own (never a live import's: readers/scratch.ts).
  const reclaimed = reclaimScratchFiles(tempDir);
  if (reclaimed.files) opts.log(`removed ${reclaimed.files} scratch files of imports that did not finish (${size(reclaimed.bytes)})`);
  try {
    for (const file of opts.files) {
      const job = startLayerImport({ store, file, tempDir, signal: opts.signal });
      let shownTenth = -1;
      job.events.on('progress', (p) => {
        const tenth = p.total ? Math.floor((10 * p.done) / p.total) : -1;
        if (p.phase === 'reading' && tenth > shownTenth) {
          shownTenth = tenth;
          opts.log(`layer ${job.file}: ${pct(p)}, ${p.features} features`);
        }
      });
      job.events.on('warning', (w) => opts.log(`layer ${job.file}: warning: ${w}`));
      try {
        const info = await job.done;
        result.imported.push(info);
        opts.log(`layer ${job.file}: imported "${info.name}", ${info.featureCount} features, ${size(info.sizeBytes)}`);
      } catch (e) {
        const message = e instanceof Error ? e.message : String(e);
        result.failed.push({ file, message });
        opts.log(`layer ${message}`);
      }
    }
  } finally {
    await store.close();
    await done();
  }
  return result;
}
