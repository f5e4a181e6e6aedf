// `npm start`: set up, build (only when sources changed), and open the Electron window; where
// the Electron binary cannot be had, say why in one line and serve the same app to a browser instead.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensureBuilt, viteBuild } from './build-if-changed.mjs';

const root = join(import.meta.dirname, '..');
const run = (cmd, args, opts = {}) => execFileSync(cmd, args, { cwd: root, stdio: 'inherit', ...opts });

run('bash', ['scripts/setup.sh', 'run']);
try {
  ensureBuilt({ root, build: viteBuild(root) });
} catch (e) {
  console.error(e.message);
  process.exit(1);
}

const electronDir = join(root, 'node_modules/electron');
const hasBinary = () => existsSync(join(electronDir, 'path.txt')) && existsSync(join(electronDir, 'dist'));
// A failed download is retried at most once an hour: offline, every start would otherwise wait
// for the network to fail again before serving anything.
const unavailableMarker = join(root, 'node_modules/.fieldlens-electron-unavailable');
const RETRY_DOWNLOAD_MS = 60 * 60 * 1000;

function downloadFailure() {
  if (existsSync(unavailableMarker)) {
    const last = JSON.parse(readFileSync(unavailableMarker, 'utf8'));
    if (Date.now() - last.at < RETRY_DOWNLOAD_MS) return last.why;
  }
  const r = spawnSync(process.execPath, [join(electronDir, 'install.js')], { cwd: electronDir, encoding: 'utf8' });
  if (r.status === 0 && hasBinary()) {
    rmSync(unavailableMarker, { force: true });
    return null;
  }
  const why = ((r.stderr || r.stdout || '').split('\n').find((l) => /error|ENOTFOUND|EAI_AGAIN|fetch/i.test(l)) ?? 'download failed').trim().slice(0, 120);
  writeFileSync(unavailableMarker, JSON.stringify({ at: Date.now(), why }));
  return why;
}

const why = hasBinary() ? null : downloadFailure();
if (why !== null) {
  console.log(`Electron binary unavailable (${why}); serving Fieldlens to your browser instead.`);
  const host = spawn(process.execPath, [join(root, 'out/main/host.js'), ...process.argv.slice(2)], { stdio: 'inherit' });
  host.on('exit', (code) => process.exit(code ?? 0));
  process.on('SIGINT', () => host.kill('SIGINT'));
} else {
  launchElectron();
}

function launchElectron() {
  // Native modules are compiled per runtime ABI; rebuild them for Electron when switching.
  const version = JSON.parse(readFileSync(join(electronDir, 'package.json'), 'utf8')).version;
  const marker = join(root, 'node_modules/.fieldlens-native-abi');
  const want = `electron-${version}`;
  if (!existsSync(marker) || readFileSync(marker, 'utf8') !== want) {
    console.log(`Rebuilding native modules for Electron ${version}...`);
    run('npm', ['rebuild', 'better-sqlite3', 'keytar'], {
      env: {
        ...process.env,
        npm_config_runtime: 'electron',
        npm_config_target: version,
        npm_config_disturl: 'https://electronjs.org/headers',
        npm_config_build_from_source: 'true',
        npm_config_nodedir: '',
      },
    });
    writeFileSync(marker, want);
  }
  const electron = readFileSync(join(electronDir, 'path.txt'), 'utf8').trim();
  const child = spawn(join(electronDir, 'dist', electron), [root, ...process.argv.slice(2)], { stdio: 'inherit' });
  child.on('exit', (code) => process.exit(code ?? 0));
}
