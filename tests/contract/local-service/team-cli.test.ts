import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPgCluster, type PgCluster } from '../../support/pg-cluster';
import { writeTownFiles } from '../../support/town/files';
import { WORKER_SEMI_SPACE_MB } from '../../../electron/local-service/workers';

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

/** The secret part of `fl_<key id>_<secret>`: base64url, so it may hold `_` itself. */
const secretOf = (key: string) => key.split('_').slice(2).join('_');

describe('the team service from the command line', () => {
  it('--new-key prints a key once and the users-file line that admits it; a bad users file stops the start', { timeout: 120_000 }, () => {
    const made = run(['--new-key', 'alice']);
    expect(made.status).toBe(0);
    const key = /key .*: (fl_\S+)/.exec(made.stdout)![1]!;
    const line = made.stdout.trim().split('\n').at(-1)!;
    expect(line).toMatch(/^alice [a-z0-9]+ scrypt\$/);
    expect(line).not.toContain(secretOf(key));
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
    expect(stderr).not.toContain(secretOf(key));
    expect(stderr).not.toContain('Malta');
  });

  it('--workers 2 with --layer: the layer goes to PostGIS once, two processes answer on one port (each connection to the one holding fewer), either continues the other\'s search, a dead worker is replaced, SIGTERM drains all', { timeout: 400_000 }, async () => {
    const made = run(['--new-key', 'carol']);
    const key = /key .*: (fl_\S+)/.exec(made.stdout)![1]!;
    writeFileSync(join(dir, 'users-w.txt'), made.stdout.trim().split('\n').at(-1)! + '\n');
    const town = writeTownFiles(join(dir, 'town'));
    const url = await cluster.createDatabase();
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', CLI, '--users-file', join(dir, 'users-w.txt'), '--data-dir', join(dir, 'd2'), '--database', url, '--workers', '2', '--layer', town.geojson, '--json'],
      { env: process.env },
    );
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += String(d)));
    const [first] = (await once(child.stdout, 'data')) as [Buffer];
    const { baseUrl } = JSON.parse(String(first)) as { baseUrl: string };
    const workers = () => spawnSync('pgrep', ['-P', String(child.pid)], { encoding: 'utf8' }).stdout.trim().split('\n').filter(Boolean).map(Number);
    expect(workers()).toHaveLength(2);
    // Each worker runs with the larger young generation and the collector on its own thread.
    const gcArgs = (pid: number) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter((a) => /^--(max-semi-space-size|single-threaded-gc)/.test(a));
    const wanted = [`--max-semi-space-size=${WORKER_SEMI_SPACE_MB}`, '--single-threaded-gc'];
    for (const pid of workers()) expect(gcArgs(pid)).toEqual(wanted);
    // In the database once, not once per process.
    expect(spawnSync('psql', [url, '-Atc', "SELECT count(*) FROM layers WHERE state = 'ready'"], { encoding: 'utf8' }).stdout.trim()).toBe('1');
    const ask = async (body: object) => {
      const res = await fetch(`${baseUrl}/v1/compute`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      expect(res.status).toBe(200);
      return (await res.json()) as { id: string; results: { numberMatched: number; features: { properties: { name: string } }[] } };
    };
    // The primary hands each connection to the process holding the fewest: six kept-alive
    // connections split 3/3; once the three on one process close, the next three all go to it.
    const onConnection = (agent: http.Agent, id: string) =>
      new Promise<void>((ok, bad) =>
        http
          .get(`${baseUrl}/healthz`, { agent, headers: { 'x-request-id': id } }, (res) => {
            res.resume();
            res.on('end', ok);
          })
          .on('error', bad),
      );
    const pidOf = async (id: string) => {
      for (let t = 0; t < 100; t++) {
        const line = stderr.split('\n').find((l) => l.includes(`"request_id":"${id}"`));
        if (line) return (JSON.parse(line) as { detail: { pid: number } }).detail.pid;
        await new Promise((ok) => setTimeout(ok, 20));
      }
      throw new Error(`no log line for ${id}`);
    };
    const agents = Array.from({ length: 6 }, () => new http.Agent({ keepAlive: true, maxSockets: 1 }));
    const held: number[] = [];
    for (const [i, a] of agents.entries()) {
      await onConnection(a, `held-${i}`);
      held.push(await pidOf(`held-${i}`));
    }
    // Each agent kept its one connection: a second request on it is answered by the same process.
    for (const [i, a] of agents.entries()) {
      await onConnection(a, `again-${i}`);
      expect(await pidOf(`again-${i}`)).toBe(held[i]);
    }
    const [pidA, pidB] = workers();
    expect(held.filter((p) => p === pidA)).toHaveLength(3);
    expect(held.filter((p) => p === pidB)).toHaveLength(3);
    agents.forEach((a, i) => held[i] === pidA && a.destroy());
    // The worker tells the primary of each close; give the messages a moment.
    await new Promise((ok) => setTimeout(ok, 500));
    const fresh = Array.from({ length: 3 }, () => new http.Agent({ keepAlive: true, maxSockets: 1 }));
    for (const [i, a] of fresh.entries()) {
      await onConnection(a, `fresh-${i}`);
      expect(await pidOf(`fresh-${i}`)).toBe(pidA);
    }
    for (const a of [...agents, ...fresh]) a.destroy();
    const pharmacies = town.features.filter((f) => f.properties['amenity'] === 'pharmacy').map((f) => f.properties['name']).sort();
    expect((await ask({ query: 'pharmacies', limit: 100 })).results.numberMatched).toBe(pharmacies.length);
    // The process that checked the key tells the other (through the primary, within a moment).
    await new Promise((ok) => setTimeout(ok, 500));
    // Each new connection goes to the process holding fewer: over several, a continuation lands on the other process too.
    for (let i = 0; i < 4; i++) {
      const a = await ask({ query: 'pharmacies', limit: 100 });
      expect(a.results.features.map((f) => f.properties.name).sort()).toEqual(pharmacies);
      const b = await ask({ query: 'airports in Malta', limit: 100 });
      // A new connection each time: the answer's save is written
      // before the answer is sent, so the other process continues it at once.
      const next = await fetch(`${baseUrl}/v1/compute`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', connection: 'close' },
        body: JSON.stringify({ query: 'sort by distance to Valletta', search_id: b.id }),
      });
      expect(next.status).toBe(200);
      expect(((await next.json()) as { results: { numberMatched: number } }).results.numberMatched).toBe(b.results.numberMatched);
    }
    // Both processes answered carol, and her key went through scrypt once between them.
    const logged = stderr.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { msg: string; detail?: { user?: string; pid?: number } });
    expect(new Set(logged.filter((l) => l.msg === 'request' && l.detail?.user === 'carol').map((l) => l.detail?.pid)).size).toBe(2);
    expect(logged.filter((l) => l.msg === 'key checked').map((l) => l.detail?.user)).toEqual(['carol']);
    const [gone] = workers();
    process.kill(gone!, 'SIGKILL');
    for (let t = 0; t < 100 && (workers().length < 2 || workers().includes(gone!)); t++) await new Promise((ok) => setTimeout(ok, 100));
    expect(workers()).toHaveLength(2);
    expect(workers()).not.toContain(gone);
    for (const pid of workers()) expect(gcArgs(pid)).toEqual(wanted);
    // The primary's line arrives on the pipe with the next turn of this event loop (pgrep ran synchronously).
    for (let t = 0; t < 40 && !stderr.includes(`worker ${gone} ended`); t++) await new Promise((ok) => setTimeout(ok, 50));
    expect(stderr).toContain(`worker ${gone} ended (SIGKILL); starting another`);
    expect((await ask({ query: 'pharmacies', limit: 100 })).results.numberMatched).toBe(pharmacies.length);
    child.kill('SIGTERM');
    const [code] = (await once(child, 'exit')) as [number];
    expect(code).toBe(0);
    expect(workers()).toEqual([]);
  });
});
