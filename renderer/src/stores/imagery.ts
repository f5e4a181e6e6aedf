import { defineStore } from 'pinia';
import { computed, readonly, ref, shallowRef } from 'vue';
import type { RpcErrorBody } from '../../../shared/rpc/errors';
import type { ImageryResponseSuccess } from '../../../shared/service/imagery';
import { useRpc } from '../api/rpc';
import { imageryCollection, imageryRows, newRunId } from '../lib/results';
import { useAppStore } from './app';
import { useMapStore } from './map';

/** Choices of results per page (the bundled service allows up to 100). */
export const PAGE_SIZES = [6, 12, 24, 48] as const;

/** The Imagery tab: capture metadata search with paging. */
export const useImageryStore = defineStore('imagery', () => {
  const rpc = useRpc();
  const app = useAppStore();
  const map = useMapStore();

  const query = ref('');
  const pageSize = ref<number>(12);
  const lastQuery = ref('');
  const runId = ref<string | null>(null);
  const error = ref<RpcErrorBody | null>(null);
  const response = shallowRef<ImageryResponseSuccess | null>(null);
  const viewing = ref<string | null>(null);

  const busy = computed(() => runId.value !== null);
  const rows = computed(() => imageryRows(response.value?.data ?? []));
  const page = computed(() => response.value?.page ?? 0);
  const pageTotal = computed(() => response.value?.pageTotal ?? 0);

  async function search(pageNo = 1): Promise<void> {
    const text = (pageNo === 1 ? query.value : lastQuery.value).trim();
    if (!text || busy.value) return;
    const id = newRunId();
    runId.value = id;
    error.value = null;
    try {
      const r = await rpc.call('imagery.search', { request: { query: text, limit: pageSize.value, page: pageNo }, runId: id });
      app.report('Imagery search', r.ok ? null : r.error);
      if (!r.ok) {
        error.value = r.error;
        return;
      }
      if (!r.value.response.isSuccess) {
        error.value = { code: 'HTTP', message: 'The imagery search reported a failure (isSuccess false)' };
        return;
      }
      lastQuery.value = text;
      response.value = r.value.response;
      map.show('imagery', imageryCollection(r.value.response.data));
    } finally {
      if (runId.value === id) runId.value = null;
    }
  }

  async function cancel(): Promise<void> {
    if (runId.value) await rpc.call('compute.cancel', { runId: runId.value });
  }

  const record = (id: string) => response.value?.data.find((r) => r.id === id) ?? null;

  return {
    query,
    pageSize,
    error: readonly(error),
    response: computed(() => response.value),
    viewing,
    busy,
    rows,
    page,
    pageTotal,
    search,
    cancel,
    record,
  };
});
