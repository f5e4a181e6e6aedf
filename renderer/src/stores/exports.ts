import { defineStore } from 'pinia';
import { computed, ref } from 'vue';
import type { RpcErrorBody } from '../../../shared/rpc/errors';
import type { ExportFormat, ExportProgressEvent, ExportProject } from '../../../shared/rpc/methods/export';
import { useRpc } from '../api/rpc';
import { useAppStore } from './app';
import { useMapStore } from './map';
import { useUnitsStore } from './units';

export const EXPORT_FORMATS: ReadonlyArray<{ value: ExportFormat; label: string }> = [
  { value: 'gpkg', label: 'GeoPackage (.gpkg)' },
  { value: 'geojson', label: 'GeoJSON' },
  { value: 'ndjson', label: 'Newline-delimited GeoJSON' },
  { value: 'csv', label: 'CSV (lon/lat columns)' },
  { value: 'qgz', label: 'QGIS project (.qgz + .gpkg, desktop)' },
  { value: 'qfield', label: 'QGIS project for QField (.zip)' },
];

/**
 * Export jobs of cached queries. The desktop app asks the native save dialog for a destination;
 * the browser host has none, so the Node side keeps the file and `downloadPath` says where to
 * fetch it.
 */
/** The selection an export belongs to, as one key: its query ids in order. */
export const selectionKey = (queryIds: readonly number[]): string => [...queryIds].sort((a, b) => a - b).join(',');

interface ExportTask {
  job: ExportProgressEvent | null;
  error: RpcErrorBody | null;
}

export const useExportStore = defineStore('exports', () => {
  const rpc = useRpc();
  const app = useAppStore();
  const map = useMapStore();
  const units = useUnitsStore();
  const format = ref<ExportFormat>('gpkg');
  /** One job and error per selection: an answer shows its own download, never another's. */
  const tasks = ref(new Map<string, ExportTask>());
  /** The selection of the last export started: what `job` and `error` read. */
  const lastKey = ref<string | null>(null);
  const starting = ref(false);

  const taskOf = (key: string | null): ExportTask | null => (key === null ? null : (tasks.value.get(key) ?? null));
  const put = (key: string, t: Partial<ExportTask>): void => {
    tasks.value.set(key, { job: null, error: null, ...tasks.value.get(key), ...t });
  };
  const running = computed(() => starting.value || [...tasks.value.values()].some((t) => t.job?.state === 'running'));

  /** A QGIS project opens where the map is, over the online basemap the map draws. */
  function projectOptions(): ExportProject {
    const e = map.extent();
    // A view turned past the antimeridian reports longitudes beyond ±180.
    const box = e && ([Math.max(-180, e[0]), Math.max(-90, e[1]), Math.min(180, e[2]), Math.min(90, e[3])] as const);
    return { basemap: { kind: 'online' }, ...(box && box[0] < box[2] && box[1] < box[3] ? { extent: [...box] } : {}) };
  }

  async function start(queryIds: readonly number[], suggestedName = 'fieldlens-export'): Promise<void> {
    if (running.value || queryIds.length === 0) return;
    const key = selectionKey(queryIds);
    lastKey.value = key;
    starting.value = true;
    put(key, { error: null });
    try {
      let destination: string | undefined;
      if (app.info?.shell === 'electron') {
        const chosen = await rpc.call('export.chooseDestination', { format: format.value, suggestedName });
        if (!chosen.ok) {
          put(key, { error: chosen.error });
          app.report('Export', chosen.error);
          return;
        }
        if (chosen.value.path === null) return; // the user closed the dialog
        destination = chosen.value.path;
      }
      const r = await rpc.call('export.start', {
        selection: { queryIds: queryIds.map(String) },
        format: format.value,
        units: units.units,
        ...(destination ? { destination } : {}),
        ...(format.value === 'qgz' || format.value === 'qfield' ? { project: projectOptions() } : {}),
      });
      if (!r.ok) {
        put(key, { error: r.error });
        app.report('Export', r.error);
        return;
      }
      // Progress may already have arrived for this job; keep it if so.
      const early = pendingProgress.get(r.value.jobId);
      pendingProgress.clear();
      put(key, {
        job: early ?? {
          jobId: r.value.jobId,
          state: 'running',
          written: 0,
          total: null,
          layer: null,
          fileName: r.value.fileName,
          bytes: null,
          downloadPath: r.value.downloadPath,
          error: null,
        },
      });
    } finally {
      starting.value = false;
    }
  }

  async function cancel(queryIds?: readonly number[]): Promise<void> {
    const job = taskOf(queryIds ? selectionKey(queryIds) : lastKey.value)?.job;
    if (job?.state === 'running') await rpc.call('export.cancel', { jobId: job.jobId });
  }

  function dismiss(queryIds?: readonly number[]): void {
    const key = queryIds ? selectionKey(queryIds) : lastKey.value;
    if (key !== null) tasks.value.delete(key);
  }

  /** Events of a job whose start has not answered yet (the job may finish first). */
  const pendingProgress = new Map<string, ExportProgressEvent>();
  rpc.on('export.progress', (p) => {
    const entry = [...tasks.value.entries()].find(([, t]) => t.job?.jobId === p.jobId);
    if (!entry) {
      if (starting.value) pendingProgress.set(p.jobId, p);
      return;
    }
    const [key] = entry;
    put(key, { job: p });
    if (p.state === 'failed' && p.error) {
      put(key, { error: p.error });
      app.report('Export', p.error);
    }
  });

  return {
    format,
    job: computed(() => taskOf(lastKey.value)?.job ?? null),
    error: computed(() => taskOf(lastKey.value)?.error ?? null),
    jobFor: (queryIds: readonly number[]) => taskOf(selectionKey(queryIds))?.job ?? null,
    errorFor: (queryIds: readonly number[]) => taskOf(selectionKey(queryIds))?.error ?? null,
    running,
    start,
    cancel,
    dismiss,
  };
});
