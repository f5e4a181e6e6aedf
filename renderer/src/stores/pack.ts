import { defineStore } from 'pinia';
import { computed, readonly, shallowRef } from 'vue';
import type { MethodOutput } from '../../../shared/rpc/contract';
import type { PackEstimate, PackProgressEvent, PackSelection } from '../../../shared/rpc/methods/pack';
import { useServices } from '../services';
import { useGuardedCall } from './guardedCall';

/** Offline area packs: estimate a selection, write it as a job (progress, cancel), open one. */
export const usePackStore = defineStore('pack', () => {
  const { pack, history } = useServices();
  const estimate = shallowRef<PackEstimate | null>(null);
  /** The selection the estimate is of: a changed selection needs a new estimate. */
  const estimated = shallowRef<PackSelection | null>(null);
  const job = shallowRef<PackProgressEvent | null>(null);
  /** The selection the job packs: a project made from the pack holds the same questions. */
  const packed = shallowRef<PackSelection | null>(null);
  const opened = shallowRef<MethodOutput<'pack.open'> | null>(null);
  const { error, busy, guarded } = useGuardedCall();
  const running = computed(() => job.value?.state === 'running');

  async function runEstimate(sel: PackSelection): Promise<void> {
    estimate.value = await guarded(() => pack.estimate(sel));
    estimated.value = estimate.value ? sel : null;
  }

  async function create(sel: PackSelection, path?: string): Promise<void> {
    if (running.value) return;
    const r = await guarded(() => pack.create({ selection: sel, ...(path ? { path } : {}) }));
    if (r) packed.value = sel;
    // Events may have come first; a job only starts as running when none did.
    if (r && job.value?.jobId !== r.jobId)
      job.value = { jobId: r.jobId, state: 'running', phase: 'results', done: 0, total: 0, path: r.path, bytes: null, contents: null, mediaMissing: null, error: null };
  }

  /**
   * The History entries a pack of this selection holds (the same area and dates, newest first):
   * the entries of a QGIS project made from it. At most 500, as an export takes.
   */
  async function entriesOf(sel: PackSelection): Promise<number[] | null> {
    const area = 'bbox' in sel.area ? { bbox: sel.area.bbox } : { polygon: sel.area.polygon };
    const r = await guarded(() =>
      history.list({
        ...area,
        ...(sel.from !== undefined ? { from: sel.from } : {}),
        ...(sel.to !== undefined ? { to: sel.to } : {}),
        limit: 500,
        offset: 0,
      }),
    );
    return r ? r.items.map((q) => q.id) : null;
  }

  async function cancel(): Promise<void> {
    if (job.value?.state === 'running') await pack.cancel(job.value.jobId);
  }

  async function open(path: string): Promise<void> {
    opened.value = null;
    opened.value = await guarded(() => pack.open(path));
  }

  pack.onProgress((p) => {
    if (job.value && job.value.jobId !== p.jobId && job.value.state === 'running') return;
    job.value = p;
    if (p.state === 'failed' && p.error) error.value = p.error;
  });

  return {
    estimate: readonly(estimate),
    estimated: readonly(estimated),
    job: readonly(job),
    packed: computed(() => packed.value),
    entriesOf,
    opened: readonly(opened),
    error: readonly(error),
    busy: readonly(busy),
    running,
    runEstimate,
    create,
    cancel,
    open,
  };
});
