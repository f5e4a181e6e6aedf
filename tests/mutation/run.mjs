#!/usr/bin/env node
/**
 * Applies each mutation of mutations.mjs to the working tree in turn, runs its test files and
 * says whether they caught it (failed) or it survived (passed). The file is restored after each
 * run, also on Ctrl+C or a crash of this script; the originals are kept beside the run in
 * .mutation-backup/ until restored. First the same test files run unmutated and must pass, else
 * a failure would prove nothing.
 *
 *   npm run mutation                  every mutation
 *   npm run mutation -- csv-latitude-90 within-ref-index   only those
 *
 * Exit code 0 when every mutation is caught, 1 when one survives, 2 when the setup is wrong.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MUTATIONS } from './mutations.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const backupDir = join(root, '.mutation-backup');

function fail(message) {
  console.error(`mutation: ${message}`);
  process.exit(2);
}

// A previous run killed hard (SIGKILL) left its original behind: put it back first.
function restoreLeftovers() {
  if (!existsSync(backupDir)) return;
  for (const name of readdirSync(backupDir)) {
    const file = Buffer.from(name, 'base64url').toString('utf8');
    copyFileSync(join(backupDir, name), join(root, file));
    console.error(`mutation: restored ${file} from an interrupted run`);
  }
  rmSync(backupDir, { recursive: true, force: true });
}

let current = null;
function restore() {
  if (!current) return;
  writeFileSync(join(root, current.file), current.original);
  rmSync(join(backupDir, Buffer.from(current.file).toString('base64url')), { force: true });
  current = null;
}
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    restore();
    process.exit(130);
  });
}
process.on('exit', restore);

function count(text, find) {
  let n = 0;
  for (let i = text.indexOf(find); i >= 0; i = text.indexOf(find, i + find.length)) n++;
  return n;
}

function runTests(files) {
  const r = spawnSync('npx', ['vitest', 'run', '--reporter=dot', ...files], { cwd: root, encoding: 'utf8', env: { ...process.env, CI: '1' } });
  const out = `${r.stdout}\n${r.stderr}`;
  // The summary line without its colour codes.
  const plain = out.replace(new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g'), '');
  const tests = /Tests\s+(.*)/.exec(plain)?.[1]?.trim() ?? '';
  return { passed: r.status === 0, tests, out };
}

restoreLeftovers();
const wanted = process.argv.slice(2);
const chosen = wanted.length ? MUTATIONS.filter((m) => wanted.includes(m.id)) : MUTATIONS;
for (const id of wanted) if (!MUTATIONS.some((m) => m.id === id)) fail(`no mutation named ${id}`);

// Every pattern is checked before anything runs: a stale one stops the run at once.
for (const m of chosen) {
  const path = join(root, m.file);
  if (!existsSync(path)) fail(`${m.id}: ${m.file} does not exist`);
  const n = count(readFileSync(path, 'utf8'), m.find);
  if (n !== m.count) fail(`${m.id}: expected ${m.count} occurrence(s) of ${JSON.stringify(m.find)} in ${m.file}, found ${n}`);
  for (const t of m.tests) if (!existsSync(join(root, t))) fail(`${m.id}: test file ${t} does not exist`);
}

const files = [...new Set(chosen.flatMap((m) => m.tests))];
console.log(`baseline: ${files.join(' ')}`);
const base = runTests(files);
if (!base.passed) {
  console.error(base.out);
  fail('the targeted tests fail without any mutation');
}
console.log(`baseline passes (${base.tests})`);

const results = [];
for (const m of chosen) {
  const path = join(root, m.file);
  const original = readFileSync(path, 'utf8');
  mkdirSync(backupDir, { recursive: true });
  writeFileSync(join(backupDir, Buffer.from(m.file).toString('base64url')), original);
  current = { file: m.file, original };
  writeFileSync(path, original.split(m.find).join(m.replace));
  const t0 = Date.now();
  const r = runTests(m.tests);
  restore();
  const caught = !r.passed;
  results.push({ id: m.id, caught, tests: r.tests, seconds: Math.round((Date.now() - t0) / 100) / 10 });
  console.log(`${caught ? 'caught  ' : 'SURVIVED'} ${m.id}: ${m.what} (${r.tests || 'no test summary'})`);
}
rmSync(backupDir, { recursive: true, force: true });
const survived = results.filter((r) => !r.caught);
console.log(JSON.stringify({ mutations: results.length, caught: results.length - survived.length, survived: survived.map((r) => r.id) }));
process.exit(survived.length ? 1 : 0);
