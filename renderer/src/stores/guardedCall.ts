import { ref } from 'vue';
import type { RpcErrorBody } from '../../../shared/rpc/errors';

type Outcome<T> = { ok: true; value: T } | { ok: false; error: RpcErrorBody };

/** A store's busy flag and last error around its RPC calls: one call's error replaces the last. */
export function useGuardedCall() {
  const error = ref<RpcErrorBody | null>(null);
  const busy = ref(false);
  async function guarded<T>(fn: () => Promise<Outcome<T>>): Promise<T | null> {
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
  return { error, busy, guarded };
}
