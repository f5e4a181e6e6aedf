import { defineStore } from 'pinia';
import { computed, readonly, ref, shallowRef, watch } from 'vue';
import type { FeatureCollectionLike } from '../lib/results';
import type { DiffItem } from '../map/DiffLayer';
import type { FacingView } from '../map/FacingLayer';
import { classify, colourableColumns, type Colouring } from '../../../shared/map/symbology';
import { LAYER_COLOURS } from '../map/layerColours';
import { LAYERS, type LayerName } from '../map/layers';
import type { DisplayChoice } from '../map/renderMode';

/** What a click on the map does: pick results, pick H3 cells, or draw a polygon to fill with cells. */
export type MapTool = 'select' | 'h3-pick' | 'h3-draw';

/** Overlays the layer switcher (the map's legend) turns on and off (results follow the active tab; data: the data layer shown from Settings). */
export const OVERLAYS = ['results', 'data', 'uploads', 'h3', 'coordinates', 'diff'] as const;
export type Overlay = (typeof OVERLAYS)[number];

const ONLINE_TILES_KEY = 'fieldlens.map.onlineTiles';

export interface MapSelection {
  layer: LayerName;
  id: string;
  /** Where the pick came from: a list click moves the map, a map click scrolls the list. */
  origin: 'list' | 'map';
}

/**
 * What the map shows, as plain data: the component owning the OpenLayers map follows it.
 * Collections are kept shallow (up to 2,000 features each must not become reactive proxies).
 */
