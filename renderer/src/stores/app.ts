import { defineStore } from 'pinia';
import { computed, readonly, ref } from 'vue';
import type { AppInfo, ConnectionInfo } from '../../../shared/rpc/methods/app';
import type { RpcErrorBody } from '../../../shared/rpc/errors';
import { useRpc } from '../api/rpc';

export const useAppStore = defineStore('app', () => {
  const rpc = useRpc();
  const info = ref<AppInfo | null>(null);
  const connection = ref<ConnectionInfo | null>(null);
  const error = ref<RpcErrorBody | null>(null);
  const loading = ref(false);

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

  rpc.on('connection.changed', (c) => {
    connection.value = c;
  });

  return {
    info: readonly(info),
    connection: readonly(connection),
    error: readonly(error),
    loading: readonly(loading),
    versionText,
    load,
  };
});
