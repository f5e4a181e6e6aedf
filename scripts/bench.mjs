// `npm run bench`: runs every bench:* script of package.json in turn and prints their figures.
// Benchmarks print numbers; they never fail the build.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const scripts = Object.keys(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).scripts ?? {}).filter((s) =>
  s.startsWith('bench:'),
);
if (scripts.length === 0) console.log('No benchmarks defined yet.');
for (const s of scripts) {
  console.log(`\n== npm run ${s}`);
  const r = spawnSync('npm', ['run', '--silent', s], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) console.log(`(${s} exited with ${r.status})`);
}
