import { defineStore } from 'pinia';
import { computed, readonly, ref } from 'vue';
import type { RpcErrorBody } from '../../../shared/rpc/errors';
import type { ExportFormat, ExportProgressEvent, ExportProject } from '../../../shared/rpc/methods/export';
import { useRpc } from '../api/rpc';
import { useAppStore } from './app';
import { useMapStore } from './map';

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
export const useExportStore = defineStore('exports', () => {
  const rpc = useRpc();
  const app = useAppStore();
  const map = useMapStore();
  const format = ref<ExportFormat>('gpkg');
  const job = ref<ExportProgressEvent | null>(null);
  const error = ref<RpcErrorBody | null>(null);
  const starting = ref(false);

  const running = computed(() => starting.value || job.value?.state === 'running');

  /** A QGIS project opens where the map is, over the online basemap the map draws. */
  function projectOptions(): ExportProject {
    const e = map.extent();
    // A view turned past the antimeridian reports longitudes beyond ±180.
    const box = e && ([Math.max(-180, e[0]), Math.max(-90, e[1]), Math.min(180, e[2]), Math.min(90, e[3])] as const);
    return { basemap: { kind: 'online' }, ...(box && box[0] < box[2] && box[1] < box[3] ? { extent: [...box] } : {}) };
  }

  async function start(queryIds: readonly number[], suggestedName = 'fieldlens-export'): Promise<void> {
    if (running.value || queryIds.length === 0) return;
    starting.value = true;
    error.value = null;
    try {
      let destination: string | undefined;
      if (app.info?.shell === 'electron') {
        const chosen = await rpc.call('export.chooseDestination', { format: format.value, suggestedName });
        if (!chosen.ok) {
          error.value = chosen.error;
          app.report('Export', chosen.error);
          return;
        }
        if (chosen.value.path === null) return; // the user closed the dialog
        destination = chosen.value.path;
      }
      const r = await rpc.call('export.start', {
        selection: { queryIds: queryIds.map(String) },
        format: format.value,
        ...(destination ? { destination } : {}),
        ...(format.value === 'qgz' || format.value === 'qfield' ? { project: projectOptions() } : {}),
      });
      if (!r.ok) {
        error.value = r.error;
        app.report('Export', r.error);
        return;
      }
      // Progress may already have arrived for this job; keep it if so.
      if (job.value?.jobId !== r.value.jobId)
        job.value = {
          jobId: r.value.jobId,
          state: 'running',
          written: 0,
          total: null,
          layer: null,
          fileName: r.value.fileName,
          bytes: null,
          downloadPath: r.value.downloadPath,
          error: null,
        };
    } finally {
      starting.value = false;
    }
  }

  async function cancel(): Promise<void> {
    if (job.value?.state === 'running') await rpc.call('export.cancel', { jobId: job.value.jobId });
  }

  function dismiss(): void {
    job.value = null;
    error.value = null;
  }

  rpc.on('export.progress', (p) => {
    if (job.value && job.value.jobId !== p.jobId && job.value.state === 'running') return;
    job.value = p;
    if (p.state === 'failed' && p.error) {
      error.value = p.error;
      app.report('Export', p.error);
    }
  });

  return {
    format,
    job: readonly(job),
    error: readonly(error),
    running,
    start,
    cancel,
    dismiss,
  };
});
