// `npm run service`: build only when sources changed since the last build (as `npm start`
// does), then run the bundled service alone with the given flags, passing signals and its exit.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { ensureBuilt, viteBuild } from './build-if-changed.mjs';

const root = join(import.meta.dirname, '..');
try {
  ensureBuilt({ root, build: viteBuild(root) });
} catch (e) {
  console.error(e.message);
  process.exit(1);
}
const child = spawn(process.execPath, [join(root, 'out/main/service.js'), ...process.argv.slice(2)], { stdio: 'inherit' });
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
