import { defineStore } from 'pinia';
import { computed, readonly, ref, shallowRef, watch } from 'vue';
import type { InlineAttachment } from '../../../shared/rpc/methods/compute';
import { COMPUTE_LIMIT, type ComputeRequestInput, type ComputeResponse } from '../../../shared/service/compute';
import { readingOfWarnings, UnreadRefusal } from '../../../shared/service/reading';
import { useRun } from '../composables/useRun';
import { collectionOf, computeRows } from '../lib/results';
import { askedColumns, extraColumns, figureColumns, tableRows } from '../lib/table';
import { useServices } from '../services';
import { useAppStore } from './app';
import { useAttachmentsStore } from './attachments';
import { useComposerStore } from './composer';
import { useMapStore } from './map';
import { useQuestionQueueStore } from './questionQueue';

/** One question of the current thread: a first question and its follow-ups. */
export interface ThreadStep {
  queryId: number;
  responseId: string;
  query: string;
  numberMatched: number;
  numberReturned: number;
}

/**
 * The shown answer once a later question was refused or failed: it no longer answers what was last
 * asked, so it is greyed (its map layer taken off) until the person goes back to it.
 */
export interface StaleAnswer {
  /** The question the shown answer belongs to. */
  answered: string;
  /** The question asked since, which got no answer. */
  asked: string;
  outcome: 'refused' | 'failed';
}

