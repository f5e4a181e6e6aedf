import { defineStore } from 'pinia';
import { readonly, ref, shallowRef } from 'vue';
import type { MethodOutput } from '../../../shared/rpc/contract';
import type { RpcErrorBody } from '../../../shared/rpc/errors';
import type { VerifyReport } from '../../../shared/rpc/methods/evidence';
import { useRpc } from '../api/rpc';

/** Evidence bundles: making one of a cached result, and checking one. */
export const useEvidenceStore = defineStore('evidence', () => {
  const rpc = useRpc();
  const made = shallowRef<MethodOutput<'evidence.create'> | null>(null);
  const report = shallowRef<VerifyReport | null>(null);
  const fingerprint = ref<string | null>(null);
  const error = ref<RpcErrorBody | null>(null);
  const busy = ref(false);

  async function guarded<T>(fn: () => Promise<{ ok: true; value: T } | { ok: false; error: RpcErrorBody }>): Promise<T | null> {
    busy.value = true;
    error.value = null;
    try {
      const r = await fn();
      if (r.ok) return r.value;
      error.value = r.error;
      return null;
    } finally {
      busy.value = false;
    }
  }

  async function create(queryId: number): Promise<void> {
    made.value = await guarded(() => rpc.call('evidence.create', { queryId }));
  }
  async function verify(input: { path: string } | { dataBase64: string }): Promise<void> {
    report.value = null;
    report.value = await guarded(() => rpc.call('evidence.verify', input));
  }
  async function loadKey(): Promise<void> {
    const k = await guarded(() => rpc.call('evidence.key', {}));
    fingerprint.value = k?.fingerprint ?? null;
  }

  return {
    made: readonly(made),
    report: readonly(report),
    fingerprint: readonly(fingerprint),
    error: readonly(error),
    busy: readonly(busy),
    create,
    verify,
    loadKey,
  };
});
