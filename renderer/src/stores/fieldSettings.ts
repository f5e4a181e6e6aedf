import { defineStore } from 'pinia';
import { readonly, ref } from 'vue';
import type { CoordFormat } from '../../../shared/coords';
import type { RpcErrorBody } from '../../../shared/rpc/errors';
import { useServices } from '../services';

/** Field preferences kept by the Node side (the default coordinate notation). */
export const useFieldSettingsStore = defineStore('fieldSettings', () => {
  const { settings } = useServices();
  const coordinateFormat = ref<CoordFormat>('dd');
  const error = ref<RpcErrorBody | null>(null);
  let loaded: Promise<void> | null = null;

  function load(): Promise<void> {
    loaded ??= settings.get().then((r) => {
      if (r.ok) coordinateFormat.value = r.value.coordinateFormat;
      else error.value = r.error;
    });
    return loaded;
  }

  async function setCoordinateFormat(format: CoordFormat): Promise<void> {
    const r = await settings.save({ coordinateFormat: format });
    if (r.ok) coordinateFormat.value = r.value.coordinateFormat;
    else error.value = r.error;
  }

  return { coordinateFormat: readonly(coordinateFormat), error: readonly(error), load, setCoordinateFormat };
});
