import { EventEmitter } from 'node:events';
import { basename, extname, resolve } from 'node:path';
import { readerFor } from './readers';
import type { EmbeddedLayerStore, EmbeddedLayerWriter, LayerInfo, LayerStore, LayerWriter } from './store/layer-store';
import { ImportCancelledError, LayerFileError, type LayerFeature, type ReadProgress } from './types';
import { printableName } from '../upload/text';

/**
 * A layer import as a job: progress events, cancel, and all-or-nothing visibility (the layer is
 * listed only after commit; a failure or cancel removes whatever was written). Features go to
 * the store in batches, each its own transaction, so memory holds one batch at a time.
 */

export interface ImportProgress {
  jobId: string;
  file: string;
  phase: 'reading' | 'indexing';
  /** Bytes or items read of the file, as the reader counts them. */
  done: number;
  total: number;
  unit: ReadProgress['unit'];
  features: number;
}

export interface ImportJobEvents {
  progress: [ImportProgress];
  warning: [string];
}

export interface ImportJob {
  id: string;
  file: string;
  events: EventEmitter<ImportJobEvents>;
  /** Resolves with the new layer; rejects with LayerFileError or ImportCancelledError. */
  done: Promise<LayerInfo>;
  cancel(): void;
}

export interface ImportOptions {
  /** A layer store, or the embedded one directly: each batch is awaited before the next is read. */
  store: LayerStore | EmbeddedLayerStore;
  file: string;
  /** Shown in the layer list; defaults to the file name without its extension(s). */
  name?: string;
  /** What the layer list shows as its source; defaults to the file (an upload names the user's file, not its staging copy). */
  sourceFile?: string;
  /** Scratch files of OSM imports; removed when the job ends. */
  tempDir: string;
  signal?: AbortSignal;
  /** Features per store batch. */
  batchSize?: number;
  /** OSM node locations kept in memory before the rest go to a scratch file (the readers' default unless given). */
  osmMemoryNodes?: number;
}

let jobCounter = 0;

export function defaultLayerName(file: string): string {
  const b = basename(file);
  return b.replace(/\.osm\.pbf$/i, '').replace(new RegExp(`${extname(b).replace('.', '\\.')}$`), '') || b;
}

export function startLayerImport(opts: ImportOptions): ImportJob {
  const file = resolve(opts.file);
  // A name on disk may hold line breaks or terminal escapes: messages show them as "?".
  const shown = printableName(basename(file));
  const id = `layer-import-${++jobCounter}`;
  const events = new EventEmitter<ImportJobEvents>();
  const controller = new AbortController();
  if (opts.signal?.aborted) controller.abort();
  else opts.signal?.addEventListener('abort', () => controller.abort(), { once: true });
  const batchSize = opts.batchSize ?? 10_000;
  const warnings: string[] = [];

  const run = async (): Promise<LayerInfo> => {
    // Let callers attach listeners before the first event.
    await Promise.resolve();
    const reader = await readerFor(file).catch((e: unknown) => {
      throw e instanceof LayerFileError ? new LayerFileError(shown, e.reason) : e;
    });
    let writer: LayerWriter | EmbeddedLayerWriter | null = null;
    let last: ReadProgress = { done: 0, total: 0, unit: 'bytes' };
    let lastEmit = 0;
    const emit = (phase: ImportProgress['phase'], force = false) => {
      const now = Date.now();
      if (!force && now - lastEmit < 100) return;
      lastEmit = now;
      events.emit('progress', { jobId: id, file: shown, phase, ...last, features: writer?.count ?? 0 });
    };
    try {
      writer = await opts.store.create({
        name: opts.name ?? defaultLayerName(file),
        sourceFile: opts.sourceFile ?? file,
        format: reader.format,
        licence: reader.licence,
        sourceText: reader.licence ? `${shown} (${reader.licence})` : shown,
      });
      let batch: LayerFeature[] = [];
      const features = reader.read(file, {
        signal: controller.signal,
        tempDir: opts.tempDir,
        osmMemoryNodes: opts.osmMemoryNodes,
        onProgress: (p) => {
          last = p;
          emit('reading');
        },
        warn: (w) => {
          warnings.push(w);
          events.emit('warning', w);
        },
      });
      for await (const f of features) {
        batch.push(f);
        if (batch.length >= batchSize) {
          await writer.add(batch);
          batch = [];
          if (controller.signal.aborted) throw new ImportCancelledError(shown);
          // Give cancel requests and other work a turn between batches.
          await new Promise((ok) => setImmediate(ok));
        }
      }
      if (controller.signal.aborted) throw new ImportCancelledError(shown);
      await writer.add(batch);
      if (writer.count === 0) {
        warnings.push('the file holds no features');
        events.emit('warning', 'the file holds no features');
      }
      emit('indexing', true);
      const info = await writer.commit(warnings);
      last = { ...last, done: last.total };
      emit('indexing', true);
      return info;
    } catch (e) {
      await writer?.abort();
      if (e instanceof ImportCancelledError) throw new ImportCancelledError(shown);
      if (e instanceof LayerFileError) throw new LayerFileError(shown, e.reason);
      if (e instanceof RangeError) throw new LayerFileError(shown, e.message);
      throw new LayerFileError(shown, `import failed: ${e instanceof Error ? e.message : String(e)}`);
    }
  };

  const done = run();
  // A caller that only follows events must not get an unhandled rejection; awaiting still throws.
  done.catch(() => {});
  return { id, file: shown, events, done, cancel: () => controller.abort() };
}
