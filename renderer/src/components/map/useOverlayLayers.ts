import { ref, shallowRef, watch, type ShallowRef } from 'vue';
import DataLayerOverlay from '../../map/DataLayerOverlay';
import DiffLayer from '../../map/DiffLayer';
import FacingLayer from '../../map/FacingLayer';
import type FieldMap from '../../map/FieldMap';
import { useLayersStore } from '../../stores/layers';
import { useMapStore } from '../../stores/map';

/**
 * What is drawn for reading alongside the results: the data layer shown from Settings (under
 * them), and over them the re-run diff and the facing arrows of street-level captures.
 */
export function useOverlayLayers(fieldMap: ShallowRef<FieldMap | null>) {
  const store = useMapStore();
  const dataLayers = useLayersStore();
  const overlay = shallowRef<DataLayerOverlay | null>(null);
  const diffLayer = shallowRef<DiffLayer | null>(null);
  const facingLayer = shallowRef<FacingLayer | null>(null);
  const overlayCount = ref(0);
  /** Features drawn for the re-run diff (a move counts its two ends and its line). */
  const diffCount = ref(0);
  const facingCount = ref(0);

  function syncOverlay(): void {
    overlay.value?.setFeatures(dataLayers.shown?.features ?? null);
    overlayCount.value = overlay.value?.count ?? 0;
  }

  function syncDiff(): void {
    diffLayer.value?.setItems(store.diff?.items ?? null);
    diffCount.value = diffLayer.value?.count ?? 0;
  }

  function syncFacing(): void {
    const layer = facingLayer.value;
    if (!layer) return;
    layer.setView(store.facing);
    facingCount.value = layer.count;
    // Every arrow in sight; the zoom stays close enough for the feature's street.
    const extent = store.facing?.captures.length ? layer.extent() : undefined;
    if (extent) fieldMap.value?.fit(extent, 17);
  }

  /** The data layer goes under everything added later. */
  function attachUnder(m: FieldMap): void {
    const made = new DataLayerOverlay({ labelClear: m.labelClear, names: m.overlayNames });
    made.layer.setVisible(store.overlays.data);
    m.addLayer(made.layer);
    m.map.on('moveend', () => made.refreshLabels());
    m.onControlsChange(() => made.refreshLabels());
    overlay.value = made;
  }

  /** The diff and the facing arrows go over the results added before them. */
  function attachOver(m: FieldMap): void {
    diffLayer.value = new DiffLayer();
    m.addLayer(diffLayer.value.layer);
    facingLayer.value = new FacingLayer();
    m.addLayer(facingLayer.value.layer);
    syncDiff();
    syncFacing();
    diffLayer.value.setVisible(store.overlays.diff);
  }

  watch(() => dataLayers.shown, syncOverlay);
  watch(
    () => dataLayers.fitSeq,
    () => {
      const extent = overlay.value?.extent();
      // A town-sized layer reads at street zoom; the default cap suits country-wide results.
      if (extent) fieldMap.value?.fit(extent, 17);
    },
  );
  watch(() => store.diff, syncDiff);
  watch(() => store.facing, syncFacing);
  watch(
    () => store.diffSeq,
    () => {
      const extent = diffLayer.value?.extent();
      if (extent) fieldMap.value?.fit(extent, 15);
    },
  );
  watch(
    () => store.overlays.diff,
    (shown) => diffLayer.value?.setVisible(shown),
  );
  watch(
    () => store.overlays.data,
    (shown) => overlay.value?.layer.setVisible(shown),
  );

  function dispose(): void {
    overlay.value?.dispose();
    overlay.value = null;
    diffLayer.value?.dispose();
    diffLayer.value = null;
    facingLayer.value?.dispose();
    facingLayer.value = null;
  }

  return { overlayCount, diffCount, facingCount, attachUnder, attachOver, dispose };
}
