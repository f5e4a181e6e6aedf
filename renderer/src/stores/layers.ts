import { defineStore } from 'pinia';
import { computed, readonly, ref, shallowRef } from 'vue';
import type { RpcErrorBody } from '../../../shared/rpc/errors';
import { UPLOAD_CHUNK_BYTES, type LayerFeatures, type LayerImportProgress, type LayerInfo } from '../../../shared/rpc/methods/layers';
import { useServices } from '../services';
import { bytesToBase64 } from '../lib/base64';

/** What the import in progress shows: the file, its phase and how far it got. */
export type LayerJob = Omit<LayerImportProgress, 'jobId'> & { jobId: string | null };

/**
 * Data layers of the bundled service for Settings, the credits and the map: the list, one
 * import at a time (a path from the desktop's open dialog, or the chosen file sent in chunks
 * from the browser), cancel, remove, and the layer drawn on the map.
 */
export const useLayersStore = defineStore('layers', () => {
  const { layers: service, connection } = useServices();
  const layers = ref<LayerInfo[]>([]);
  const loaded = ref(false);
  /** Why the list could not be read (a remote connection, the service not running). */
  const listError = ref<RpcErrorBody | null>(null);
  /** Why the last import, removal or drawing failed. */
  const error = ref<RpcErrorBody | null>(null);
  const job = ref<LayerJob | null>(null);
  /** The last layer added, for a line of confirmation. */
  const added = ref<LayerInfo | null>(null);
  const cancelled = ref<string | null>(null);
  /** The layer drawn on the map; features kept shallow (thousands must not become proxies). */
  const shown = shallowRef<LayerFeatures | null>(null);
  /** Bumped each time the map should zoom to the shown layer. */
  const fitSeq = ref(0);
  let cancelRequested = false;

  const busy = computed(() => job.value !== null);

  async function load(): Promise<void> {
    const r = await service.list();
    loaded.value = true;
    if (r.ok) {
      layers.value = r.value.layers;
      listError.value = null;
    } else {
      layers.value = [];
      listError.value = r.error;
    }
  }

  function begin(file: string, phase: LayerJob['phase'], total: number | null): void {
    cancelRequested = false;
    error.value = null;
    added.value = null;
    cancelled.value = null;
    job.value = { jobId: null, file, phase, done: 0, total, unit: 'bytes', features: 0 };
  }

  /** The import call's answer; progress or its end may already have arrived for this id. */
  function started(r: Awaited<ReturnType<typeof service.import>>): void {
    if (!r.ok) {
      error.value = r.error;
      job.value = null;
    } else if (job.value && job.value.jobId === null) job.value = { ...job.value, jobId: r.value.jobId, file: r.value.file };
  }

  /** Imports a file on this computer by its full path (desktop dialog or typed in). */
  async function addPath(path: string): Promise<void> {
    if (busy.value) return;
    begin(path.split(/[\\/]/).pop() ?? path, 'reading', null);
    started(await service.import({ path }));
  }

  /** The desktop's open dialog, then the import; false where there is no dialog (the browser host). */
  async function pick(): Promise<boolean> {
    const r = await service.pick();
    if (!r.ok) {
      if (r.error.code !== 'NOT_FOUND') error.value = r.error;
      return false;
    }
    if (r.value.path) await addPath(r.value.path);
    return true;
  }

  /** Sends a file chosen in the page, in chunks, then imports it; cancel() stops between chunks. */
  async function addFile(file: Blob & { name: string }): Promise<void> {
    if (busy.value) return;
    begin(file.name, 'uploading', file.size);
    const s = await service.uploadStart(file.name, file.size);
    if (!s.ok) {
      error.value = s.error;
      job.value = null;
      return;
    }
    const { uploadId } = s.value;
    job.value = { ...job.value!, jobId: uploadId };
    const stop = () => {
      cancelled.value = file.name;
      job.value = null;
    };
    for (let offset = 0; offset < file.size && !cancelRequested; offset += UPLOAD_CHUNK_BYTES) {
      const part = new Uint8Array(await file.slice(offset, offset + UPLOAD_CHUNK_BYTES).arrayBuffer());
      const c = await service.uploadChunk(uploadId, offset, bytesToBase64(part));
      // A cancel meanwhile dropped the upload on the Node side; its refusal is no error.
      if (cancelRequested) break;
      if (!c.ok) {
        error.value = c.error;
        job.value = null;
        await service.cancel(uploadId);
        return;
      }
    }
    if (cancelRequested) return stop();
    const r = await service.import({ uploadId });
    if (!r.ok && cancelRequested) return stop();
    started(r);
  }

  async function cancel(): Promise<void> {
    const id = job.value?.jobId;
    if (!job.value) return;
    cancelRequested = true;
    // Drops an upload (the sending loop then stops) or cancels the running import; its end comes as layers.done.
    if (id) await service.cancel(id);
  }

  async function remove(id: string): Promise<boolean> {
    error.value = null;
    const r = await service.remove(id);
    if (!r.ok) {
      error.value = r.error;
      return false;
    }
    layers.value = layers.value.filter((l) => l.id !== id);
    if (shown.value?.layer.id === id) shown.value = null;
    return true;
  }

  /** Draws a layer's features on the map and zooms to them. */
  async function showOnMap(id: string): Promise<void> {
    error.value = null;
    const r = await service.features(id);
    if (!r.ok) {
      error.value = r.error;
      return;
    }
    shown.value = r.value;
    fitSeq.value++;
  }

  function hideFromMap(): void {
    shown.value = null;
  }

  /** Zooms the map back to the shown layer (after a question's results moved it, say). */
  function zoomToShown(): void {
    if (shown.value) fitSeq.value++;
  }

  service.onProgress((p) => {
    if (job.value && (job.value.jobId === null || job.value.jobId === p.jobId)) job.value = { ...p };
  });
  service.onDone((d) => {
    if (!job.value || (job.value.jobId !== null && job.value.jobId !== d.jobId)) return;
    job.value = null;
    if (d.state === 'done' && d.layer) {
      added.value = d.layer;
      if (!layers.value.some((l) => l.id === d.layer!.id)) layers.value = [...layers.value, d.layer];
    } else if (d.state === 'cancelled') cancelled.value = d.file;
    else error.value = d.error;
  });
  service.onChanged((c) => {
    layers.value = c.layers;
    listError.value = null;
    if (shown.value && !c.layers.some((l) => l.id === shown.value!.layer.id)) shown.value = null;
  });
  // The list belongs to the active connection: a switch reads it again.
  connection.onChanged(() => void load());

  return {
    layers: readonly(layers),
    loaded: readonly(loaded),
    listError: readonly(listError),
    error: readonly(error),
    job: readonly(job),
    added: readonly(added),
    cancelled: readonly(cancelled),
    shown,
    fitSeq: readonly(fitSeq),
    busy,
    load,
    addPath,
    addFile,
    pick,
    cancel,
    remove,
    showOnMap,
    hideFromMap,
    zoomToShown,
  };
});
