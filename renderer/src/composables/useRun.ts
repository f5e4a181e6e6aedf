import { computed, readonly, ref, watch } from 'vue';
import type { RpcErrorBody, Result } from '../../../shared/rpc/errors';
import { useRpc } from '../api/rpc';
import { isConnectionError } from '../lib/connection';
import { newRunId, type FeatureCollectionLike } from '../lib/results';
import type { LayerName } from '../map/layers';
import { useAppStore } from '../stores/app';
import { useMapStore } from '../stores/map';

export interface RunOptions {
  /** What the status bar calls the action ("Ask", "Imagery search"). */
  action: string;
  /** The operation's own cancel method. */
  cancelMethod: 'compute.cancel' | 'stream.cancel' | 'imagery.cancel';
  /** The map layer its results go to. */
  layer: LayerName;
}

/**
 * One cancellable service run of a tab: a run id while pending, the error to show in the
 * panel, the outcome reported to the app (status bar, connection state), results on the map.
 * Called inside a setup store, which owns the state it returns.
 */
export function useRun(opts: RunOptions) {
  const rpc = useRpc();
  const app = useAppStore();
  const map = useMapStore();
  const runId = ref<string | null>(null);
  const error = ref<RpcErrorBody | null>(null);
  const busy = computed(() => runId.value !== null);
  // "Offline" said by a run is stale once the connection is back: it would contradict the top bar.
  watch(
    () => app.connectionState,
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
    const id = newRunId();
    runId.value = id;
    error.value = null;
    app.runStarted();
    try {
      const r = await call(id);
      app.report(opts.action, r.ok ? null : r.error);
      const problem = r.ok ? (check?.(r.value) ?? null) : r.error;
      if (problem) {
        error.value = problem;
        return null;
      }
      return r.ok ? r.value : null;
    } finally {
      app.runEnded();
      if (runId.value === id) runId.value = null;
    }
  }

  /** Cancels the pending run, if any; it then ends with CANCELLED. */
  async function cancel(): Promise<void> {
    if (runId.value) await rpc.call(opts.cancelMethod, { runId: runId.value });
  }

  const show = (collection: FeatureCollectionLike | null) => map.show(opts.layer, collection);
  const clearError = () => {
    error.value = null;
  };

  return { busy, error: readonly(error), run, cancel, show, clearError };
}
