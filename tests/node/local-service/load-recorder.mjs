// Module hooks for the isolation test: appends every file URL the process loads to
// $FIELDLENS_LOADS_FILE, one per line. Registered with `--import` after tsx, so it sees every load.
import { appendFileSync } from 'node:fs';
import { register } from 'node:module';

export async function load(url, context, nextLoad) {
  if (url.startsWith('file:')) appendFileSync(process.env['FIELDLENS_LOADS_FILE'], url + '\n');
  return nextLoad(url, context);
}

// Run as the `--import` entry (main thread): register this same file as the hooks module.
if (!process.env['FIELDLENS_LOADS_HOOKED']) {
  process.env['FIELDLENS_LOADS_HOOKED'] = '1';
  register(import.meta.url);
}
