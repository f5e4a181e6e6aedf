import { defineStore } from 'pinia';
import { computed, ref } from 'vue';
import type { SeenBox } from '../lib/results';
import type { LayerName } from '../map/layers';
import { useMapStore } from './map';

/** One image shown large in the viewer, with where it came from so the map can show its position. */
export interface ViewedImage {
  layer: LayerName;
  id: string;
  url: string | null;
  title: string;
  meta: string;
  /** Degrees clockwise from north the capture faces, when known. */
  facing: number | null;
  /** What a detector saw, drawn over the image when boxes are on. */
  seen?: SeenBox[];
}

/** The imagery viewer beside or below the map: one image at a time, from any tab. */
export const useViewerStore = defineStore('viewer', () => {
  const map = useMapStore();
  const item = ref<ViewedImage | null>(null);
  /** Detector boxes over the image (on until turned off; kept from image to image). */
  const showBoxes = ref(true);

  /** Shows the image and selects its feature, so the map marks where it was taken. */
  function open(v: ViewedImage): void {
    item.value = v;
    map.select(v.layer, v.id, 'list');
  }
  function close(): void {
    item.value = null;
  }

  function toggleBoxes(): void {
    showBoxes.value = !showBoxes.value;
  }

  return { item: computed(() => item.value), showBoxes: computed(() => showBoxes.value), open, close, toggleBoxes };
});
