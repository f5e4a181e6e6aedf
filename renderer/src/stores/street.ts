import { defineStore } from 'pinia';
import { computed, readonly, ref, shallowRef } from 'vue';
import type { RpcErrorBody } from '../../../shared/rpc/errors';
import type { StreamRequestInput, StreamResponseSuccess } from '../../../shared/service/stream';
import { useRpc } from '../api/rpc';
import { collectionOf, newRunId, observationRows } from '../lib/results';
import { useAppStore } from './app';
import { useMapStore } from './map';

/** The Street-level tab: stream observations near a place or the map centre. */
export const useStreetStore = defineStore('street', () => {
  const rpc = useRpc();
  const app = useAppStore();
  const map = useMapStore();

  const query = ref('');
  const year = ref<number | null>(null);
  const useCentre = ref(false);
  const runId = ref<string | null>(null);
  const error = ref<RpcErrorBody | null>(null);
  const response = shallowRef<StreamResponseSuccess | null>(null);
  const usedCentre = ref<[number, number] | null>(null);

  const busy = computed(() => runId.value !== null);
  const features = computed(() => response.value?.data.geojson.features ?? []);
  const rows = computed(() => observationRows(features.value));

  async function run(): Promise<void> {
    const text = query.value.trim();
    if (!text || busy.value) return;
    const request: StreamRequestInput = { query: text };
    if (year.value) request.year = year.value;
    const centre = useCentre.value ? map.centre() : null;
    if (centre) request.position = { points: [{ longitude: centre[0], latitude: centre[1] }] };
    const id = newRunId();
    runId.value = id;
    error.value = null;
    try {
      const r = await rpc.call('stream.run', { request, runId: id });
      app.report('Street-level', r.ok ? null : r.error);
      if (!r.ok) {
        error.value = r.error;
        return;
      }
      if (!r.value.response.isSuccess) {
        error.value = { code: 'HTTP', message: 'The stream operation reported a failure (isSuccess false)' };
        return;
      }
      usedCentre.value = centre;
      response.value = r.value.response;
      map.show('street', collectionOf(r.value.response.data.geojson.features));
    } finally {
      if (runId.value === id) runId.value = null;
    }
  }

  async function cancel(): Promise<void> {
    if (runId.value) await rpc.call('compute.cancel', { runId: runId.value });
  }

  return {
    query,
    year,
    useCentre,
    error: readonly(error),
    response: computed(() => response.value),
    usedCentre: readonly(usedCentre),
    busy,
    rows,
    run,
    cancel,
  };
});
