import { defineStore } from 'pinia';
import { computed, ref } from 'vue';
import type { RpcErrorBody } from '../../../shared/rpc/errors';
import type { CacheStats } from '../../../shared/rpc/methods/cache';
import { useServices } from '../services';

/** The offline cache's size for Settings, and compacting it. */
export const useCacheInfoStore = defineStore('cacheInfo', () => {
  const { cache } = useServices();
  const stats = ref<CacheStats | null>(null);
  const error = ref<RpcErrorBody | null>(null);
  const compacting = ref(false);
  /** Bytes freed by the last compaction, when one ran. */
  const freed = ref<number | null>(null);

  async function load(): Promise<void> {
    const r = await cache.stats();
    if (r.ok) {
      stats.value = r.value;
      error.value = null;
    } else error.value = r.error;
  }

  async function compact(): Promise<void> {
    if (compacting.value) return;
    compacting.value = true;
    try {
      const r = await cache.compact();
      if (!r.ok) {
        error.value = r.error;
        return;
      }
      freed.value = Math.max(0, r.value.bytesBefore - r.value.bytesAfter);
      await load();
    } finally {
      compacting.value = false;
    }
  }

  /** Database and write-ahead log together: what the cache takes on disk. */
  const totalBytes = computed(() => (stats.value ? stats.value.dbBytes + stats.value.walBytes : null));

  return { stats: computed(() => stats.value), error: computed(() => error.value), compacting: computed(() => compacting.value), freed: computed(() => freed.value), totalBytes, load, compact };
});
