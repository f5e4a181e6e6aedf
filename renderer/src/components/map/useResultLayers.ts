import { boundingExtent } from 'ol/extent';
import { fromLonLat } from 'ol/proj';
import { ref, shallowRef, watch, type ShallowRef } from 'vue';
import FeaturePicker from '../../map/FeaturePicker';
import type FieldMap from '../../map/FieldMap';
import ResultsLayer from '../../map/ResultsLayer';
import { LAYER_COLOURS, OVERLAY_COLOURS, SELECTED_COLOUR } from '../../map/layerColours';
import { LAYERS, type LayerName } from '../../map/layers';
import { useMapStore } from '../../stores/map';

/**
 * The query results (one layer per result kind, the active one shown) and the uploaded files
 * under them: what they draw, how they draw it, selection both ways, and zooming to them.
 */
export function useResultLayers(fieldMap: ShallowRef<FieldMap | null>, webgl: boolean) {
  const store = useMapStore();
  const layers = shallowRef<Record<LayerName, ResultsLayer> | null>(null);
  const uploadsLayer = shallowRef<ResultsLayer | null>(null);
  const picker = shallowRef<FeaturePicker | null>(null);
  /** Feature counts per layer as drawn, for tests and assistive text. */
  const counts = ref<Record<string, number>>({});
  /** Features drawn on the uploads layer, for tests and assistive text. */
  const uploadCount = ref(0);
  const renderMode = ref('canvas');

  function syncCollections(): void {
    const ls = layers.value;
    if (!ls) return;
    const next: Record<string, number> = {};
    for (const name of LAYERS) {
      const c = store.collections[name];
      if (c) ls[name].setFeatures(c);
      else ls[name].clear();
      next[name] = c?.features.length ?? 0;
    }
    counts.value = next;
    renderMode.value = ls[store.activeLayer].renderMode;
  }

  function syncFigures(): void {
    const ls = layers.value;
    if (ls) for (const name of LAYERS) ls[name].setFigure(store.figures[name]);
  }

  function syncUploads(): void {
    const features = Object.values(store.uploads).flatMap((c) => c.features);
    uploadsLayer.value?.setFeatures({ type: 'FeatureCollection', features });
    uploadCount.value = features.length;
  }

  function syncVisibility(): void {
    const ls = layers.value;
    if (ls) for (const name of LAYERS) ls[name].setVisible(store.overlays.results && name === store.activeLayer);
    uploadsLayer.value?.setVisible(store.overlays.uploads);
  }

  /** Adds the uploads layer, then the results over it: a result drawn from a file's row covers that row. */
  function attach(m: FieldMap): void {
    const made = Object.fromEntries(
      LAYERS.map((name) => [name, new ResultsLayer({ name, color: LAYER_COLOURS[name], selectedColor: SELECTED_COLOUR, webgl, labelClear: m.labelClear, names: m.overlayNames })]),
    ) as Record<LayerName, ResultsLayer>;
    const ups = new ResultsLayer({ name: 'uploads', color: OVERLAY_COLOURS.uploads, webgl, labelClear: m.labelClear, names: m.overlayNames });
    m.addLayer(ups.group);
    for (const name of LAYERS) m.addLayer(made[name].group);
    layers.value = made;
    uploadsLayer.value = ups;
    picker.value = new FeaturePicker({
      map: m.map,
      layers: Object.values(made),
      enabled: () => store.tool === 'select',
      onPick: (hit) => {
        if (hit) store.select(hit.layer as LayerName, hit.id, 'map');
        else if (store.selection?.layer === store.activeLayer) store.select(store.activeLayer, null, 'map');
      },
      onCluster: (extent) => m.fit(extent, 19),
    });
    // Labels are placed again where the view settles, clear of the controls there.
    const relabel = () => {
      for (const l of [ups, ...Object.values(made)]) l.refreshLabels();
    };
    m.map.on('moveend', relabel);
    m.onControlsChange(relabel);
    syncFigures();
    syncCollections();
    syncUploads();
    syncVisibility();
    syncColours();
  }

  /** The shown layer's results in the legend's colours, a class turned off left out; the others in their layer's colour. */
  function syncColours(): void {
    const ls = layers.value;
    if (!ls) return;
    const { colouring, classes, classOf } = store.legend;
    const hidden = new Set(store.hiddenClasses);
    for (const name of LAYERS) {
      const plain = name !== store.activeLayer || (colouring.by === 'layer' && !hidden.size);
      ls[name].setColours(plain ? null : classOf.map((c) => (hidden.has(classes[c]!.key) ? null : classes[c]!.colour)));
    }
  }

  watch(() => store.collections, syncCollections);
  watch(() => store.figures, syncFigures);
  watch([() => store.legend, () => store.hiddenClasses], syncColours);
  watch(() => store.uploads, syncUploads);
  watch([() => store.activeLayer, () => store.overlays], () => {
    syncVisibility();
    if (layers.value) renderMode.value = layers.value[store.activeLayer].renderMode;
  });
  watch(
    () => store.display,
    (d) => {
      const ls = layers.value;
      if (!ls) return;
      for (const name of LAYERS) ls[name].setDisplay(d);
      uploadsLayer.value?.setDisplay(d);
      renderMode.value = ls[store.activeLayer].renderMode;
    },
  );
  watch(
    () => store.uploadsFitRequest,
    (req) => {
      const c = req ? store.uploads[req.name] : undefined;
      if (!c) return;
      const points = c.features.map((f) => fromLonLat((f.geometry as { coordinates: [number, number] }).coordinates));
      fieldMap.value?.fit(boundingExtent(points), 15);
    },
  );
  watch(
    () => store.fitRequest,
    (req) => {
      const extent = req ? layers.value?.[req.layer].extent() : undefined;
      if (extent) fieldMap.value?.fit(extent);
    },
  );
  watch(
    () => store.selection,
    (sel) => {
      const ls = layers.value;
      if (!ls) return;
      for (const name of LAYERS) ls[name].select(sel?.layer === name ? sel.id : undefined);
      if (sel && sel.origin === 'list') {
        const extent = ls[sel.layer].featureExtent(sel.id);
        if (extent) fieldMap.value?.centreOn(extent);
      }
    },
  );

  function dispose(): void {
    picker.value?.dispose();
    picker.value = null;
    if (layers.value) for (const l of Object.values(layers.value)) l.dispose();
    layers.value = null;
    uploadsLayer.value?.dispose();
    uploadsLayer.value = null;
  }

  return { counts, uploadCount, renderMode, attach, dispose };
}