export const useMapStore = defineStore('map', () => {
  const collections = shallowRef(Object.fromEntries(LAYERS.map((l) => [l, null])) as Record<LayerName, FeatureCollectionLike | null>);
  const activeLayer = ref<LayerName>('ask');
  const selection = ref<MapSelection | null>(null);
  /** Bumped to ask the map to zoom to one uploaded file's features. */
  const uploadsFitRequest = ref<{ name: string; seq: number } | null>(null);
  /** Bumped to ask the map to zoom to a layer's features. */
  const fitRequest = ref<{ layer: LayerName; seq: number } | null>(null);
  let centreProvider: (() => [number, number]) | null = null;
  let extentProvider: (() => [number, number, number, number] | null) | null = null;
  let labelsProvider: (() => string[]) | null = null;

  /** Uploaded files as drawn on their own layer, one collection per file name. */
  const uploads = shallowRef<Record<string, FeatureCollectionLike>>({});
  /** How results are drawn: each feature, clustered, or as a heatmap. */
  const display = ref<DisplayChoice>('features');
  const tool = ref<MapTool>('select');
  const overlays = ref<Record<Overlay, boolean>>({ results: true, data: true, uploads: true, h3: true, coordinates: true, diff: true });
  /** A re-run diff drawn over the results (History's compare), with the entries it compares. */
  const diff = shallowRef<{ oldId: number; newId: number; items: readonly DiffItem[] } | null>(null);
  /**
   * Imagery facing the selected feature, drawn as arrows from when the Field kit finds it until
   * the selection changes or the arrows are closed (the Field kit covers the map while open).
   */
  const facing = shallowRef<FacingView | null>(null);
  /** How results are coloured (one colour, by rank, by a column), and the legend's classes turned off. */
  const colouring = ref<Colouring>({ by: 'layer' });
  const hiddenClasses = ref<readonly string[]>([]);
  function setColouring(c: Colouring): void {
    colouring.value = c;
    hiddenClasses.value = [];
  }
  function setClassShown(key: string, shown: boolean): void {
    const rest = hiddenClasses.value.filter((k) => k !== key);
    hiddenClasses.value = shown ? rest : [...rest, key];
  }
  /** The shown results' classes, as the map colours them and the legend lists them. */
  const legend = computed(() => {
    const features = collections.value[activeLayer.value]?.features ?? [];
    const c = colouring.value.by === 'column' && !colourableColumns(features).includes(colouring.value.column) ? { by: 'layer' as const } : colouring.value;
    return { colouring: c, columns: colourableColumns(features), ...classify(features, c, LAYER_COLOURS[activeLayer.value]) };
  });
  /** Per layer, the columns of the figure its question asked about: labels show their values after the name. */
  const figures = shallowRef(Object.fromEntries(LAYERS.map((l): [LayerName, readonly string[]] => [l, []])) as Record<LayerName, readonly string[]>);
  function setFigure(layer: LayerName, columns: readonly string[]): void {
    const now = figures.value[layer];
    if (columns.length === now.length && columns.every((c, i) => c === now[i])) return;
    figures.value = { ...figures.value, [layer]: [...columns] };
  }
  /** Bumped to zoom to the diff when one is shown. */
  const diffSeq = ref(0);
  /** The user's choice of online tiles, remembered; they are drawn only while online too. */
  const onlineTiles = ref(readFlag(ONLINE_TILES_KEY));
  /** A user-supplied PMTiles basemap, read from the file itself. */
  const basemapFile = shallowRef<File | null>(null);

  function showUploads(name: string, collection: FeatureCollectionLike | null): void {
    const next = { ...uploads.value };
    if (collection) next[name] = collection;
    else delete next[name];
    uploads.value = next;
  }
  function showDiff(d: { oldId: number; newId: number; items: readonly DiffItem[] } | null): void {
    diff.value = d;
    if (d?.items.length) {
      overlays.value = { ...overlays.value, diff: true };
      diffSeq.value++;
    }
  }
  function showFacing(view: FacingView | null): void {
    facing.value = view;
  }
  function zoomToUploads(name: string): void {
    if (uploads.value[name]?.features.length) uploadsFitRequest.value = { name, seq: (uploadsFitRequest.value?.seq ?? 0) + 1 };
  }
  function setDisplay(d: DisplayChoice): void {
    display.value = d;
  }
  function setTool(t: MapTool): void {
    tool.value = t;
  }
  function setOverlay(o: Overlay, visible: boolean): void {
    overlays.value = { ...overlays.value, [o]: visible };
  }
  function setOnlineTiles(on: boolean): void {
    onlineTiles.value = on;
    writeFlag(ONLINE_TILES_KEY, on);
  }
  function setBasemapFile(file: File | null): void {
    basemapFile.value = file;
  }
  /** Zooms to the active layer's results (the "zoom to results" button). */
  function zoomToResults(): void {
    const layer = activeLayer.value;
    if (collections.value[layer]?.features.length) fitRequest.value = { layer, seq: (fitRequest.value?.seq ?? 0) + 1 };
  }

  function show(layer: LayerName, collection: FeatureCollectionLike | null, fit = true): void {
    collections.value = { ...collections.value, [layer]: collection };
    if (selection.value?.layer === layer) selection.value = null;
    if (fit && collection && collection.features.length > 0)
      fitRequest.value = { layer, seq: (fitRequest.value?.seq ?? 0) + 1 };
  }

  /** Zooms the map to a layer's features ("Zoom to results"). */
  function fit(layer: LayerName): void {
    if (collections.value[layer]?.features.length) fitRequest.value = { layer, seq: (fitRequest.value?.seq ?? 0) + 1 };
  }

  function select(layer: LayerName, id: string | null, origin: MapSelection['origin'] = 'list'): void {
    selection.value = id === null ? null : { layer, id, origin };
  }

  const selectedIn = (layer: LayerName): string | null =>
    selection.value?.layer === layer ? selection.value.id : null;

  function setActiveLayer(layer: LayerName): void {
    activeLayer.value = layer;
  }

  /** The map view registers how to read its centre; panels ask for it ("use map centre"). */
  function provideCentre(fn: (() => [number, number]) | null): void {
    centreProvider = fn;
  }
  const centre = (): [number, number] | null => centreProvider?.() ?? null;
  /** The map view registers how to read its extent ([minLon, minLat, maxLon, maxLat]); History filters by it. */
  function provideExtent(fn: (() => [number, number, number, number] | null) | null): void {
    extentProvider = fn;
  }
  const extent = (): [number, number, number, number] | null => extentProvider?.() ?? null;
  /** The map view registers how to read the names its last complete frame labelled (what a reader of the map sees named). */
  function provideLabels(fn: (() => string[]) | null): void {
    labelsProvider = fn;
  }
  const labelledNames = (): string[] => labelsProvider?.() ?? [];

  /** A panel asked for an area drawn on the map (an area pack): the map draws one polygon, then stops. */
  const areaDrawing = ref(false);
  /** The last area drawn that way, outer ring as [lon, lat]. */
  const drawnArea = shallowRef<[number, number][] | null>(null);
  function drawArea(on: boolean): void {
    areaDrawing.value = on;
  }
  function areaDrawn(ring: [number, number][]): void {
    drawnArea.value = ring;
    areaDrawing.value = false;
  }
  watch(selection, () => (facing.value = null));

  /** The selected feature as the map holds it (all its properties), for the details panel. */
  const selectedFeature = computed(() => {
    const sel = selection.value;
    if (!sel) return null;
    return collections.value[sel.layer]?.features.find((f) => f.id === sel.id) ?? null;
  });

  return {
    collections: computed(() => collections.value),
    activeLayer: readonly(activeLayer),
    selection: readonly(selection),
    selectedFeature,
    fitRequest: readonly(fitRequest),
    show,
    fit,
    select,
    selectedIn,
    setActiveLayer,
    provideCentre,
    centre,
    uploads: computed(() => uploads.value),
    display: readonly(display),
    tool: readonly(tool),
    overlays: readonly(overlays),
    onlineTiles: readonly(onlineTiles),
    basemapFile: computed(() => basemapFile.value),
    showUploads,
    diff: computed(() => diff.value),
    diffSeq: readonly(diffSeq),
    showDiff,
    facing: computed(() => facing.value),
    showFacing,
    zoomToUploads,
    uploadsFitRequest: readonly(uploadsFitRequest),
    setDisplay,
    colouring: readonly(colouring),
    hiddenClasses: computed(() => hiddenClasses.value),
    setColouring,
    setClassShown,
    legend,
    figures: computed(() => figures.value),
    setFigure,
    setTool,
    setOverlay,
    setOnlineTiles,
    setBasemapFile,
    zoomToResults,
    provideExtent,
    extent,
    provideLabels,
    labelledNames,
    areaDrawing: readonly(areaDrawing),
    drawnArea: computed(() => drawnArea.value),
    drawArea,
    areaDrawn,
  };
});

function readFlag(key: string): boolean {
  try {
    return globalThis.localStorage?.getItem(key) === 'on';
  } catch {
    return false;
  }
}
function writeFlag(key: string, on: boolean): void {
  try {
    globalThis.localStorage?.setItem(key, on ? 'on' : 'off');
  } catch {
    // Storage refused (private mode): the choice lasts for this session only.
  }
}
