import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../../../', import.meta.url));

describe('the bundled service runs alone', () => {
  const dir = mkdtempSync(join(tmpdir(), 'fieldlens-isolation-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('loads its CLI with nothing of the composition root or the app services', async () => {
    const loadsFile = join(dir, 'loads.txt');
    // --help exits after every static import of the CLI has been loaded and evaluated.
    const { stdout } = await run(
      process.execPath,
      ['--import', 'tsx', '--import', join(import.meta.dirname, 'load-recorder.mjs'), join(root, 'electron/local-service/cli.ts'), '--help'],
      { cwd: root, timeout: 60_000, env: { ...process.env, FIELDLENS_LOADS_FILE: loadsFile, FIELDLENS_LOADS_HOOKED: '' } },
    );
    expect(stdout).toMatch(/npm run service/);

    const project = readFileSync(loadsFile, 'utf8')
      .split('\n')
      .filter((u) => u.startsWith('file:'))
      .map((u) => relative(root, fileURLToPath(u)).split('\\').join('/'))
      .filter((p) => !p.startsWith('node_modules/') && !p.startsWith('..'));
    const electron = [...new Set(project.filter((p) => p.startsWith('electron/')))];

    // The recording works: the service itself and the ground floor were loaded.
    expect(electron).toContain('electron/local-service/cli.ts');
    expect(electron).toContain('electron/local-service/server.ts');
    expect(electron).toContain('electron/ground/logger.ts');
    // Nothing else of electron/: no root, no services, no shells.
    expect(electron.filter((p) => !/^electron\/(local-service|ground)\//.test(p))).toEqual([]);
    // Whatever else of the project it loaded is shared/ (the contract).
    expect(project.filter((p) => !p.startsWith('electron/') && !p.startsWith('shared/'))).toEqual([]);
  });
});
