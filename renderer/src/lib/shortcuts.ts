import { PANELS } from '../panels/registry';
import type { Tab } from '../stores/layout';

/** What a workspace shortcut does: show a tab, search history, go to the results table, or cancel the pending run. */
export type Shortcut = Tab | 'search' | 'results' | 'cancel';

interface KeyLike {
  key: string;
  ctrlKey: boolean;
  metaKey: boolean;
  altKey: boolean;
  shiftKey: boolean;
}

const ALT_TABS: Record<string, Tab> = Object.fromEntries(PANELS.map((p) => [p.keys.alt, p.id]));
const CTRL_TABS: Record<string, Tab> = Object.fromEntries(PANELS.flatMap((p) => ('ctrl' in p.keys ? [[p.keys.ctrl, p.id]] : [])));

/**
 * The workspace's keys: each panel's Alt and Ctrl keys (panels/registry: Alt+1…4 the tabs in
 * order, Ctrl+H History; Cmd on a Mac), Ctrl+K search History, Alt+R the results table, Esc cancels. Anything else is left
 * to the focused control.
 */
export function shortcutOf(e: KeyLike): Shortcut | null {
  if (e.key === 'Escape') return 'cancel';
  const mod = (e.ctrlKey || e.metaKey) && !e.altKey && !e.shiftKey;
  const k = e.key.toLowerCase();
  if (mod && k === 'k') return 'search';
  if (mod && CTRL_TABS[k]) return CTRL_TABS[k]!;
  if (e.altKey && !e.ctrlKey && !e.metaKey && !e.shiftKey && k === 'r') return 'results';
  if (e.altKey && !e.ctrlKey && !e.metaKey && ALT_TABS[e.key]) return ALT_TABS[e.key]!;
  return null;
}
