// Run by no-keychain.test.ts in a child process whose D-Bus session address points nowhere:
// builds the app as a shell would and prints every RPC envelope as one JSON line.
import { join } from 'node:path';
import { createAppServices } from '../../../electron/root/app-services';
import { createLogger } from '../../../electron/ground/logger';

const dataDir = process.env['CHILD_DATA_DIR'] ?? '';
const key = process.env['CHILD_KEY'] ?? '';
let secretValues: () => Iterable<string> = () => [];
const logger = createLogger({ file: join(dataDir, 'logs', 'host.log'), secrets: () => secretValues(), echo: false });
const services = await createAppServices({ dataDir, logger, shell: 'test', version: '0.0.0', clock: () => new Date() });
secretValues = services.secretValues;
const r = services.router;

const saved = await r.dispatch('profiles.save', {
  label: 'Remote',
  baseUrl: 'http://127.0.0.1:9/',
  searchBaseUrl: 'http://127.0.0.1:9/',
});
const id = saved.ok ? (saved.value as { id: string }).id : 'missing';
const t0 = Date.now();
const set = await r.dispatch('keys.set', { profileId: id, kind: 'bearer', key });
const setMs = Date.now() - t0;
const status = await r.dispatch('keys.status', { profileId: id });
const test = await r.dispatch('keys.test', { profileId: id, kind: 'bearer' });
const local = await r.dispatch('keys.test', { profileId: 'local', kind: 'search' });
// The bundled service's run-only keys, so the test can prove no file holds them.
const held = [...services.secretValues()].filter((v) => v !== key);
process.stdout.write(JSON.stringify({ saved, set, setMs, status, test, local, held }) + '\n');
await services.close();
