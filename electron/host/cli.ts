import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createAppServices } from '../root/app-services';
import { createLogger } from '../ground/logger';
import { defaultDataDir } from '../ground/paths';
import { startBrowserHost } from './browser-host';

// Built to out/main/host.js: the renderer sits in out/renderer, package.json two levels up.
const here = dirname(fileURLToPath(import.meta.url));

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '0' },
    'data-dir': { type: 'string' },
    'renderer-dir': { type: 'string' },
    json: { type: 'boolean', default: false },
    photos: { type: 'string', multiple: true, default: [] },
    'no-detect': { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  },
});

if (values.help) {
  process.stdout.write(
    'Usage: fieldlens-host [--port N] [--data-dir DIR] [--photos DIR]... [--no-detect] [--renderer-dir DIR] [--json]\n' +
      'Serves the Fieldlens app on 127.0.0.1 for any browser; prints the URL with its one-time token.\n' +
      '--no-detect: photos are not looked at for objects, faces and text.\n',
  );
  process.exit(0);
}

const rendererDir = resolve(values['renderer-dir'] ?? join(here, '../renderer'));
if (!existsSync(join(rendererDir, 'index.html'))) {
  process.stderr.write(`No built renderer in ${rendererDir}: run "npm run build" first.\n`);
  process.exit(1);
}
const pkg = JSON.parse(readFileSync(join(here, '../../package.json'), 'utf8')) as { version: string };
const dataDir = resolve(values['data-dir'] ?? defaultDataDir());
// Set once the services exist: the key values they know are redacted from every log line.
let secretValues: () => Iterable<string> = () => [];
// Loading the bundled service's catalog holds the event loop for a moment: it begins when the
// page first asks for anything (so the page itself is already served), or shortly after the URL
// is out when no browser comes.
let startLocal!: () => void;
const startLocalServiceAfter = new Promise<void>((resolve) => (startLocal = resolve));
const LOCAL_START_FALLBACK_MS = 2000;
const logger = createLogger({ file: join(dataDir, 'logs', 'host.log'), secrets: () => secretValues() });
const services = await createAppServices({
  dataDir,
  logger,
  shell: 'browser-host',
  version: pkg.version,
  clock: () => new Date(),
  env: process.env,
  photoDirs: values.photos.map((d) => resolve(d)),
  seePhotos: !values['no-detect'],
  startLocalServiceAfter,
});
secretValues = services.secretValues;
const host = await startBrowserHost({
  router: {
    dispatch: (...args) => {
      startLocal();
      return services.router.dispatch(...args);
    },
  },
  bus: services.bus,
  logger,
  rendererDir,
  port: Number(values.port),
  downloads: services.exports,
  packDownloads: services.packs,
});

if (values.json) process.stdout.write(JSON.stringify({ url: host.url, launchUrl: host.launchUrl, dataDir }) + '\n');
else process.stdout.write(`Fieldlens is running at ${host.launchUrl}\n(data: ${dataDir}; Ctrl+C to stop)\n`);
setTimeout(startLocal, LOCAL_START_FALLBACK_MS).unref();

const stop = async () => {
  await host.close();
  const closed = services.close();
  startLocal(); // after close() began: lets it settle, and a start not yet begun is skipped
  await closed;
  process.exit(0);
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
