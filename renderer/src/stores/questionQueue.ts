import { defineStore } from 'pinia';
import { computed, readonly, ref, shallowRef, watch } from 'vue';
import type { RpcErrorBody } from '../../../shared/rpc/errors';
import type { InlineAttachment } from '../../../shared/rpc/methods/compute';
import type { QueuedQuestion } from '../../../shared/rpc/methods/queue';
import type { ComputeRequestInput } from '../../../shared/service/compute';
import { useServices } from '../services';
import { isConnectionError } from '../lib/connection';
import { useAppStore } from './app';

/** Questions kept while the connection is down, and the notice when one is answered. */
export const useQuestionQueueStore = defineStore('questionQueue', () => {
  const { queue, uploads } = useServices();
  const items = ref<QueuedQuestion[]>([]);
  const notice = shallowRef<QueuedQuestion | null>(null);
  const error = ref<RpcErrorBody | null>(null);
  let listening: (() => void) | null = null;
  // The queue lives in the host: read it again when the line to it is back (a restart may have
  // answered or dropped questions meanwhile), and forget an error that only said it was gone.
  watch(
    () => useAppStore().linkState,
    (s) => {
      if (s !== 'open') return;
      if (error.value && isConnectionError(error.value.code)) error.value = null;
      if (listening) void load();
    },
  );

  async function load(): Promise<void> {
    const r = await queue.list();
    if (r.ok) items.value = r.value.items;
    else error.value = r.error;
  }
  /** Listens for answers once per window (the store lives as long as the app). */
  function listen(): void {
    listening ??= queue.onSettled((q) => {
      notice.value = q;
      void load();
    });
  }
  async function call<T>(p: Promise<{ ok: true; value: T } | { ok: false; error: RpcErrorBody }>): Promise<T | null> {
    const r = await p;
    if (!r.ok) {
      error.value = r.error;
      return null;
    }
    error.value = null;
    await load();
    return r.value;
  }
  async function add(request: ComputeRequestInput, files: InlineAttachment[] = []) {
    const sent = await uploads.forCall(files);
    if (!sent.ok) return call(Promise.resolve(sent));
    return call(queue.add({ request, ...(sent.value.length ? { attachments: sent.value } : {}) }));
  }
  const edit = (id: number, query: string) => call(queue.edit(id, query));
  const drop = (id: number) => call(queue.drop(id));

  return {
    items: readonly(items),
    waiting: computed(() => items.value.filter((q) => q.status === 'queued' || q.status === 'running').length),
    notice: readonly(notice),
    error: readonly(error),
    load,
    listen,
    add,
    edit,
    drop,
    dismiss: () => (notice.value = null),
  };
});
