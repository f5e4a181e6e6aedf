import { homedir, platform } from 'node:os';
import { join } from 'node:path';

/** The same folder Electron's app.getPath('userData') gives, so both shells share one data dir. */
export function defaultDataDir(appName = 'Fieldlens'): string {
  const env = process.env;
  if (env['FIELDLENS_DATA_DIR']) return env['FIELDLENS_DATA_DIR'];
  if (platform() === 'win32') return join(env['APPDATA'] ?? join(homedir(), 'AppData', 'Roaming'), appName);
  if (platform() === 'darwin') return join(homedir(), 'Library', 'Application Support', appName);
  return join(env['XDG_CONFIG_HOME'] ?? join(homedir(), '.config'), appName);
}
