import { defineStore } from 'pinia';
import { readonly, ref } from 'vue';
import type { RpcErrorBody } from '../../../shared/rpc/errors';
import type { QuerySummary } from '../../../shared/rpc/methods/history';
import { useServices } from '../services';

export interface PlaceTimeFilter {
  text?: string;
  bbox?: [number, number, number, number];
  polygon?: [number, number][];
  from?: number;
  to?: number;
}

/** History searched by words, map extent, a drawn area and dates (R*Tree and FTS5 in the cache). */
export const useHistoryPlaceStore = defineStore('historyPlace', () => {
  const { history } = useServices();
  const items = ref<QuerySummary[]>([]);
  const hasMore = ref(false);
  const error = ref<RpcErrorBody | null>(null);
  const searched = ref(false);

  async function search(filter: PlaceTimeFilter): Promise<void> {
    const r = await history.list({ ...filter, limit: 100 });
    searched.value = true;
    if (!r.ok) {
      error.value = r.error;
      return;
    }
    error.value = null;
    items.value = r.value.items;
    hasMore.value = r.value.hasMore;
  }
  return { items: readonly(items), hasMore: readonly(hasMore), error: readonly(error), searched: readonly(searched), search };
});
