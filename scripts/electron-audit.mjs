// Electron hardening gate: runs Electronegativity over the Node side (electron/) together with
// the page the window loads (renderer/index.html, which holds the CSP) and fails on any HIGH or
// MEDIUM finding. The tool itself always exits 0, so its findings are read and judged here.
// A finding reviewed and accepted is marked in the source with an `eng-disable` comment that
// says why; the tool then leaves it out.
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const require = createRequire(import.meta.url);
const root = resolve(import.meta.dirname, '..');
export const BLOCKING = ['HIGH', 'MEDIUM'];

/** What is scanned: the main process, preload and services, and the window's page. */
export const AUDITED = ['electron', 'renderer/index.html'];

/**
 * Scans `files` (paths under `base`) and returns every finding, with `blocking` those of
 * HIGH or MEDIUM severity.
 */
export async function audit({ base = root, files = AUDITED } = {}) {
  const run = require('@doyensec/electronegativity');
  const electronVersion = JSON.parse(readFileSync(join(root, 'node_modules/electron/package.json'), 'utf8')).version;
  // One input folder holding exactly the audited files (the tool takes a single input).
  const stage = mkdtempSync(join(tmpdir(), 'fieldlens-audit-'));
  try {
    for (const f of files) cpSync(join(base, f), join(stage, f), { recursive: true });
    const quiet = console.log;
    // The tool prints progress lines even when used as a library.
    console.log = () => undefined;
    let result;
    try {
      result = await run({ input: stage, isRelative: true, electronVersionOverride: electronVersion, parserPlugins: [] }, false);
    } finally {
      console.log = quiet;
    }
    const findings = result.issues.map((i) => ({
      id: i.id,
      severity: i.severity.name,
      confidence: i.confidence.name,
      file: i.file,
      line: i.location.line,
      description: i.description,
    }));
    return {
      checks: result.globalChecks + result.atomicChecks,
      findings,
      blocking: findings.filter((f) => BLOCKING.includes(f.severity)),
      parseErrors: result.errors.filter((e) => !e.tolerable).map((e) => `${e.file}: ${e.message}`),
    };
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  const r = await audit();
  for (const f of r.findings) console.log(`${f.severity.padEnd(13)} ${f.id} ${f.file}:${f.line} ${f.description}`);
  console.log(`${r.checks} checks, ${r.findings.length} finding(s), ${r.blocking.length} HIGH or MEDIUM`);
  for (const e of r.parseErrors) console.log(`could not parse ${e}`);
  process.exit(r.blocking.length || r.parseErrors.length ? 1 : 0);
}
