import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FieldSettings } from '../../shared/rpc/methods/fieldkit';
import { writeFileAtomic } from '../ground/atomic-file';
import type { Logger } from '../ground/logger';

const DEFAULTS: FieldSettings = { coordinateFormat: 'dd' };

/**
 * The analyst's field preferences, in `field-settings.json` of the data folder. A file that
 * cannot be read or no longer fits the schema gives the defaults (and a log line), never a crash.
 */
export function createFieldSettings(dataDir: string, logger: Logger) {
  const file = join(dataDir, 'field-settings.json');
  function get(): FieldSettings {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      return { ...DEFAULTS };
    }
    try {
      const parsed = FieldSettings.partial().safeParse(JSON.parse(text));
      if (parsed.success) return { ...DEFAULTS, ...parsed.data };
    } catch {
      // not JSON: fall through
    }
    logger.warn(`${file} is not valid field settings; using the defaults`);
    return { ...DEFAULTS };
  }
  function save(patch: Partial<FieldSettings>): FieldSettings {
    const next = { ...get(), ...patch };
    writeFileAtomic(file, JSON.stringify(next, null, 2) + '\n');
    return next;
  }
  return { get, save };
}
export type FieldSettingsStore = ReturnType<typeof createFieldSettings>;
