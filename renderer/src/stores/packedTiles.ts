import { defineStore } from 'pinia';
import { readonly, ref, shallowRef } from 'vue';
import { useServices } from '../services';

/** Basemap tiles opened from area packs: what the cache holds, whether the user shows them, and their bytes. */
export const usePackedTilesStore = defineStore('packedTiles', () => {
  const { basemap } = useServices();
  const held = shallowRef<{ count: number; maxZoom: number | null }>({ count: 0, maxZoom: null });
  /** Bumped on each refresh that finds tiles, so the map reads newly opened ones. */
  const seq = ref(0);
  const shown = ref(true);

  /** Asks the cache what pack tiles it holds (at start and after a pack is opened). */
  async function refresh(): Promise<void> {
    const found = await basemap.packedCount();
    if (!found) return;
    held.value = found;
    if (found.count > 0) seq.value++;
  }

  const load = (z: number, x: number, y: number): Promise<string | null> => basemap.packedTile(z, x, y);

  function setShown(on: boolean): void {
    shown.value = on;
  }

  return { held: readonly(held), seq: readonly(seq), shown: readonly(shown), refresh, load, setShown };
});
