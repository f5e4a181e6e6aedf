import { EventEmitter } from 'node:events';
import { startLayerImport, type ImportJob } from './import-job';
import type { LayerInfo, LayerStore } from './store/layer-store';

/** What changed in the layer list: the question vocabulary is rebuilt on each. */
export interface LayerChange {
  type: 'added' | 'removed';
  layer: LayerInfo;
}

export interface StartImportOptions {
  /** Shown in the layer list; defaults to the file name without its extension(s). */
  name?: string;
  /** What the layer list shows as its source (an upload names the user's file, not its staging copy). */
  sourceFile?: string;
  signal?: AbortSignal;
}

/**
 * The service's data layers: what the RPC and Settings list, import and remove, and what the
 * question engine reads. Asynchronous throughout so a database-server store fits behind it.
 */
export interface ServiceLayers {
  list(): Promise<LayerInfo[]>;
  get(id: string): Promise<LayerInfo | null>;
  remove(id: string): Promise<boolean>;
  /** Imports a file as a job (progress, cancel); the layer is listed, and its words known, when it is done. */
  startImport(file: string, opts?: StartImportOptions): ImportJob;
  /** Called after each change; returns the function that stops listening. */
  onChange(listener: (change: LayerChange) => void): () => void;
  /** Tells the listeners of a layer written to the store by other means (an opened area pack). */
  announce(change: LayerChange): void;
}

export function createServiceLayers(deps: { store: () => LayerStore; tempDir: string }): ServiceLayers {
  const events = new EventEmitter<{ change: [LayerChange] }>();
  return {
    async list() {
      return deps.store().list();
    },
    async get(id) {
      return deps.store().get(id);
    },
    async remove(id) {
      const store = deps.store();
      const layer = await store.get(id);
      if (!layer || !(await store.remove(id))) return false;
      events.emit('change', { type: 'removed', layer });
      return true;
    },
    startImport(file, opts = {}) {
      const job = startLayerImport({ store: deps.store(), file, tempDir: deps.tempDir, name: opts.name, sourceFile: opts.sourceFile, signal: opts.signal });
      job.done.then(
        (layer) => events.emit('change', { type: 'added', layer }),
        () => {},
      );
      return job;
    },
    onChange(listener) {
      events.on('change', listener);
      return () => events.off('change', listener);
    },
    announce(change) {
      events.emit('change', change);
    },
  };
}
