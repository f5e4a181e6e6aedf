import { defineStore } from 'pinia';
import { readonly, ref, shallowRef } from 'vue';
import type { MethodOutput } from '../../../shared/rpc/contract';
import type { RpcErrorBody } from '../../../shared/rpc/errors';
import type { ExportFormat } from '../../../shared/rpc/methods/export';
import { useServices } from '../services';
import { diffItems } from '../lib/diffItems';
import { useMapStore } from './map';
import { useUnitsStore } from './units';

/** Two History entries of one question compared: the table, the map, and the export as a layer. */
export const useCompareStore = defineStore('compare', () => {
  const { history, exports } = useServices();
  const map = useMapStore();
  const units = useUnitsStore();
  const result = shallowRef<MethodOutput<'history.compare'> | null>(null);
  const error = ref<RpcErrorBody | null>(null);
  const exported = ref<{ fileName: string; downloadPath: string | null } | null>(null);

  async function compare(oldId: number, newId: number, toleranceMetres: number): Promise<void> {
    exported.value = null;
    const r = await history.compare(oldId, newId, toleranceMetres);
    if (!r.ok) {
      error.value = r.error;
      result.value = null;
      map.showDiff(null);
      return;
    }
    error.value = null;
    result.value = r.value;
    map.showDiff({ oldId: r.value.oldId, newId: r.value.newId, items: diffItems(r.value) });
  }

  /** Starts the export of the shown comparison; the browser host offers it as a download. */
  async function exportAs(format: ExportFormat): Promise<void> {
    const c = result.value;
    if (!c) return;
    const r = await exports.start({
      selection: { queryIds: [String(c.oldId), String(c.newId)], compare: { toleranceMetres: c.toleranceMetres } },
      format,
      units: units.units,
    });
    if (r.ok) exported.value = { fileName: r.value.fileName, downloadPath: r.value.downloadPath };
    else error.value = r.error;
  }

  return { result: readonly(result), error: readonly(error), exported: readonly(exported), compare, exportAs };
});
