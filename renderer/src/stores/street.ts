import { defineStore } from 'pinia';
import { computed, readonly, ref, shallowRef } from 'vue';
import type { StreamRequestInput, StreamResponseSuccess } from '../../../shared/service/stream';
import { useRun } from '../composables/useRun';
import { collectionOf, observationRows } from '../lib/results';
import { useServices } from '../services';
import { useAppStore } from './app';
import { useMapStore } from './map';

/** The Street-level tab: stream observations near a place or the map centre. */
export const useStreetStore = defineStore('street', () => {
  const { runs } = useServices();
  const map = useMapStore();
  const runner = useRun('street', { runs, app: useAppStore(), show: map.show });

  const query = ref('');
  const year = ref<number | null>(null);
  const limit = ref<number | null>(null);
  const regionId = ref('');
  const useCentre = ref(false);
  const response = shallowRef<StreamResponseSuccess | null>(null);
  const usedCentre = ref<[number, number] | null>(null);

  const features = computed(() => response.value?.data.geojson.features ?? []);
  const rows = computed(() => observationRows(features.value));

  async function run(): Promise<void> {
    const text = query.value.trim();
    if (!text) return;
    const request: StreamRequestInput = { query: text };
    if (year.value) request.year = year.value;
    if (typeof limit.value === 'number' && Number.isFinite(limit.value)) request.limit = limit.value;
    if (regionId.value.trim()) request.region_id = regionId.value.trim();
    const centre = useCentre.value ? map.centre() : null;
    if (centre) request.position = { points: [{ longitude: centre[0], latitude: centre[1] }] };
    const value = await runner.run(
      (runId) => runs.stream({ request, runId }),
      (v) => (v.response.isSuccess ? null : { code: 'HTTP', message: 'The stream operation reported a failure (isSuccess false)' }),
    );
    if (!value?.response.isSuccess) return;
    usedCentre.value = centre;
    response.value = value.response;
    runner.show(collectionOf(value.response.data.geojson.features));
  }

  return {
    query,
    year,
    limit,
    regionId,
    useCentre,
    error: runner.error,
    response: computed(() => response.value),
    usedCentre: readonly(usedCentre),
    busy: runner.busy,
    rows,
    run,
    cancel: runner.cancel,
  };
});
