import { computed, readonly, ref, watch } from 'vue';
import type { RpcErrorBody, Result } from '../../../shared/rpc/errors';
import { isConnectionError, type ConnectionState } from '../lib/connection';
import { newRunId, type FeatureCollectionLike } from '../lib/results';
import { panel, type LayerPanelId, type RunPanelId } from '../panels/registry';
import type { RunService } from '../services/runs';

/**
 * What a run needs of the app, handed in by the store that owns it (this file imports no
 * store: stores use it, not the other way round).
 */
export interface RunDeps {
  runs: Pick<RunService, 'cancel'>;
  app: {
    readonly connectionState: ConnectionState;
    runStarted(): void;
    runEnded(): void;
    report(action: string, error: RpcErrorBody | null): void;
  };
  /** Puts a collection on a panel's map layer (the map store's show). */
  show(layer: LayerPanelId, collection: FeatureCollectionLike | null, fit?: boolean): void;
}

/**
 * One cancellable service run of a panel: a run id while pending, the error to show in the
 * panel, the outcome reported to the app (status bar, connection state), results on the map.
 * What the status bar calls it, how it is cancelled and its map layer come from the panel's
 * descriptor. Called inside a setup store, which owns the state it returns.
 */
export function useRun(id: RunPanelId, deps: RunDeps) {
  const { action, cancelMethod } = panel(id).run!;
  const runId = ref<string | null>(null);
  const error = ref<RpcErrorBody | null>(null);
  const busy = computed(() => runId.value !== null);
  // "Offline" said by a run is stale once the connection is back: it would contradict the top bar.
  watch(
    () => deps.app.connectionState,
    (s) => {
      if ((s === 'online' || s === 'degraded') && error.value && isConnectionError(error.value.code)) error.value = null;
    },
  );

  /**
   * Runs `call` under a fresh run id unless one is pending. Resolves to the value, or null when
   * the call failed (the error is kept) or `check` found the answer unusable.
   */
  async function run<T>(call: (runId: string) => Promise<Result<T>>, check?: (value: T) => RpcErrorBody | null): Promise<T | null> {
    if (busy.value) return null;
    const rid = newRunId();
    runId.value = rid;
    error.value = null;
    deps.app.runStarted();
    try {
      const r = await call(rid);
      deps.app.report(action, r.ok ? null : r.error);
      const problem = r.ok ? (check?.(r.value) ?? null) : r.error;
      if (problem) {
        error.value = problem;
        return null;
      }
      return r.ok ? r.value : null;
    } finally {
      deps.app.runEnded();
      if (runId.value === rid) runId.value = null;
    }
  }

  /** Cancels the pending run, if any; it then ends with CANCELLED. */
  async function cancel(): Promise<void> {
    if (runId.value) await deps.runs.cancel(cancelMethod, runId.value);
  }

  const show = (collection: FeatureCollectionLike | null, fit = true) => deps.show(id, collection, fit);
  const clearError = () => {
    error.value = null;
  };

  return { busy, error: readonly(error), run, cancel, show, clearError };
}
