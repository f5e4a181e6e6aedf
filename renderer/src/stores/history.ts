import { defineStore } from 'pinia';
import { computed, readonly, ref, shallowRef } from 'vue';
import type { RpcErrorBody } from '../../../shared/rpc/errors';
import type { FeatureDiff, QueryKind, QueryRecord, QuerySummary } from '../../../shared/rpc/methods/history';
import { useServices } from '../services';
import { pruneSet, selectRange, toggleInSet } from '../lib/selection';
import { historyTree } from '../lib/historyTree';
import { viewOfRecord, type CachedView } from '../lib/results';
import { useAppStore } from './app';
import { useLayoutStore } from './layout';
import { useMapStore } from './map';

export interface ThreadEntry {
  query: QuerySummary;
  parentId: number | null;
  depth: number;
}

/** The History tab: every cached query, opened from the cache (works offline). */
export const useHistoryStore = defineStore('history', () => {
  const { history } = useServices();
  const app = useAppStore();
  const map = useMapStore();

  const text = ref('');
  const kind = ref<QueryKind | ''>('');
  /** Only entries whose results fall in the map's current view. */
  const inExtent = ref(false);
  const items = ref<QuerySummary[]>([]);
  const hasMore = ref(false);
  const loading = ref(false);
  const error = ref<RpcErrorBody | null>(null);

  const checked = ref<Set<number>>(new Set());
  let anchor: number | null = null;

  const opened = shallowRef<QueryRecord | null>(null);
  const openedView = shallowRef<CachedView | null>(null);
  const thread = ref<ThreadEntry[]>([]);
  const rerunDiff = ref<{ previousId: number; queryId: number; diff: FeatureDiff } | null>(null);
  const rerunning = ref(false);
  /** Titles of the entry's results before a rerun, so removed ones can be named. */
  const previousTitles = shallowRef<Map<string, string>>(new Map());

  /** What a rerun changed, by name: added and changed from the new run, removed from the old. */
  const rerunChanges = computed(() => {
    const d = rerunDiff.value?.diff;
    if (!d) return null;
    const now = new Map((openedView.value?.rows ?? []).map((r) => [r.id, r.title]));
    const name = (id: string, from: Map<string, string>) => from.get(id) ?? id;
    return {
      added: d.added.map((id) => name(id, now)),
      removed: d.removed.map((id) => name(id, previousTitles.value)),
      changed: d.changed.map((id) => name(id, now)),
    };
  });
  const groups = computed(() => historyTree(items.value, Date.now()));

  async function load(more = false): Promise<void> {
    loading.value = true;
    try {
      const r = await history.list({
        ...(text.value.trim() ? { text: text.value.trim() } : {}),
        ...(kind.value ? { kind: kind.value } : {}),
        ...(inExtent.value && map.extent() ? { bbox: map.extent()! } : {}),
        limit: 50,
        offset: more ? items.value.length : 0,
      });
      if (!r.ok) {
        error.value = r.error;
        app.report('History', r.error);
        return;
      }
      error.value = null;
      items.value = more ? [...items.value, ...r.value.items] : r.value.items;
      hasMore.value = r.value.hasMore;
      checked.value = pruneSet(checked.value, items.value.map((i) => i.id));
    } finally {
      loading.value = false;
    }
  }

  async function open(id: number): Promise<void> {
    const [r, t] = await Promise.all([history.get(id), history.thread(id)]);
    if (!r.ok) {
      error.value = r.error;
      app.report('Open history entry', r.error);
      return;
    }
    error.value = null;
    rerunDiff.value = null;
    opened.value = r.value;
    const view = viewOfRecord(r.value);
    openedView.value = view;
    thread.value = t.ok ? t.value.nodes : [];
    map.show('history', view.collection);
    // The entry is now the answer on screen: History comes to the front, not only its map layer.
    useLayoutStore().setTab('history');
  }

  function close(): void {
    error.value = null;
    opened.value = null;
    openedView.value = null;
    thread.value = [];
    rerunDiff.value = null;
    map.show('history', null);
  }

  async function rerun(): Promise<void> {
    const rec = opened.value;
    if (!rec || rerunning.value) return;
    rerunning.value = true;
    previousTitles.value = new Map((openedView.value?.rows ?? []).map((r) => [r.id, r.title]));
    try {
      const r = await history.rerun(rec.id);
      app.report('Rerun', r.ok ? null : r.error);
      if (!r.ok) {
        error.value = r.error;
        return;
      }
      await open(r.value.queryId);
      rerunDiff.value = r.value;
      await load();
    } finally {
      rerunning.value = false;
    }
  }

  async function remove(id: number): Promise<void> {
    const r = await history.remove(id);
    if (!r.ok) {
      error.value = r.error;
      app.report('Delete', r.error);
      return;
    }
    if (opened.value?.id === id) close();
    await load();
  }

  function toggleChecked(id: number, range = false): void {
    checked.value = range
      ? selectRange(checked.value, items.value.map((i) => i.id), anchor, id)
      : toggleInSet(checked.value, id);
    anchor = id;
  }
  function clearChecked(): void {
    checked.value = new Set();
    anchor = null;
  }

  return {
    text,
    kind,
    inExtent,
    groups,
    rerunChanges,
    items: readonly(items),
    hasMore: readonly(hasMore),
    loading: readonly(loading),
    error: readonly(error),
    checked: computed(() => checked.value as ReadonlySet<number>),
    opened: computed(() => opened.value),
    openedView: computed(() => openedView.value),
    thread: readonly(thread),
    rerunDiff: readonly(rerunDiff),
    rerunning: readonly(rerunning),
    load,
    open,
    close,
    rerun,
    remove,
    toggleChecked,
    clearChecked,
  };
});
