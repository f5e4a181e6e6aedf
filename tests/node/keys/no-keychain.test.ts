import { execFile } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { fakeKey, filesContaining, filesUnder, tempDir } from './keyring';

const run = promisify(execFile);

describe('keys.set without a Secret Service', () => {
  const root = tempDir('fieldlens-nokeychain-');
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('returns KEYCHAIN with guidance and writes the key nowhere', async () => {
    const dataDir = join(root, 'data');
    const key = fakeKey('nokeychain');
    const { stdout, stderr } = await run(
      process.execPath,
      ['--import', 'tsx', join(import.meta.dirname, 'no-keychain-child.ts')],
      {
        cwd: process.cwd(),
        timeout: 60_000,
        env: {
          PATH: process.env['PATH'] ?? '',
          HOME: join(root, 'home'),
          XDG_DATA_HOME: join(root, 'xdg-data'),
          XDG_CONFIG_HOME: join(root, 'xdg-config'),
          XDG_RUNTIME_DIR: join(root, 'runtime'),
          // No session bus, and no X display to autolaunch one: the Secret Service is absent.
          DBUS_SESSION_BUS_ADDRESS: `unix:path=${join(root, 'no-bus')}`,
          CHILD_DATA_DIR: dataDir,
          CHILD_KEY: key,
        },
      },
    );
    const out = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}');

    expect(out.saved.ok).toBe(true);
    expect(out.set.ok).toBe(false);
    expect(out.set.error.code).toBe('KEYCHAIN');
    expect(out.set.error.message).toMatch(/keychain is not available/i);
    expect(out.set.error.message).toMatch(/install and unlock .*gnome-keyring/i);
    expect(out.set.error.details).toMatchObject({ guidance: expect.stringMatching(/gnome-keyring/) });
    expect(out.setMs).toBeLessThan(5000);
    // Status and test fail the same clear way instead of pretending no key is set.
    expect(out.status).toMatchObject({ ok: false, error: { code: 'KEYCHAIN' } });
    expect(out.test).toMatchObject({ ok: false, error: { code: 'KEYCHAIN' } });
    // The bundled service still answers, on keys held in memory for this run only.
    expect(out.local).toMatchObject({ ok: true, value: { outcome: 'ok' } });
    expect(out.held).toHaveLength(2);
    expect(filesContaining(root, out.held)).toEqual([]);

    // Nothing fell back to a file: not in the data dir, not in HOME, not in the output.
    expect(existsSync(join(dataDir, 'profiles.json'))).toBe(true);
    expect(filesUnder(root).length).toBeGreaterThan(0);
    expect(filesContaining(root, [key])).toEqual([]);
    expect(stdout + stderr).not.toContain(key);
    expect(readFileSync(join(dataDir, 'profiles.json'), 'utf8')).not.toMatch(/key/i);
  });
});
