import { defineStore } from 'pinia';
import { computed, ref } from 'vue';
import { readPref, writePref } from '../lib/prefs';
import type { PanelId } from '../panels/registry';

/** A side panel's tab (panels/registry). */
export type Tab = PanelId;
/** Where the results panel and imagery viewer sit: beside the map (right) or below it. */
export type Placement = 'beside' | 'below';

const KEY = 'resultsPlacement';

/** The workspace's arrangement: the side panel's tab and where results sit (remembered). */
export const useLayoutStore = defineStore('layout', () => {
  const tab = ref<Tab>('ask');
  const placement = ref<Placement>(readPref(KEY) === 'below' ? 'below' : 'beside');
  /** Bumped to ask the History search box for focus (Ctrl+K). */
  const searchFocus = ref(0);
  /** Bumped to ask the Compute results table for focus (the skip link, Alt+R). */
  const resultsFocus = ref(0);

  function setTab(t: Tab): void {
    tab.value = t;
  }
  function setPlacement(p: Placement): void {
    placement.value = p;
    writePref(KEY, p);
  }
  const togglePlacement = () => setPlacement(placement.value === 'beside' ? 'below' : 'beside');
  function focusHistorySearch(): void {
    tab.value = 'history';
    searchFocus.value++;
  }
  function focusResults(): void {
    tab.value = 'ask';
    resultsFocus.value++;
  }

  return {
    tab: computed(() => tab.value),
    placement: computed(() => placement.value),
    searchFocus: computed(() => searchFocus.value),
    resultsFocus: computed(() => resultsFocus.value),
    setTab,
    setPlacement,
    togglePlacement,
    focusHistorySearch,
    focusResults,
  };
});
