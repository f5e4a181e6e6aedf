import { defineStore } from 'pinia';
import { computed, ref } from 'vue';
import type { RpcErrorBody } from '../../../shared/rpc/errors';
import { EXPORT_EXTENSION, type ExportEstimate, type ExportFormat, type ExportLayerStyle, type ExportProgressEvent, type ExportProject } from '../../../shared/rpc/methods/export';
import { CATEGORY_COLOURS, NO_VALUE, OTHER_KEY, type classify, type Colouring } from '../../../shared/map/symbology';
import { useServices } from '../services';
import { LAYER_COLOURS } from '../map/layerColours';
import type { LayerName } from '../map/layers';
import { useAppStore } from './app';
import { useHistoryStore } from './history';
import { useMapStore } from './map';
import { useThemeStore } from './theme';
import { useUnitsStore } from './units';

export const EXPORT_FORMATS: ReadonlyArray<{ value: ExportFormat; label: string }> = [
  { value: 'gpkg', label: `GeoPackage (.${EXPORT_EXTENSION.gpkg})` },
  { value: 'geojson', label: 'GeoJSON' },
  { value: 'ndjson', label: 'Newline-delimited GeoJSON' },
  { value: 'csv', label: 'CSV (lon/lat columns)' },
  { value: 'qgz', label: `QGIS project (.${EXPORT_EXTENSION.qgz} + .${EXPORT_EXTENSION.gpkg})` },
  { value: 'qfield', label: `QGIS project for QField (.${EXPORT_EXTENSION.qfield})` },
];

/**
 * Export jobs of cached queries. The desktop app asks the native save dialog for a destination;
 * the browser host has none, so the Node side keeps the file and `downloadPath` says where to
 * fetch it.
 */
/** The selection an export belongs to, as one key: its query ids in order. */
export const selectionKey = (queryIds: readonly number[]): string => [...queryIds].sort((a, b) => a - b).join(',');

/**
 * The legend's classes as a project's style: rank classes as ranges of positions (from the
 * features' classes, in the service's order), column classes by value, "(no value)" as null
 * and "Other" apart; a class turned off in the legend is sent turned off.
 */
export function legendStyle(
  legend: { colouring: Colouring } & ReturnType<typeof classify>,
  hidden: readonly string[],
  colour: string,
): ExportLayerStyle {
  const { colouring, classes, classOf } = legend;
  const shown = (key: string) => !hidden.includes(key);
  if (colouring.by === 'rank')
    return {
      by: 'rank',
      colour,
      classes: classes.map((c, i) => ({ first: classOf.indexOf(i) + 1, last: classOf.lastIndexOf(i) + 1, colour: c.colour, shown: shown(c.key) })),
    };
  if (colouring.by === 'column') {
    const other = classes.find((c) => c.key === OTHER_KEY) ?? null;
    return {
      by: 'column',
      colour,
      column: colouring.column,
      classes: classes.filter((c) => c !== other).map((c) => ({ value: c.key === NO_VALUE ? null : c.key, colour: c.colour, shown: shown(c.key) })),
      other: other ? { colour: other.colour, shown: shown(other.key) } : null,
    };
  }
  return { by: 'layer', colour };
}

interface ExportTask {
  job: ExportProgressEvent | null;
  error: RpcErrorBody | null;
}

/** Formats written as a QGIS project. */
export const isProjectFormat = (f: ExportFormat): f is 'qgz' | 'qfield' => f === 'qgz' || f === 'qfield';

/** What an export of a selection is, beyond its entries. */
export interface ExportOptions {
  /** The store's chosen format when absent. */
  format?: ExportFormat;
  /** The map layer the entries are drawn in: the project draws them in its colour (History's when absent). */
  layer?: LayerName;
  /** The project's raster basemap (the online tiles when the map shows them, else none: the offline basemap alone). */
  basemap?: ExportProject['basemap'];
  /** The project's extent [minLon, minLat, maxLon, maxLat] (the map's when absent). */
  extent?: [number, number, number, number];
  suggestedName?: string;
}

