import cluster from 'node:cluster';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createLogger } from '../ground/logger';
import { defaultDataDir, resourcesDir } from '../ground/paths';
import { fileMode, HELP, resolveKeys } from './cli-options';
import { createImageryPlugin } from './imagery';
import { importLayerFiles } from './layers/cli-import';
import { DATABASE_URL_ENV, safeUrl } from './pg/database';
import { REPLICA_URLS_ENV } from './pg/replicas';
import { DEFAULT_RETENTION } from './retention';
import { createLocalService, DEFAULT_UPLOAD_BUDGET_BYTES, DEFAULT_WRONG_KEYS_PER_MINUTE } from './server';
import { createKeyring, newKey, parseUsersFile, type KeyEntry, type Keyring, type PassedKey } from './team/keyring';
import { asWorker, shareWithWorkers, superviseWorkers } from './workers';

const MIB = 1024 * 1024;
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
    'no-detect': { type: 'boolean', default: false },
    layer: { type: 'string', multiple: true, default: [] },
    json: { type: 'boolean', default: false },
    database: { type: 'string' },
    replica: { type: 'string', multiple: true, default: [] },
    'replica-max-lag': { type: 'string', default: '5' },
    host: { type: 'string', default: '127.0.0.1' },
    'users-file': { type: 'string' },
    'new-key': { type: 'string' },
    'rate-limit': { type: 'string' },
    'access-log': { type: 'boolean', default: false },
    'log-level': { type: 'string', default: 'info' },
    'drain-seconds': { type: 'string', default: '30' },
    workers: { type: 'string', default: '1' },
    'retention-days': { type: 'string', default: String(DEFAULT_RETENTION.maxAgeDays) },
    'retention-mb': { type: 'string', default: String(DEFAULT_RETENTION.maxBytes / MIB) },
    'upload-budget-mb': { type: 'string', default: String(DEFAULT_UPLOAD_BUDGET_BYTES / MIB) },
    'wrong-key-limit': { type: 'string', default: String(DEFAULT_WRONG_KEYS_PER_MINUTE) },
    help: { type: 'boolean', short: 'h', default: false },
  },
});

