import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createLogger } from '../ground/logger';
import { defaultDataDir, resourcesDir } from '../ground/paths';
import { fileMode, HELP, resolveKeys } from './cli-options';
import { createImageryPlugin } from './imagery';
import { importLayerFiles } from './layers/cli-import';
import { createLocalService } from './server';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '0' },
    'search-port': { type: 'string', default: '0' },
    'data-dir': { type: 'string' },
    key: { type: 'string' },
    'key-file': { type: 'string' },
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
const keys = resolveKeys({
  key: values.key,
  searchKey: values['search-key'],
  keyFile: values['key-file'],
  env: process.env,
  readFile: (p) => readFileSync(p, 'utf8'),
  modeOf: fileMode,
});
if (!keys.ok) {
  process.stderr.write(keys.error + '\n');
  process.exit(2);
}
for (const w of keys.warnings) process.stderr.write(w + '\n');
const { bearer, search } = keys;
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
