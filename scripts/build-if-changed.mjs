// Builds the app only when its sources changed since the last successful build, so a second
// `npm start` goes straight to the app. The stamp is a hash of every input file's path and
// bytes (not mtimes: a checkout or a copy touches mtimes without changing anything). Build
// output goes to a log file, shown only when the build fails.
import { createHash } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { spawnSync } from 'node:child_process';

/** What the build reads: source folders and the files that configure it. */
export const BUILD_INPUTS = [
  'electron',
  'renderer',
  'shared',
  'package.json',
  'package-lock.json',
  'electron.vite.config.ts',
  'tsconfig.json',
  'tsconfig.base.json',
  'tsconfig.node.json',
  'tsconfig.web.json',
];
/** What a usable build has; a missing one forces a build whatever the stamp says. */
export const BUILD_OUTPUTS = ['out/main/index.js', 'out/main/host.js', 'out/main/service.js', 'out/preload/index.cjs', 'out/renderer/index.html'];

function filesUnder(root, entry) {
  const full = join(root, entry);
  if (!existsSync(full)) return [];
  const walk = (dir) =>
    readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
      const p = join(dir, d.name);
      if (d.isDirectory()) return d.name === 'node_modules' ? [] : walk(p);
      return d.isFile() ? [p] : [];
    });
  return statSync(full).isDirectory() ? walk(full) : [full];
}

/** sha256 over the sorted relative paths and contents of every input. */
export function inputsHash(root, inputs = BUILD_INPUTS) {
  const hash = createHash('sha256');
  const files = inputs.flatMap((entry) => filesUnder(root, entry)).map((f) => relative(root, f).split('\\').join('/'));
  for (const f of [...new Set(files)].sort()) {
    hash.update(f + '\0');
    hash.update(readFileSync(join(root, f)));
    hash.update('\0');
  }
  return hash.digest('hex');
}

// Outputs' mtimes go into the stamp too: a build made by other means since (npm run build from
// other sources) changes them, and the next start rebuilds rather than trust the stamp.
const outputTimes = (root, outputs) => outputs.map((o) => (existsSync(join(root, o)) ? statSync(join(root, o)).mtimeMs : -1));

/**
 * Runs `build` unless the stamp in `stampFile` matches the inputs and the outputs it recorded.
 * `build` gets the log file to write to and returns true on success. On failure the log is
 * printed to stderr and an Error is thrown; no stamp is written, so the next start retries.
 * @returns {{ built: boolean, hash: string }}
 */
export function ensureBuilt({ root, build, inputs = BUILD_INPUTS, outputs = BUILD_OUTPUTS, stampFile = join(root, 'out/.build-stamp'), logFile = join(root, 'out/build.log') }) {
  const hash = inputsHash(root, inputs);
  const want = JSON.stringify({ hash, outputs: outputTimes(root, outputs) });
  const current = existsSync(stampFile) ? readFileSync(stampFile, 'utf8').trim() : '';
  if (current === want && outputs.every((o) => existsSync(join(root, o)))) return { built: false, hash };
  mkdirSync(join(logFile, '..'), { recursive: true });
  writeFileSync(logFile, '');
  if (!build(logFile)) {
    process.stderr.write(readFileSync(logFile, 'utf8'));
    throw new Error(`The build failed; its output is above and in ${logFile}`);
  }
  const missing = outputs.filter((o) => !existsSync(join(root, o)));
  if (missing.length) throw new Error(`The build left out ${missing.join(', ')}; see ${logFile}`);
  mkdirSync(join(stampFile, '..'), { recursive: true });
  writeFileSync(stampFile, JSON.stringify({ hash, outputs: outputTimes(root, outputs) }) + '\n');
  return { built: true, hash };
}

/** electron-vite build with stdout and stderr in the log file. */
export function viteBuild(root) {
  return (logFile) => {
    const fd = openSync(logFile, 'w');
    try {
      const r = spawnSync(process.execPath, [join(root, 'node_modules/electron-vite/bin/electron-vite.js'), 'build'], {
        cwd: root,
        stdio: ['ignore', fd, fd],
      });
      return r.status === 0;
    } finally {
      closeSync(fd);
    }
  };
}
