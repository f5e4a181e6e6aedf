import { defineStore } from 'pinia';
import { readonly, ref, shallowRef } from 'vue';
import type { MethodOutput } from '../../../shared/rpc/contract';
import type { VerifyReport } from '../../../shared/rpc/methods/evidence';
import { useServices } from '../services';
import { useGuardedCall } from './guardedCall';

/** Evidence bundles: making one of a cached result, and checking one. */
export const useEvidenceStore = defineStore('evidence', () => {
  const { evidence } = useServices();
  const made = shallowRef<MethodOutput<'evidence.create'> | null>(null);
  const report = shallowRef<VerifyReport | null>(null);
  const fingerprint = ref<string | null>(null);
  const { error, busy, guarded } = useGuardedCall();

  /** Faces in the bundle's images are hidden unless `blurFaces` is false; vehicles too with `blurVehicles`. */
  async function create(queryId: number, blurFaces = true, blurVehicles = false): Promise<void> {
    made.value = await guarded(() => evidence.create(queryId, blurFaces, blurVehicles));
  }
  async function verify(input: { path: string } | { dataBase64: string }): Promise<void> {
    report.value = null;
    report.value = await guarded(() => evidence.verify(input));
  }
  async function loadKey(): Promise<void> {
    const k = await guarded(() => evidence.key());
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
