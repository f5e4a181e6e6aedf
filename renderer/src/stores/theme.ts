import { defineStore } from 'pinia';
import { computed, ref, watch } from 'vue';
import { readPref, writePref } from '../lib/prefs';
import { parsePreference, resolveTheme, toggledPreference, type Theme, type ThemePreference } from '../lib/theme';

const KEY = 'theme';

/**
 * The colour theme. `theme` is what is shown ('light' | 'dark'): the page's CSS custom
 * properties follow it through `data-theme` on <html>, and the map's vector styles read it here.
 */
export const useThemeStore = defineStore('theme', () => {
  const preference = ref<ThemePreference>(parsePreference(readPref(KEY)));
  const media = typeof window !== 'undefined' && window.matchMedia ? window.matchMedia('(prefers-color-scheme: dark)') : null;
  const systemDark = ref(media?.matches ?? false);
  media?.addEventListener('change', (e) => (systemDark.value = e.matches));

  const theme = computed<Theme>(() => resolveTheme(preference.value, systemDark.value));

  function setPreference(p: ThemePreference): void {
    preference.value = p;
    writePref(KEY, p);
  }
  const toggle = () => setPreference(toggledPreference(theme.value));

  watch(
    theme,
    (t) => {
      if (typeof document === 'undefined') return;
      document.documentElement.dataset['theme'] = t;
      document.documentElement.style.colorScheme = t;
    },
    { immediate: true },
  );

  return { preference: computed(() => preference.value), theme, setPreference, toggle };
});
