import { defineStore } from 'pinia';
import { readonly, ref, shallowRef } from 'vue';
import { useRpc } from '../api/rpc';

/** Basemap tiles opened from area packs: what the cache holds, whether the user shows them, and their bytes. */
export const usePackedTilesStore = defineStore('packedTiles', () => {
  const rpc = useRpc();
  const held = shallowRef<{ count: number; maxZoom: number | null }>({ count: 0, maxZoom: null });
  /** Bumped on each refresh that finds tiles, so the map reads newly opened ones. */
  const seq = ref(0);
  const shown = ref(true);

  /** Asks the cache what pack tiles it holds (at start and after a pack is opened). */
  async function refresh(): Promise<void> {
    const r = await rpc.call('cache.tileCount', {});
    if (!r.ok) return;
    held.value = r.value;
    if (r.value.count > 0) seq.value++;
  }

  async function load(z: number, x: number, y: number): Promise<string | null> {
    const r = await rpc.call('cache.tile', { z, x, y });
    if (!r.ok) throw new Error(r.error.message);
    return r.value.dataBase64;
  }

  function setShown(on: boolean): void {
    shown.value = on;
  }

  return { held: readonly(held), seq: readonly(seq), shown: readonly(shown), refresh, load, setShown };
});
