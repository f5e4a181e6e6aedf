import { defineStore } from 'pinia';
import { computed, ref, shallowRef } from 'vue';
import type { ImageryResponseSuccess } from '../../../shared/service/imagery';
import { useRun } from '../composables/useRun';
import { imageryCollection, imageryRows } from '../lib/results';
import { useServices } from '../services';
import { useAppStore } from './app';
import { useMapStore } from './map';

/** Choices of results per page (the bundled service allows up to 100). */
export const PAGE_SIZES = [6, 12, 24, 48] as const;

/** The Imagery tab: capture metadata search with paging. */
export const useImageryStore = defineStore('imagery', () => {
  const { runs } = useServices();
  const runner = useRun('imagery', { runs, app: useAppStore(), show: useMapStore().show });

  const query = ref('');
  const pageSize = ref<number>(12);
  const lastQuery = ref('');
  const response = shallowRef<ImageryResponseSuccess | null>(null);

  const rows = computed(() => imageryRows(response.value?.data ?? []));
  const page = computed(() => response.value?.page ?? 0);
  const pageTotal = computed(() => response.value?.pageTotal ?? 0);

  async function search(pageNo = 1): Promise<void> {
    const text = (pageNo === 1 ? query.value : lastQuery.value).trim();
    if (!text) return;
    const value = await runner.run(
      (runId) => runs.imagery({ request: { query: text, limit: pageSize.value, page: pageNo }, runId }),
      (v) => (v.response.isSuccess ? null : { code: 'HTTP', message: 'The imagery search reported a failure (isSuccess false)' }),
    );
    if (!value?.response.isSuccess) return;
    lastQuery.value = text;
    response.value = value.response;
    runner.show(imageryCollection(value.response.data));
  }

  const record = (id: string) => response.value?.data.find((r) => r.id === id) ?? null;

  return {
    query,
    pageSize,
    error: runner.error,
    response: computed(() => response.value),
    busy: runner.busy,
    rows,
    page,
    pageTotal,
    search,
    cancel: runner.cancel,
    record,
  };
});
