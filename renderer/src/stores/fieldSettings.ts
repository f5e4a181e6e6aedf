import { defineStore } from 'pinia';
import { readonly, ref } from 'vue';
import type { CoordFormat } from '../../../shared/coords';
import type { RpcErrorBody } from '../../../shared/rpc/errors';
import { useRpc } from '../api/rpc';

/** Field preferences kept by the Node side (the default coordinate notation). */
export const useFieldSettingsStore = defineStore('fieldSettings', () => {
  const rpc = useRpc();
  const coordinateFormat = ref<CoordFormat>('dd');
  const error = ref<RpcErrorBody | null>(null);
  let loaded: Promise<void> | null = null;

  function load(): Promise<void> {
    loaded ??= rpc.call('settings.get', {}).then((r) => {
      if (r.ok) coordinateFormat.value = r.value.coordinateFormat;
      else error.value = r.error;
    });
    return loaded;
  }

  async function setCoordinateFormat(format: CoordFormat): Promise<void> {
    const r = await rpc.call('settings.save', { coordinateFormat: format });
    if (r.ok) coordinateFormat.value = r.value.coordinateFormat;
    else error.value = r.error;
  }

  return { coordinateFormat: readonly(coordinateFormat), error: readonly(error), load, setCoordinateFormat };
});
