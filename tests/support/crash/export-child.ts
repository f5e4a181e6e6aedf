// Child process of the export crash runs: exports one cached query again and again, in each
// format in turn, to new files in a folder, until it is killed.
import { join } from 'node:path';
import { Cache } from '../../../electron/cache';
import { createCacheLayerLoader } from '../../../electron/export/from-cache';
import { startExport } from '../../../electron/export/job';
import { FORMAT_EXTENSION, type ExportFormat } from '../../../electron/export/types';

const [file, outDir, seedText, queryId] = process.argv.slice(2);
if (!file || !outDir || !seedText || !queryId) throw new Error('usage: export-child <cache.db> <out dir> <seed> <query id>');
const FORMATS: ExportFormat[] = ['gpkg', 'geojson', 'ndjson', 'csv'];

const cache = Cache.open(file);
const layers = await createCacheLayerLoader(cache, () => null)({ queryIds: [queryId] });
for (let n = 0; ; n++) {
  const format = FORMATS[(Number(seedText) + n) % FORMATS.length]!;
  const destination = join(outDir, `export-${seedText}-${n}${FORMAT_EXTENSION[format]}`);
  process.stdout.write(`begin ${destination}\n`);
  await startExport({ layers, format, destination });
  process.stdout.write(n === 0 ? `end ${destination}\nready\n` : `end ${destination}\n`);
}
