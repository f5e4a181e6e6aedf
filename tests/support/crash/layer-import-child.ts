import { startLayerImport } from '../../../electron/local-service/layers/import-job';
import { openSqliteLayerStore } from '../../../electron/local-service/layers/store/sqlite-layer-store';

/**
 * An OSM import into a data folder's layer store, for kill tests (layer-import.ts): prints `ready`
 * once `readyAt` features are written (each batch of 10,000 committed to layers.sqlite), then
 * goes on importing until it is killed. Node locations past `memoryNodes` go to the scratch file.
 * Arguments: file, data folder, scratch folder, memoryNodes, readyAt.
 */
const [file, dataDir, tempDir, memoryNodes, readyAt] = process.argv.slice(2) as [string, string, string, string, string];
const store = openSqliteLayerStore({ dataDir });
const job = startLayerImport({ store, file, tempDir, osmMemoryNodes: Number(memoryNodes) });
let told = false;
job.events.on('progress', (p) => {
  if (!told && p.features >= Number(readyAt)) {
    told = true;
    process.stdout.write('ready\n');
  }
});
await job.done;
process.stdout.write('finished\n');
