import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ensureBuilt, inputsHash } from '../../../scripts/build-if-changed.mjs';

describe('npm start builds only when sources changed', () => {
  let root: string;
  let builds: number;
  const inputs = ['src', 'config.json'];
  const outputs = ['out/app.js'];
  // Stands in for electron-vite: writes the output and a line of log, counts its runs.
  const build = (ok = true) => (logFile: string) => {
    builds++;
    writeFileSync(logFile, ok ? 'rollup warning: a comment was removed\n' : 'error: src/a.ts: Unexpected token\n');
    if (ok) {
      mkdirSync(join(root, 'out'), { recursive: true });
      writeFileSync(join(root, 'out/app.js'), `built ${builds}`);
    }
    return ok;
  };
  const run = (ok = true) => ensureBuilt({ root, build: build(ok), inputs, outputs });

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'fieldlens-stamp-'));
    builds = 0;
    mkdirSync(join(root, 'src/deep'), { recursive: true });
    writeFileSync(join(root, 'src/a.ts'), 'export const a = 1;\n');
    writeFileSync(join(root, 'src/deep/b.ts'), 'export const b = 2;\n');
    writeFileSync(join(root, 'config.json'), '{}\n');
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('builds the first time, then not again while nothing changed', () => {
    expect(run().built).toBe(true);
    expect(run().built).toBe(false);
    expect(run().built).toBe(false);
    expect(builds).toBe(1);
  });

  it('rebuilds when a source file changes, is added or is removed, not when only its time changes', () => {
    run();
    const later = new Date(Date.now() + 60_000);
    utimesSync(join(root, 'src/a.ts'), later, later);
    expect(run().built).toBe(false);
    writeFileSync(join(root, 'src/deep/b.ts'), 'export const b = 3;\n');
    expect(run().built).toBe(true);
    writeFileSync(join(root, 'src/deep/c.ts'), '');
    expect(run().built).toBe(true);
    rmSync(join(root, 'src/deep/c.ts'));
    expect(run().built).toBe(true);
    writeFileSync(join(root, 'config.json'), '{"x":1}\n');
    expect(run().built).toBe(true);
    expect(builds).toBe(5);
  });

  it('ignores files that are not inputs', () => {
    run();
    writeFileSync(join(root, 'README.md'), 'notes\n');
    expect(run().built).toBe(false);
  });

  it('rebuilds when an output is missing or was rebuilt by other means since', () => {
    run();
    rmSync(join(root, 'out/app.js'));
    expect(run().built).toBe(true);
    const later = new Date(Date.now() + 60_000);
    utimesSync(join(root, 'out/app.js'), later, later);
    expect(run().built).toBe(true);
    expect(run().built).toBe(false);
  });

  it('shows the build log only when the build fails, and retries on the next start', () => {
    const written: string[] = [];
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
      written.push(String(chunk));
      return true;
    });
    try {
      run();
      expect(written).toEqual([]);
      writeFileSync(join(root, 'src/a.ts'), 'export const a = ;\n');
      expect(() => run(false)).toThrow(/build failed/);
      expect(written.join('')).toContain('Unexpected token');
    } finally {
      spy.mockRestore();
    }
    expect(existsSync(join(root, 'out/build.log'))).toBe(true);
    // No stamp was written for the failed inputs: the next start builds again.
    expect(run().built).toBe(true);
  });

  it('hashes paths and bytes: the same tree elsewhere gives the same hash', () => {
    const other = mkdtempSync(join(tmpdir(), 'fieldlens-stamp-'));
    try {
      mkdirSync(join(other, 'src/deep'), { recursive: true });
      writeFileSync(join(other, 'src/deep/b.ts'), 'export const b = 2;\n');
      writeFileSync(join(other, 'src/a.ts'), 'export const a = 1;\n');
      writeFileSync(join(other, 'config.json'), '{}\n');
      expect(inputsHash(other, inputs)).toBe(inputsHash(root, inputs));
      // The same bytes under another name are another tree.
      rmSync(join(other, 'src/a.ts'));
      writeFileSync(join(other, 'src/a2.ts'), 'export const a = 1;\n');
      expect(inputsHash(other, inputs)).not.toBe(inputsHash(root, inputs));
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });
});
