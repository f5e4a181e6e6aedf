// `npm run serve`: the browser host only (same services and renderer as the desktop app).
import { execFileSync, spawn } from 'node:child_process';
import { join } from 'node:path';
import { ensureBuilt, viteBuild } from './build-if-changed.mjs';

const root = join(import.meta.dirname, '..');
execFileSync('bash', ['scripts/setup.sh', 'run', 'node'], { cwd: root, stdio: 'inherit' });
try {
  ensureBuilt({ root, build: viteBuild(root) });
} catch (e) {
  console.error(e.message);
  process.exit(1);
}
const host = spawn(process.execPath, [join(root, 'out/main/host.js'), ...process.argv.slice(2)], { stdio: 'inherit' });
host.on('exit', (code) => process.exit(code ?? 0));
process.on('SIGINT', () => host.kill('SIGINT'));
