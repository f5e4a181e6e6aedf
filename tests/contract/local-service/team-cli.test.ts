import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPgCluster, type PgCluster } from '../../support/pg-cluster';

/** `npm run service` as a team runs it: --database, --users-file, --new-key, SIGTERM. */
const CLI = join(import.meta.dirname, '../../../electron/local-service/cli.ts');
const run = (args: string[], env: Record<string, string> = {}) =>
  spawnSync(process.execPath, ['--import', 'tsx', CLI, ...args], { encoding: 'utf8', env: { ...process.env, ...env }, timeout: 60_000 });

let cluster: PgCluster;
let dir: string;
beforeAll(() => {
  cluster = startPgCluster();
  dir = mkdtempSync(join(tmpdir(), 'fieldlens-team-cli-'));
});
afterAll(() => {
  cluster?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('the team service from the command line', () => {
  it('--new-key prints a key once and the users-file line that admits it; a bad users file stops the start', { timeout: 120_000 }, () => {
    const made = run(['--new-key', 'alice']);
    expect(made.status).toBe(0);
    const key = /key .*: (fl_\S+)/.exec(made.stdout)![1]!;
    const line = made.stdout.trim().split('\n').at(-1)!;
    expect(line).toMatch(/^alice [a-z0-9]+ scrypt\$/);
    expect(line).not.toContain(key.split('_')[2]);
    writeFileSync(join(dir, 'bad.txt'), 'alice plaintext\n');
    const bad = run(['--users-file', join(dir, 'bad.txt'), '--data-dir', join(dir, 'd0')]);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/users file .*line 1/);
  });

  it('serves on PostgreSQL from FIELDLENS_DATABASE_URL with users-file keys, logs JSON lines, and exits cleanly on SIGTERM', { timeout: 120_000 }, async () => {
    const made = run(['--new-key', 'bob']);
    const key = /key .*: (fl_\S+)/.exec(made.stdout)![1]!;
    writeFileSync(join(dir, 'users.txt'), made.stdout.trim().split('\n').at(-1)! + '\n');
    const url = await cluster.createDatabase();
    const child = spawn(process.execPath, ['--import', 'tsx', CLI, '--users-file', join(dir, 'users.txt'), '--data-dir', join(dir, 'd1'), '--json'], {
      env: { ...process.env, FIELDLENS_DATABASE_URL: url },
    });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += String(d)));
    const [first] = (await once(child.stdout, 'data')) as [Buffer];
    const { baseUrl } = JSON.parse(String(first)) as { baseUrl: string };
    expect((await fetch(`${baseUrl}/readyz`)).status).toBe(200);
    const res = await fetch(`${baseUrl}/v1/compute`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'x-request-id': 'cli-1' },
      body: JSON.stringify({ query: 'airports in Malta' }),
    });
    expect(res.status).toBe(200);
    const saved = spawnSync('psql', [url, '-Atc', 'SELECT user_id FROM searches'], { encoding: 'utf8' });
    // Saves are written behind: the row is there within a moment.
    for (let i = 0; i < 40 && !saved.stdout.trim(); i++) {
      await new Promise((ok) => setTimeout(ok, 50));
      Object.assign(saved, spawnSync('psql', [url, '-Atc', 'SELECT user_id FROM searches'], { encoding: 'utf8' }));
    }
    expect(saved.stdout.trim()).toBe('bob');
    child.kill('SIGTERM');
    const [code] = (await once(child, 'exit')) as [number];
    expect(code).toBe(0);
    const lines = stderr.trim().split('\n').map((l) => JSON.parse(l) as { msg: string; detail?: Record<string, unknown> });
    expect(lines.find((l) => l.detail?.['request_id'] === 'cli-1')).toMatchObject({ msg: 'request', detail: { status: 200, user: 'bob', route: '/v1/compute' } });
    expect(stderr).not.toContain(key.split('_')[2]);
    expect(stderr).not.toContain('Malta');
  });
});
