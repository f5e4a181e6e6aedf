import { homedir, platform } from 'node:os';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The same folder Electron's app.getPath('userData') gives, so both shells share one data dir. */
export function defaultDataDir(appName = 'Fieldlens'): string {
  const env = process.env;
  if (env['FIELDLENS_DATA_DIR']) return env['FIELDLENS_DATA_DIR'];
  if (platform() === 'win32') return join(env['APPDATA'] ?? join(homedir(), 'AppData', 'Roaming'), appName);
  if (platform() === 'darwin') return join(homedir(), 'Library', 'Application Support', appName);
  return join(env['XDG_CONFIG_HOME'] ?? join(homedir(), '.config'), appName);
}

/**
 * The app's resources/ folder (catalog, sample photos), found upward from this module so it
 * works from the source tree, the built out/main and a packaged app alike.
 */
export function resourcesDir(from = import.meta.dirname): string {
  let dir = from;
  for (let up = 0; up < 6; up++) {
    const candidate = join(dir, 'resources');
    if (existsSync(join(candidate, 'catalog'))) return candidate;
    dir = dirname(dir);
  }
  throw new Error(`no resources/ folder found above ${from}`);
}