if (values.help) {
  process.stdout.write(HELP);
  process.exit(0);
}
if (values['new-key'] !== undefined) {
  const { key, line } = await newKey(values['new-key']);
  process.stdout.write(`key (give it to ${values['new-key']}; it is not stored anywhere): ${key}\nline for the users file:\n${line}\n`);
  process.exit(0);
}
const fail = (message: string): never => {
  process.stderr.write(message + '\n');
  process.exit(2);
};
let usersFile: KeyEntry[] | undefined;
if (values['users-file']) {
  try {
    usersFile = parseUsersFile(readFileSync(values['users-file'], 'utf8'));
    if (!usersFile.length) fail(`The users file ${values['users-file']} holds no keys (add one with --new-key USER).`);
  } catch (e) {
    fail(`Cannot read the users file ${values['users-file']}: ${(e as Error).message}`);
  }
}
const database = values.database ?? (process.env[DATABASE_URL_ENV] || undefined);
const replicas = values.replica.length ? values.replica : (process.env[REPLICA_URLS_ENV] ?? '').split(/[\s,]+/).filter(Boolean);
if (replicas.length && !database) fail('--replica needs --database: a replica is read beside its primary, which takes the writes.');
const replicaMaxLag = Number(values['replica-max-lag']);
if (!(replicaMaxLag > 0)) fail('--replica-max-lag takes a number of seconds, over 0.');
const rateLimit = values['rate-limit'] === undefined ? undefined : Number(values['rate-limit']);
if (rateLimit !== undefined && !(rateLimit > 0)) fail('--rate-limit takes a number of requests per minute per key, over 0.');
const workers = Number(values.workers);
if (!Number.isInteger(workers) || workers < 1) fail('--workers takes a whole number of processes, 1 or more.');
if (workers > 1 && !database) fail('--workers needs --database: the processes share saved queries, uploads and layers through PostgreSQL.');
const count = (flag: 'retention-days' | 'retention-mb' | 'upload-budget-mb' | 'wrong-key-limit', min: number) => {
  const n = Number(values[flag]);
  if (!(n >= min)) fail(`--${flag} takes a number, ${min} or more.`);
  return n;
};
const retention = { maxAgeDays: count('retention-days', 0), maxBytes: count('retention-mb', 0) * MIB };
const uploadBudgetBytes = count('upload-budget-mb', 1) * MIB;
const wrongKeysPerMinute = count('wrong-key-limit', 0);
const level = values['log-level'];
if (level !== 'debug' && level !== 'info' && level !== 'warn' && level !== 'error') fail('--log-level is one of debug, info, warn, error.');
const team = Boolean(usersFile || database);
const keys = usersFile
  ? { ok: true as const, bearer: '', search: '', warnings: [] }
  : resolveKeys({
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
const accessLog = values['access-log'] || team;
// A team service logs a JSON line per request (on stderr, for the container's log collector).
const logger = createLogger({ secrets: () => [bearer, search], level: level as 'info', echo: accessLog || undefined });
let keyring: Keyring | undefined;
if (usersFile) {
  // A key passes scrypt once per machine: the worker that checked it tells the others.
  const tellOthers = shareWithWorkers<PassedKey>('key passed', (p) => keyring?.learn(p));
  keyring = createKeyring(usersFile, {
    onPassed: (p) => {
      logger.info('key checked', { user: p.user, key_id: p.keyId, pid: process.pid });
      tellOthers(p);
    },
  });
}
if (values.layer.length && !cluster.isWorker) {
  // With --database into PostGIS, where the service (and every replica) reads them.
  await importLayerFiles({ dataDir, database, files: values.layer.map((f) => resolve(f)), log: (line) => process.stderr.write(line + '\n') });
}
const announce = (urls: { baseUrl: string; searchBaseUrl: string }) => {
  if (values.json) process.stdout.write(JSON.stringify(urls) + '\n');
  else
    process.stdout.write(
      `Fieldlens local service\n  base_url:        ${urls.baseUrl}\n  search_base_url: ${urls.searchBaseUrl}\n  data: ${database ? safeUrl(database) : dataDir}\n` +
        (workers > 1 ? `  workers: ${workers}\n` : '') +
        (replicas.length ? `  replicas: ${replicas.map(safeUrl).join(', ')}\n` : ''),
    );
};

if (workers > 1 && cluster.isPrimary) {
  // The primary listens and hands each connection to the worker holding the fewest.
  try {
    await superviseWorkers({ count: workers, host: values.host, port: Number(values.port), searchPort: Number(values['search-port']), listening: announce, log: (line) => process.stderr.write(line + '\n') });
  } catch (e) {
    fail(`Cannot listen on ${values.host}: ${(e as Error).message}`);
  }
  process.exit(0);
}
const service = createLocalService({
  dataDir,
  keys: { bearer, search },
  logger,
  clock: () => new Date(),
  answerFault: values['answer-fault'],
  database,
  replicas: replicas.length ? { urls: replicas, maxLagMs: replicaMaxLag * 1000 } : undefined,
  keyring,
  // Each worker sees about 1/N of a key's requests (connections are spread evenly).
  rateLimitPerMinute: rateLimit === undefined ? undefined : Math.max(1, Math.round(rateLimit / workers)),
  accessLog,
  logBodies: level === 'debug',
  drainMs: Number(values['drain-seconds']) * 1000,
  retention,
  uploadBudgetBytes,
  wrongKeysPerMinute,
  plugins: [
    createImageryPlugin({
      photoDirs: values.photos.map((d) => resolve(d)),
      sample: !values['no-sample'],
      sampleDir: join(resourcesDir(), 'sample-photos'),
      perception: values['no-detect'] ? false : { modelsDir: join(resourcesDir(), 'models') },
    }),
  ],
});
if (values.host !== '127.0.0.1' && !keyring)
  process.stderr.write(`Listening on ${values.host}: anyone who can reach it and has the key can use it; a team service should use --users-file.\n`);
// Requests in flight finish (up to --drain-seconds) before the process ends; a second signal ends it at once.
let stopping = false;
const stop = async () => {
  if (stopping) process.exit(1);
  stopping = true;
  await service.close();
  process.exit(0);
};
const worker = cluster.isWorker ? asWorker(() => void stop()) : null;
if (!worker) {
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
const urls = await service.start({ port: Number(values.port), searchPort: Number(values['search-port']), host: values.host, handedOff: worker?.urls });
if (worker) worker.listening((host, socket) => service.accept(host, socket));
else announce(urls);
