import { defineStore } from 'pinia';
import { computed, readonly, ref, shallowRef } from 'vue';
import type { Attachment } from '../../../shared/rpc/methods/compute';
import { COMPUTE_LIMIT, type ComputeRequestInput, type ComputeResponse, type NamedCoordinate } from '../../../shared/service/compute';
import { useRpc } from '../api/rpc';
import { useRun } from '../composables/useRun';
import { collectionOf, computeRows } from '../lib/results';
import { useQuestionQueueStore } from './questionQueue';

/** One question of the current thread: a first question and its follow-ups. */
export interface ThreadStep {
  queryId: number;
  responseId: string;
  query: string;
  numberMatched: number;
  numberReturned: number;
}

export interface AttachedFile {
  name: string;
  size: number;
  contentType: string;
  dataBase64: string;
}

/** The Ask tab: compute questions, their answer and results, and the follow-up thread. */
export const useAskStore = defineStore('ask', () => {
  const rpc = useRpc();
  const runner = useRun({ action: 'Ask', cancelMethod: 'compute.cancel', layer: 'ask' });

  const query = ref('');
  const limit = ref<number>(COMPUTE_LIMIT.default);
  const writtenAnswer = ref(true);
  const measurement = ref('');
  const attachments = ref<AttachedFile[]>([]);
  /** Named positions sent as request `coordinates`, so a question can say "near camp". */
  const coordinates = ref<NamedCoordinate[]>([]);

  const response = shallowRef<ComputeResponse | null>(null);
  const queryId = ref<number | null>(null);
  const thread = ref<ThreadStep[]>([]);

  const busy = runner.busy;
  const rows = computed(() => computeRows(response.value?.results.features ?? []));
  const canFollowUp = computed(() => response.value !== null && !busy.value);

  function attach(files: AttachedFile[]): void {
    const names = new Set(files.map((f) => f.name));
    attachments.value = [...attachments.value.filter((a) => !names.has(a.name)), ...files];
  }
  function detach(name: string): void {
    attachments.value = attachments.value.filter((a) => a.name !== name);
  }
  function setCoordinate(c: NamedCoordinate): void {
    coordinates.value = [...coordinates.value.filter((x) => x.name !== c.name), c];
  }
  function removeCoordinate(name: string): void {
    coordinates.value = coordinates.value.filter((x) => x.name !== name);
  }

  /** Runs the question; a follow-up continues the last response (search_id). */
  async function run(followUp = false): Promise<void> {
    const text = query.value.trim();
    if (!text || busy.value) return;
    const request: ComputeRequestInput = { query: text, limit: limit.value, answer: writtenAnswer.value };
    if (measurement.value.trim()) request.measurement = measurement.value.trim();
    if (followUp && response.value) request.search_id = response.value.id;
    if (coordinates.value.length) request.coordinates = coordinates.value.map((c) => ({ ...c }));
    const files: Attachment[] = attachments.value.map((a) => ({
      field: 'files',
      name: a.name,
      contentType: a.contentType,
      dataBase64: a.dataBase64,
    }));
    const value = await runner.run((runId) =>
      rpc.call('compute.run', { request, runId, ...(files.length ? { attachments: files } : {}) }),
    );
    if (!value) {
      // Asked with the connection down: kept, and run when it returns (not for follow-ups, whose
      // search_id would continue a result that may be gone by then).
      if (runner.error.value?.code === 'OFFLINE' && !followUp) await useQuestionQueueStore().add(request, files);
      return;
    }
    const res = value.response;
    response.value = res;
    queryId.value = value.queryId;
    const step: ThreadStep = {
      queryId: value.queryId,
      responseId: res.id,
      query: text,
      numberMatched: res.results.numberMatched,
      numberReturned: res.results.numberReturned,
    };
    thread.value = followUp ? [...thread.value, step] : [step];
    runner.show(collectionOf(res.results.features));
    if (followUp) query.value = '';
  }

  /** Starts over: no thread, no results on the map. */
  function reset(): void {
    response.value = null;
    queryId.value = null;
    thread.value = [];
    runner.clearError();
    runner.show(null);
  }

  return {
    query,
    limit,
    writtenAnswer,
    measurement,
    attachments: readonly(attachments),
    coordinates: readonly(coordinates),
    error: runner.error,
    response: computed(() => response.value),
    queryId: readonly(queryId),
    thread: readonly(thread),
    busy,
    rows,
    canFollowUp,
    attach,
    detach,
    setCoordinate,
    removeCoordinate,
    run,
    cancel: runner.cancel,
    reset,
  };
});
