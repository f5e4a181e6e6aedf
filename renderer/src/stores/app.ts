import { defineStore } from 'pinia';
import { computed, readonly, ref } from 'vue';
import type { AppInfo, ConnectionInfo } from '../../../shared/rpc/methods/app';
import type { Connectivity } from '../../../shared/rpc/methods/compute';
import type { RpcErrorBody } from '../../../shared/rpc/errors';
import { useRpc } from '../api/rpc';

export const useAppStore = defineStore('app', () => {
  const rpc = useRpc();
  const info = ref<AppInfo | null>(null);
  const connection = ref<ConnectionInfo | null>(null);
  const error = ref<RpcErrorBody | null>(null);
  const loading = ref(false);
  /** Reachability of the active service; null until the first run or event says. */
  const connectivity = ref<Connectivity | null>(null);
  /** The last failure of any action, for the status bar. */
  const lastError = ref<{ error: RpcErrorBody; at: number; action: string } | null>(null);

  const versionText = computed(() => (info.value ? `${info.value.name} ${info.value.version}` : ''));

  async function load(): Promise<void> {
    loading.value = true;
    try {
      const [i, c] = await Promise.all([rpc.call('app.info', {}), rpc.call('connection.active', {})]);
      if (i.ok) info.value = i.value;
      else error.value = i.error;
      if (c.ok) connection.value = c.value;
      else error.value = c.error;
    } finally {
      loading.value = false;
    }
  }

  /**
   * Service calls report their outcome here: a success means the service answered; failures show
   * in the status bar, and OFFLINE marks it unreachable until the next event or success.
   */
  function report(action: string, error: RpcErrorBody | null): void {
    if (!error) {
      lastError.value = null;
      connectivity.value = { online: true, base: true, search: true, message: null };
      return;
    }
    if (error.code === 'CANCELLED') return;
    lastError.value = { error, at: Date.now(), action };
    if (error.code === 'OFFLINE')
      connectivity.value = { online: false, base: false, search: false, message: error.message };
  }

  function clearError(): void {
    lastError.value = null;
  }

  rpc.on('connection.changed', (c) => {
    connection.value = c;
    connectivity.value = null;
  });
  rpc.on('connectivity.changed', (c) => {
    connectivity.value = c;
  });

  return {
    info: readonly(info),
    connection: readonly(connection),
    error: readonly(error),
    loading: readonly(loading),
    connectivity: readonly(connectivity),
    lastError: readonly(lastError),
    versionText,
    load,
    report,
    clearError,
  };
});
