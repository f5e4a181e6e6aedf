import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createLogger } from '../core/logger';
import { defaultDataDir } from '../core/paths';
import { join } from 'node:path';
import { resourcesDir } from '../core/paths';
import { createImageryPlugin } from './imagery';
import { importLayerFiles } from './layers/cli-import';
import { createLocalService } from './server';

const HELP = `Usage: npm run service -- [options]     (or: npx tsx electron/local-service/cli.ts [options])

Runs the bundled Fieldlens service alone on 127.0.0.1: POST {base_url}/v1/compute and the
POST {base_url}/v1/stream and the imagery-search host {search_base_url}, over the bundled
open-data catalog and geotagged photos.
"npm run service" builds first and runs out/main/service.js.

  --port N            compute/stream port (default 0: any free port)
  --search-port N     imagery-search port (default 0: any free port)
  --data-dir DIR      folder of the service database (default: <app data>/local-service)
  --key KEY           Bearer key for compute/stream (or env FIELDLENS_SERVICE_KEY)
  --search-key KEY    x-api-key for imagery search (or env FIELDLENS_SERVICE_SEARCH_KEY)
  --photos DIR        a folder of geotagged photos for stream and imagery search (repeatable)
  --no-sample         leave the bundled sample photos out of the imagery catalog
  --layer FILE        import a data layer (.osm.pbf, .osm, .gpkg, .shp, .kml, .gpx, .fgb, .geojson)
                      into the data folder before starting (repeatable; kept across restarts)
  --answer-fault      make every answer generation fail (status "failed", results intact)
  --json              print {"baseUrl","searchBaseUrl"} as one JSON line once listening
  -h, --help          this text
`;

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '0' },
    'search-port': { type: 'string', default: '0' },
    'data-dir': { type: 'string' },
    key: { type: 'string' },
    'search-key': { type: 'string' },
    'answer-fault': { type: 'boolean', default: false },
    photos: { type: 'string', multiple: true, default: [] },
    'no-sample': { type: 'boolean', default: false },
    layer: { type: 'string', multiple: true, default: [] },
    json: { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  },
});

if (values.help) {
  process.stdout.write(HELP);
  process.exit(0);
}
const bearer = values.key ?? process.env['FIELDLENS_SERVICE_KEY'];
const search = values['search-key'] ?? process.env['FIELDLENS_SERVICE_SEARCH_KEY'];
if (!bearer || !search) {
  process.stderr.write('Both keys are required: --key and --search-key (or FIELDLENS_SERVICE_KEY and FIELDLENS_SERVICE_SEARCH_KEY).\n');
  process.exit(2);
}
const dataDir = resolve(values['data-dir'] ?? resolve(defaultDataDir(), 'local-service'));
const logger = createLogger({ secrets: () => [bearer, search] });
if (values.layer.length) {
  await importLayerFiles({ dataDir, files: values.layer.map((f) => resolve(f)), log: (line) => process.stderr.write(line + '\n') });
}
const service = createLocalService({
  dataDir,
  keys: { bearer, search },
  logger,
  clock: () => new Date(),
  answerFault: values['answer-fault'],
  plugins: [
    createImageryPlugin({
      photoDirs: values.photos.map((d) => resolve(d)),
      sample: !values['no-sample'],
      sampleDir: join(resourcesDir(), 'sample-photos'),
    }),
  ],
});
const urls = await service.start({ port: Number(values.port), searchPort: Number(values['search-port']) });
if (values.json) process.stdout.write(JSON.stringify(urls) + '\n');
else process.stdout.write(`Fieldlens local service\n  base_url:        ${urls.baseUrl}\n  search_base_url: ${urls.searchBaseUrl}\n  data: ${dataDir}\n`);

const stop = async () => {
  await service.close();
  process.exit(0);
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
