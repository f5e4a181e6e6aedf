/**
 * Small settings of the workspace kept in the browser's storage (theme, panel placement). Reads
 * and writes never throw: a blocked or missing storage means defaults for this session.
 */
const PREFIX = 'fieldlens.';

export function readPref(key: string): string | null {
  try {
    return globalThis.localStorage?.getItem(PREFIX + key) ?? null;
  } catch {
    return null;
  }
}

export function writePref(key: string, value: string): void {
  try {
    globalThis.localStorage?.setItem(PREFIX + key, value);
  } catch {
    // Storage full or blocked: the choice holds until the window closes.
  }
}
