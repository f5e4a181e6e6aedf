import { defineStore } from 'pinia';
import { computed, readonly, ref } from 'vue';
import { useServices } from '../services';
import { useLayersStore } from './layers';

/**
 * The street basemap made from the OSM extracts among the data layers: where they are, a key
 * that changes when they do (the map then reads its tiles again), and the tiles' bytes.
 */
export const useStreetBasemapStore = defineStore('streetBasemap', () => {
  const { basemap } = useServices();
  const layers = useLayersStore();
  const extracts = computed(() => layers.layers.filter((l) => l.format === 'osm-pbf' || l.format === 'osm-xml'));
  const bboxes = computed(() => extracts.value.flatMap((l) => (l.bbox ? [[...l.bbox]] : [])));
  const key = computed(() => extracts.value.map((l) => `${l.id}@${l.createdAt}`).join(','));
  /** The extracts' names, for the layer switcher. */
  const names = computed(() => extracts.value.map((l) => l.name));
  /** Whether the person shows it (the layer switcher). */
  const shown = ref(true);
  function setShown(on: boolean): void {
    shown.value = on;
  }

  const load = (z: number, x: number, y: number): Promise<string | null> => basemap.streetTile(z, x, y);

  /** Reads the layer list once if nothing has yet (the map needs it before Settings is opened). */
  function ensureListed(): void {
    if (!layers.loaded) void layers.load();
  }

  return { bboxes, key, names, shown: readonly(shown), setShown, load, ensureListed };
});
