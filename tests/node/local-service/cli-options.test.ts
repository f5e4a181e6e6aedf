import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { fileMode, HELP, parseKeyFile, resolveKeys } from '../../../electron/local-service/cli-options';

const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'fieldlens-cli-'));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const noFile = () => {
  throw new Error('ENOENT: no such file');
};

describe('service keys', () => {
  it('help prefers the environment or a key file and says why --key is risky', () => {
    expect(HELP).toContain('--key-file FILE');
    expect(HELP).toMatch(/FIELDLENS_SERVICE_KEY/);
    expect(HELP).toMatch(/visible to every user of this machine\s+\(ps, \/proc\) and npm echoes them into its logs/);
    expect(HELP).toMatch(/--key KEY\s+Bearer key for compute\/stream; visible to other users of this machine/);
  });

  it('reads NAME=value lines, skipping comments and quotes', () => {
    expect(parseKeyFile('# keys\nFIELDLENS_SERVICE_KEY = "b1"\r\nexport FIELDLENS_SERVICE_SEARCH_KEY=s1\n\nnoise\n')).toEqual({
      FIELDLENS_SERVICE_KEY: 'b1',
      FIELDLENS_SERVICE_SEARCH_KEY: 's1',
    });
  });

  it('takes flags first, then the key file, then the environment', () => {
    const env = { FIELDLENS_SERVICE_KEY: 'env-b', FIELDLENS_SERVICE_SEARCH_KEY: 'env-s' };
    expect(resolveKeys({ env, readFile: noFile })).toEqual({ ok: true, bearer: 'env-b', search: 'env-s', warnings: [] });
    const file = () => 'FIELDLENS_SERVICE_KEY=file-b\n';
    expect(resolveKeys({ env, keyFile: 'k', readFile: file, modeOf: () => 0o100600 })).toMatchObject({ bearer: 'file-b', search: 'env-s', warnings: [] });
    const flags = resolveKeys({ env, key: 'flag-b', keyFile: 'k', readFile: file });
    expect(flags).toMatchObject({ bearer: 'flag-b', search: 'env-s' });
    expect(flags.ok && flags.warnings[0]).toMatch(/visible to other users/);
  });

  it('warns about a key file others can read, and says what is missing', () => {
    const keys = resolveKeys({ env: {}, keyFile: '/k', readFile: () => 'FIELDLENS_SERVICE_KEY=b\nFIELDLENS_SERVICE_SEARCH_KEY=s', modeOf: () => 0o100644 });
    expect(keys.ok && keys.warnings).toEqual(['The key file /k can be read by other users; make it private with: chmod 600 /k']);
    expect(resolveKeys({ env: {}, keyFile: '/nope', readFile: noFile })).toEqual({ ok: false, error: 'Cannot read the key file /nope: ENOENT: no such file' });
    const none = resolveKeys({ env: {}, readFile: noFile });
    expect(!none.ok && none.error).toMatch(/^Both keys are required: set FIELDLENS_SERVICE_KEY and FIELDLENS_SERVICE_SEARCH_KEY/);
  });

  it('runs the service with keys from a private key file', { timeout: 60_000 }, async () => {
    const dir = tempDir();
    const keyFile = join(dir, 'keys.env');
    writeFileSync(keyFile, 'FIELDLENS_SERVICE_KEY=file-bearer-0001\nFIELDLENS_SERVICE_SEARCH_KEY=file-search-0001\n');
    chmodSync(keyFile, 0o600);
    expect((fileMode(keyFile)! & 0o777).toString(8)).toBe('600');
    const root = resolve(import.meta.dirname, '..', '..', '..');
    const env = { ...process.env };
    delete env['FIELDLENS_SERVICE_KEY'];
    delete env['FIELDLENS_SERVICE_SEARCH_KEY'];
    const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'electron/local-service/cli.ts'), '--json', '--no-sample', '--data-dir', join(dir, 'data'), '--key-file', keyFile], {
      cwd: root,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    try {
      const line = await new Promise<string>((ok, fail) => {
        createInterface({ input: child.stdout! }).once('line', ok);
        child.once('exit', (code) => fail(new Error(`service exited with ${code}: ${stderr}`)));
      });
      const { baseUrl } = JSON.parse(line) as { baseUrl: string };
      const ok = await fetch(`${baseUrl}/v1/areas`, { headers: { authorization: 'Bearer file-bearer-0001' } });
      expect(ok.status).toBe(200);
      const wrong = await fetch(`${baseUrl}/v1/areas`, { headers: { authorization: 'Bearer something-else' } });
      expect(wrong.status).toBe(401);
      expect(stderr).not.toMatch(/can be read by other users/);
    } finally {
      const exited = new Promise((ok) => child.once('exit', ok));
      child.kill('SIGTERM');
      await exited;
    }
  });
});
