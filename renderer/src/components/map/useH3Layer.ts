import { shallowRef, watch, type Ref } from 'vue';
import type FieldMap from '../../map/FieldMap';
import H3Layer from '../../map/H3Layer';
import { cellAt, cellsInPolygon } from '../../map/h3Cells';
import { OVERLAY_COLOURS } from '../../map/layerColours';
import { lonLatOf } from '../../map/lonLat';
import { useComposerStore } from '../../stores/composer';
import { useMapStore } from '../../stores/map';

/**
 * The composer's H3 cells on the map, and the two tools that choose them: a click toggles the
 * cell under it, a drawn polygon adds the cells inside it. A polygon too large for the
 * resolution is told in `problem`. The same drawing also outlines a field pack's area when asked.
 */
export function useH3Layer(problem: Ref<string | null>) {
  const store = useMapStore();
  const composer = useComposerStore();
  const h3Layer = shallowRef<H3Layer | null>(null);

  function applyTool(): void {
    const h3 = h3Layer.value;
    if (!h3) return;
    if (store.areaDrawing) {
      h3.startDrawing((ring) => store.areaDrawn(ring.map(lonLatOf)));
    } else if (store.tool === 'h3-draw') {
      h3.startDrawing((ring) => {
        try {
          composer.addH3(cellsInPolygon(ring, composer.h3Resolution));
          problem.value = null;
        } catch (e) {
          problem.value = e instanceof Error ? e.message : String(e);
        }
      });
    } else h3.stopDrawing();
  }

  function attach(m: FieldMap): void {
    const h3 = new H3Layer({ map: m.map, color: OVERLAY_COLOURS.h3 });
    h3Layer.value = h3;
    m.map.on('singleclick', (e) => {
      if (store.tool === 'h3-pick') composer.toggleH3(cellAt(e.coordinate, composer.h3Resolution));
    });
    h3.setVisible(store.overlays.h3);
    h3.setCells(composer.h3Ids);
  }

  watch(() => composer.h3Ids, (ids) => h3Layer.value?.setCells(ids));
  watch([() => store.tool, () => store.areaDrawing], applyTool);
  watch(
    () => store.overlays.h3,
    (shown) => h3Layer.value?.setVisible(shown),
  );

  function dispose(): void {
    h3Layer.value?.dispose();
    h3Layer.value = null;
  }

  return { attach, dispose };
}