export const useExportStore = defineStore('exports', () => {
  const { exports } = useServices();
  const app = useAppStore();
  const map = useMapStore();
  const themes = useThemeStore();
  const history = useHistoryStore();
  const units = useUnitsStore();
  const format = ref<ExportFormat>('gpkg');
  /** Whether a QGIS project's layers open for editing (QField can then edit them); read-only otherwise. */
  const editable = ref(false);
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

  /**
   * A QGIS project opens on the data, over the basemap the map draws, each entry as
   * the map draws it: the one entry on the map's shown layer with the legend's classes (one
   * colour, by rank or by a column), any other in its layer's colour.
   */
  function projectOptions(queryIds: readonly number[], opts: ExportOptions): ExportProject {
    const e = opts.extent ?? map.extent();
    // A view turned past the antimeridian reports longitudes beyond ±180.
    const box = e && ([Math.max(-180, e[0]), Math.max(-90, e[1]), Math.min(180, e[2]), Math.min(90, e[3])] as const);
    const layer = opts.layer ?? 'history';
    const colour = LAYER_COLOURS[layer];
    const others = CATEGORY_COLOURS.filter((c) => c !== colour);
    const onMap = opts.layer !== undefined && queryIds.length === 1 && map.activeLayer === layer && !!map.collections[layer]?.features.length;
    return {
      ...(editable.value ? { editable: true } : {}),
      // The basemap in the map's colours: light is the project's default.
      ...(themes.theme === 'dark' ? { theme: 'dark' as const } : {}),
      basemap: opts.basemap ?? (map.onlineTiles && (typeof navigator === 'undefined' || navigator.onLine) ? { kind: 'online' } : { kind: 'none' }),
      ...(box && box[0] < box[2] && box[1] < box[3] ? { extent: [...box] } : {}),
      // Several entries each in a colour of their own, the layer's first: in one colour they could not be told apart.
      styles: onMap
        ? [map.display === 'heatmap' ? { by: 'heatmap' as const, colour } : legendStyle(map.legend, map.hiddenClasses, colour)]
        : queryIds.map((_, i) => ({ by: 'layer' as const, colour: i === 0 ? colour : others[(i - 1) % others.length]! })),
    };
  }

  /** A file name from the question of the first entry, as the service names downloads. */
  const suggestedName = (queryIds: readonly number[]): string => {
    const text = history.items.find((q) => q.id === queryIds[0])?.queryText ?? '';
    return text.normalize('NFC').replace(/[^\p{L}\p{N} ._-]+/gu, '_').replace(/\s+/g, ' ').trim().slice(0, 60).trim() || 'fieldlens-export';
  };


  /** Estimates of projects per selection and format, with the error of the last try. */
  const estimates = ref(new Map<string, { estimate: ExportEstimate | null; error: RpcErrorBody | null }>());
  const estimateKey = (queryIds: readonly number[], f: ExportFormat, opts: ExportOptions) =>
    `${selectionKey(queryIds)}|${f}|${opts.basemap?.kind === 'pack' ? opts.basemap.path : 'online'}`;

  /** What the project of a selection would hold and about how big it would be, before anything is written. */
  async function estimate(queryIds: readonly number[], opts: ExportOptions = {}): Promise<void> {
    const f = opts.format ?? format.value;
    if (!isProjectFormat(f) || !queryIds.length) return;
    const key = estimateKey(queryIds, f, opts);
    const r = await exports.estimate({
      selection: { queryIds: queryIds.map(String) },
      format: f,
      project: projectOptions(queryIds, opts),
    });
    estimates.value.set(key, r.ok ? { estimate: r.value, error: null } : { estimate: null, error: r.error });
  }

  async function start(queryIds: readonly number[], opts: ExportOptions = {}): Promise<void> {
    if (running.value || queryIds.length === 0) return;
    const fmt = opts.format ?? format.value;
    const key = selectionKey(queryIds);
    lastKey.value = key;
    starting.value = true;
    put(key, { error: null });
    try {
      let destination: string | undefined;
      if (app.info?.shell === 'electron') {
        const chosen = await exports.chooseDestination({ format: fmt, suggestedName: opts.suggestedName ?? suggestedName(queryIds) });
        if (!chosen.ok) {
          put(key, { error: chosen.error });
          app.report('Export', chosen.error);
          return;
        }
        if (chosen.value.path === null) return; // the user closed the dialog
        destination = chosen.value.path;
      }
      const r = await exports.start({
        selection: { queryIds: queryIds.map(String) },
        format: fmt,
        units: units.units,
        ...(destination ? { destination } : {}),
        ...(isProjectFormat(fmt) ? { project: projectOptions(queryIds, opts) } : {}),
        // A GeoPackage alone carries the map's look as each table's default style.
        ...(fmt === 'gpkg' ? { project: { basemap: { kind: 'none' as const }, styles: projectOptions(queryIds, opts).styles } } : {}),
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
    if (job?.state === 'running') await exports.cancel(job.jobId);
  }

  function dismiss(queryIds?: readonly number[]): void {
    const key = queryIds ? selectionKey(queryIds) : lastKey.value;
    if (key !== null) tasks.value.delete(key);
  }

  /** Events of a job whose start has not answered yet (the job may finish first). */
  const pendingProgress = new Map<string, ExportProgressEvent>();
  exports.onProgress((p) => {
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
    editable,
    job: computed(() => taskOf(lastKey.value)?.job ?? null),
    error: computed(() => taskOf(lastKey.value)?.error ?? null),
    jobFor: (queryIds: readonly number[]) => taskOf(selectionKey(queryIds))?.job ?? null,
    errorFor: (queryIds: readonly number[]) => taskOf(selectionKey(queryIds))?.error ?? null,
    running,
    estimate,
    estimateFor: (queryIds: readonly number[], opts: ExportOptions = {}) =>
      estimates.value.get(estimateKey(queryIds, opts.format ?? format.value, opts)) ?? null,
    start,
    cancel,
    dismiss,
  };
});
