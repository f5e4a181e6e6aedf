import { defineStore } from 'pinia';
import { computed } from 'vue';
import { useAskStore } from './ask';
import { useHistoryStore } from './history';
import { useLayoutStore } from './layout';

/** The answer on screen: what evidence, export, packs and follow-ups act on. */
export interface Subject {
  queryId: number;
  text: string;
  from: 'ask' | 'history';
}

/**
 * One answer is on screen at a time, the one of the tab in front: the History entry opened in
 * History, the last answer in Compute. An entry opened earlier and left behind is not it.
 */
export const useSubjectStore = defineStore('subject', () => {
  const layout = useLayoutStore();
  const history = useHistoryStore();
  const ask = useAskStore();
  const subject = computed<Subject | null>(() => {
    if (layout.tab === 'history') return history.opened ? { queryId: history.opened.id, text: history.opened.queryText, from: 'history' } : null;
    if (layout.tab === 'ask' && ask.queryId !== null) return { queryId: ask.queryId, text: ask.thread.at(-1)?.query ?? '', from: 'ask' };
    return null;
  });
  return { subject };
});
