/** Light and dark themes: what the person chose, and what that means on this system. */
export type Theme = 'light' | 'dark';
export type ThemePreference = 'system' | Theme;

export const THEME_PREFERENCES: readonly ThemePreference[] = ['system', 'light', 'dark'];

/** A stored value read back: anything unknown (or nothing) follows the system. */
export function parsePreference(v: unknown): ThemePreference {
  return THEME_PREFERENCES.includes(v as ThemePreference) ? (v as ThemePreference) : 'system';
}

export function resolveTheme(pref: ThemePreference, systemDark: boolean): Theme {
  if (pref === 'system') return systemDark ? 'dark' : 'light';
  return pref;
}

/** The toggle in the top bar flips what is shown now, and from then on the choice is explicit. */
export const toggledPreference = (shown: Theme): ThemePreference => (shown === 'dark' ? 'light' : 'dark');
