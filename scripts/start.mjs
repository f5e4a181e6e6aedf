// `npm start`: set up, build, and open the Electron window; where the Electron binary cannot
// be had, say why in one line and serve the same app to a browser instead.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const run = (cmd, args, opts = {}) => execFileSync(cmd, args, { cwd: root, stdio: 'inherit', ...opts });

run('bash', ['scripts/setup.sh', 'run']);
run(process.execPath, [join(root, 'node_modules/electron-vite/bin/electron-vite.js'), 'build'], { stdio: ['ignore', 'ignore', 'inherit'] });

const electronDir = join(root, 'node_modules/electron');
const hasBinary = () => existsSync(join(electronDir, 'path.txt')) && existsSync(join(electronDir, 'dist'));
if (!hasBinary()) {
  const r = spawnSync(process.execPath, [join(electronDir, 'install.js')], { cwd: electronDir, encoding: 'utf8' });
  if (r.status !== 0 || !hasBinary()) {
    const why = (r.stderr || r.stdout || '').split('\n').find((l) => /error|ENOTFOUND|EAI_AGAIN|fetch/i.test(l)) ?? 'download failed';
    console.log(`Electron binary unavailable (${why.trim().slice(0, 120)}); serving Fieldlens to your browser instead.`);
    const host = spawn(process.execPath, [join(root, 'out/main/host.js'), ...process.argv.slice(2)], { stdio: 'inherit' });
    host.on('exit', (code) => process.exit(code ?? 0));
    process.on('SIGINT', () => host.kill('SIGINT'));
  } else {
    launchElectron();
  }
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