/** The Compute tab: questions, their answer and results, and the follow-up thread. */
export const useAskStore = defineStore('ask', () => {
  const { runs, uploads } = useServices();
  const composer = useComposerStore();
  const attachments = useAttachmentsStore();
  const map = useMapStore();
  const runner = useRun('ask', { runs, app: useAppStore(), show: map.show });

  const query = ref('');
  const limit = ref<number>(COMPUTE_LIMIT.default);
  const writtenAnswer = ref(true);
  const measurement = ref('');
  /** The next Run continues the shown result ("Ask a follow-up"). */
  const followingUp = ref(false);

  const response = shallowRef<ComputeResponse | null>(null);
  const queryId = ref<number | null>(null);
  const thread = ref<ThreadStep[]>([]);
  const stale = ref<StaleAnswer | null>(null);
  /** What produced the shown response, so it can be asked again with a higher limit. */
  let last: { request: ComputeRequestInput; files: InlineAttachment[]; followUp: boolean } | null = null;
  /** What the last run asked, answered or not: a refused question is asked again from it. */
  let attempt: { request: ComputeRequestInput; files: InlineAttachment[]; followUp: boolean } | null = null;

  const busy = runner.busy;
  const rows = computed(() => computeRows(response.value?.results.features ?? []));
  const canFollowUp = computed(() => response.value !== null && !busy.value);
  /** How the service read the shown question, when its answer says so. */
  const reading = computed(() => (response.value ? readingOfWarnings(response.value.warnings) : null));
  /** What the last question left unread, when the service refused it for that. */
  const refusal = computed(() => {
    const d = runner.error.value?.details as { refusal?: unknown } | undefined;
    const r = UnreadRefusal.safeParse(d?.refusal);
    return r.success ? r.data : null;
  });
  /** The columns of the figure the question asked about (an ordered column, a count per group, a measured area). */
  const asked = computed(() => {
    const table = tableRows(response.value?.results.features ?? []);
    const columns = askedColumns(reading.value, extraColumns(table));
    return { columns, figure: figureColumns(columns, table) };
  });
  // The map labels each answer with its figure too ("Annecy store · 340", "France · 2").
  watch(
    () => asked.value.figure,
    (figure) => map.setFigure('ask', figure),
    { immediate: true },
  );
  /** More matched than were returned, and the interface allows asking for more. */
  const canRaiseLimit = computed(() => {
    const r = response.value?.results;
    return !!r && r.numberMatched > r.numberReturned && r.numberReturned < COMPUTE_LIMIT.max && !busy.value;
  });

  async function send(request: ComputeRequestInput, files: InlineAttachment[], followUp: boolean, replaceLast: boolean): Promise<boolean> {
    attempt = { request, files, followUp };
    const value = await runner.run((runId) =>
      files.length
        ? // Large files go ahead in chunks; the run removes them on the Node side whichever way it ends.
          uploads.forCall(files).then((sent) => (sent.ok ? runs.compute({ request, runId, attachments: sent.value }) : sent))
        : runs.compute({ request, runId }),
    );
    if (!value) {
      markStale(request.query);
      // Asked with the connection down: kept, and run when it returns (not for follow-ups, whose
      // search_id would continue a result that may be gone by then).
      if (runner.error.value?.code === 'OFFLINE' && !followUp) await useQuestionQueueStore().add(request, files);
      return false;
    }
    const res = value.response;
    stale.value = null;
    response.value = res;
    queryId.value = value.queryId;
    last = { request, files, followUp };
    const step: ThreadStep = {
      queryId: value.queryId,
      responseId: res.id,
      query: request.query,
      numberMatched: res.results.numberMatched,
      numberReturned: res.results.numberReturned,
    };
    const kept = replaceLast ? thread.value.slice(0, -1) : followUp ? thread.value : [];
    thread.value = [...kept, step];
    runner.show(collectionOf(res.results.features));
    return true;
  }

  /** A question that got no answer greys the one shown; a cancelled one leaves it as it was. */
  function markStale(asked: string): void {
    const code = runner.error.value?.code;
    if (!response.value || !last || !code || code === 'CANCELLED') return;
    stale.value = { answered: last.request.query, asked, outcome: refusal.value ? 'refused' : 'failed' };
    runner.show(null);
  }

  /** Back to the shown answer after a refused or failed question: current again, on the map again. */
  function restore(): void {
    if (!stale.value || !response.value) return;
    stale.value = null;
    runner.clearError();
    runner.show(collectionOf(response.value.results.features), false);
  }

  /** Runs the question; a follow-up continues the last response (search_id). */
  async function run(followUp = false): Promise<void> {
    const text = query.value.trim();
    if (!text || busy.value) return;
    const request: ComputeRequestInput = { query: text, limit: limit.value, answer: writtenAnswer.value, ...composer.request() };
    if (measurement.value.trim()) request.measurement = measurement.value.trim();
    // The map's extent, so "in the current view" and "here" mean what the user sees.
    const view = map.extent();
    if (view) request.view_bbox = view;
    const continuing = (followUp || followingUp.value) && !!response.value;
    if (continuing) request.search_id = response.value!.id;
    const files = attachments.forRequest();
    const ok = await send(request, files, continuing, false);
    if (ok && files.length) attachments.answered(text);
    if (ok) followingUp.value = false;
    if (ok && continuing) query.value = '';
  }

  /**
   * Asks the shown question again for up to `to` results (default: all matched, within the
   * interface's maximum); the thread keeps one step for it.
   */
  async function raiseLimit(to?: number): Promise<void> {
    const r = response.value?.results;
    if (!last || !r || busy.value) return;
    const next = Math.min(COMPUTE_LIMIT.max, Math.max(to ?? r.numberMatched, r.numberReturned + 1));
    limit.value = next;
    await send({ ...last.request, limit: next }, last.files, last.followUp, true);
  }

  /**
   * Asks a question written from a reading (chips changed, or a refusal's reading of the rest) with
   * everything else of the question it came from: files, coordinates, limit, the result it continued.
   * From the shown answer's chips it takes that answer's place in the thread.
   */
  async function rerun(text: string, from: 'shown' | 'refused'): Promise<void> {
    const base = from === 'shown' ? last : attempt;
    if (!base || busy.value || !text.trim()) return;
    query.value = text;
    await send({ ...base.request, query: text }, base.files, base.followUp, from === 'shown');
  }

  /** "Ask a follow-up": the next question continues the shown result (its id as search_id). */
  function followUp(on = true): void {
    followingUp.value = on && response.value !== null;
  }

  /** Starts over: no thread, no results on the map. */
  function reset(): void {
    response.value = null;
    queryId.value = null;
    thread.value = [];
    stale.value = null;
    last = null;
    attempt = null;
    followingUp.value = false;
    runner.clearError();
    runner.show(null);
  }

  return {
    query,
    limit,
    writtenAnswer,
    measurement,
    followingUp: readonly(followingUp),
    followUp,
    error: runner.error,
    response: computed(() => response.value),
    queryId: readonly(queryId),
    thread: readonly(thread),
    busy,
    rows,
    canFollowUp,
    canRaiseLimit,
    reading,
    askedColumns: computed(() => asked.value.columns),
    refusal,
    stale: readonly(stale),
    restore,
    rerun,
    run,
    raiseLimit,
    cancel: runner.cancel,
    reset,
  };
});
