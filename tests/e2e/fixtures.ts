import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { test as base } from '@playwright/test';

export interface HostProcess {
  url: string;
  launchUrl: string;
  dataDir: string;
}

/** Starts the built browser host (out/main/host.js) once per worker on a free port. */
export const test = base.extend<object, { host: HostProcess }>({
  host: [
    // eslint-disable-next-line no-empty-pattern
    async ({}, use) => {
      const dataDir = mkdtempSync(join(tmpdir(), 'fl-e2e-'));
      const child: ChildProcess = spawn(process.execPath, ['out/main/host.js', '--json', '--no-detect', '--data-dir', dataDir], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      const first = await new Promise<string>((resolve, reject) => {
        const lines = createInterface({ input: child.stdout! });
        lines.once('line', resolve);
        child.once('exit', (code) => reject(new Error(`host exited early (${code}); run "npm run build" first`)));
      });
      const info = JSON.parse(first) as HostProcess;
      await use(info);
      child.kill('SIGTERM');
    },
    { scope: 'worker' },
  ],
});
export { expect } from '@playwright/test';
