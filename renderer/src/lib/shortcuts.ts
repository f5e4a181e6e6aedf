import type { Tab } from '../stores/layout';

/** What a workspace shortcut does: show a tab, search history, or cancel the pending run. */
export type Shortcut = Tab | 'search' | 'cancel';

interface KeyLike {
  key: string;
  ctrlKey: boolean;
  metaKey: boolean;
  altKey: boolean;
  shiftKey: boolean;
}

const ALT_TABS: Record<string, Tab> = { '1': 'ask', '2': 'street', '3': 'imagery', '4': 'history' };

/**
 * The workspace's keys: Ctrl+H History, Ctrl+K search History (Cmd on a Mac), Alt+1…4 the
 * tabs in order, Esc cancels. Anything else is left to the focused control.
 */
export function shortcutOf(e: KeyLike): Shortcut | null {
  if (e.key === 'Escape') return 'cancel';
  const mod = (e.ctrlKey || e.metaKey) && !e.altKey && !e.shiftKey;
  const k = e.key.toLowerCase();
  if (mod && k === 'h') return 'history';
  if (mod && k === 'k') return 'search';
  if (e.altKey && !e.ctrlKey && !e.metaKey && ALT_TABS[e.key]) return ALT_TABS[e.key]!;
  return null;
}
