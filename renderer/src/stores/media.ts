import { defineStore } from 'pinia';
import { ref } from 'vue';
import type { RpcErrorBody } from '../../../shared/rpc/errors';
import { useServices } from '../services';

type MediaState = { state: 'loading' } | { state: 'ready'; src: string; fromCache: boolean } | { state: 'failed'; error: RpcErrorBody };

/** At most this many images stay decoded in memory; older ones are fetched again (from the cache). */
const MAX_ENTRIES = 200;

/** Images of results as data: URLs, loaded through media.get (cached on first view for offline review). */
export const useMediaStore = defineStore('media', () => {
  const { media } = useServices();
  const entries = ref<Record<string, MediaState>>({});
  const order: string[] = [];

  async function load(url: string): Promise<void> {
    const current = entries.value[url];
    if (current && current.state !== 'failed') return;
    entries.value = { ...entries.value, [url]: { state: 'loading' } };
    order.push(url);
    const r = await media.get(url);
    const next: MediaState = r.ok
      ? { state: 'ready', src: `data:${r.value.contentType};base64,${r.value.dataBase64}`, fromCache: r.value.fromCache }
      : { state: 'failed', error: r.error };
    const all = { ...entries.value, [url]: next };
    while (order.length > MAX_ENTRIES) delete all[order.shift()!];
    entries.value = all;
  }

  const get = (url: string | null): MediaState | null => (url ? (entries.value[url] ?? null) : null);

  return { load, get };
});
