import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_UPLOAD_REQUEST_BYTES } from '../../../electron/local-service/http/compute-body';
import { PROBLEM_CONTENT_TYPE } from '../../../shared/service/problem';
import { multipartBody, rawRequest } from '../../support/raw-http';
import { KEYS, postForm, startService, stopService, type Running } from './harness';

const MIB = 1024 * 1024;
const BOUNDARY = 'fieldlens-limits-boundary';

/** A CSV of `rows` points in France, each row padded so the file reaches about `rows * 40` bytes. */
const sitesCsv = (rows: number) =>
  'name,lat,lon,note\n' + Array.from({ length: rows }, (_, i) => `site ${i},${(45 + (i % 100) / 100).toFixed(2)},${(4 + (i % 97) / 100).toFixed(2)},${'x'.repeat(12)}`).join('\n');

// The service runs in this process, so its upload folder is named by this process's id.
const uploadDir = (r: Running) => join(r.dataDir, 'tmp', 'uploads', String(process.pid));
const leftovers = (r: Running) => (existsSync(uploadDir(r)) ? readdirSync(uploadDir(r)) : []);

async function until(check: () => boolean | Promise<boolean>, ms = 10_000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return true;
    await new Promise((ok) => setTimeout(ok, 20));
  }
  return check();
}

describe('upload limits', () => {
  let r: Running;
  beforeAll(async () => {
    // A budget of 1 MiB: one request of 800 KiB in flight leaves no room for another of 300 KiB.
    r = await startService({ options: { uploadBudgetBytes: MIB } });
  });
  afterAll(async () => {
    await stopService(r);
  });

  it('answers multipart/form-data without a boundary with a 400 problem', async () => {
    const res = await fetch(`${r.baseUrl}/v1/compute`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEYS.bearer}`, 'content-type': 'multipart/form-data' },
      body: '--x\r\ncontent-disposition: form-data; name="query"\r\n\r\nairports in France\r\n--x--\r\n',
    });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toContain(PROBLEM_CONTENT_TYPE);
    expect(await res.json()).toMatchObject({ status: 400, code: 'no_boundary' });
  });

  it('refuses a request declaring more than the limit with 413 before reading its body', async () => {
    const req = rawRequest(r.baseUrl, {
      path: '/v1/compute',
      headers: { authorization: `Bearer ${KEYS.bearer}`, 'content-type': `multipart/form-data; boundary=${BOUNDARY}`, 'content-length': String(1024 * MIB) },
    });
    // The body is sent until the answer comes (at most 32 MiB of a declared gibibyte): the
    // answer comes before the body was read, and reaches the client while it is still sending.
    let answered = false;
    void req.response.then(() => (answered = true), () => (answered = true));
    for (let i = 0; i < 32 && !answered; i++) await req.write(Buffer.alloc(MIB, 'a'));
    const res = await req.response;
    req.socket.destroy();
    expect(res.status).toBe(413);
    expect(res.headers['connection']).toBe('close');
    const body = JSON.parse(res.body) as { code: string; detail: string };
    expect(body.code).toBe('request_too_large');
    expect(body.detail).toContain(`at most ${Math.floor(MAX_UPLOAD_REQUEST_BYTES / MIB)} MiB`);
  });

  it('answers 503 with Retry-After past the upload budget, and gives the budget back when a request is cut off', async () => {
    const big = multipartBody(BOUNDARY, { query: 'my sites' }, [{ name: 'slow.csv', bytes: Buffer.from(sitesCsv(22_000)) }]);
    expect(big.length).toBeGreaterThan(700 * 1024);
    expect(big.length).toBeLessThan(MIB);
    const slow = rawRequest(r.baseUrl, {
      path: '/v1/compute',
      headers: { authorization: `Bearer ${KEYS.bearer}`, 'content-type': `multipart/form-data; boundary=${BOUNDARY}`, 'content-length': String(big.length) },
    });
    await slow.write(big.subarray(0, big.length >> 1));
    // The half sent is on disk, in the data folder's upload area, while the request is in flight.
    expect(await until(() => leftovers(r).length === 1)).toBe(true);

    const second = new FormData();
    second.append('query', 'my sites');
    second.append('files', new Blob([sitesCsv(12_000)]), 'second.csv');
    expect(big.length + sitesCsv(12_000).length).toBeGreaterThan(MIB);
    const busy = await fetch(`${r.baseUrl}/v1/compute`, { method: 'POST', headers: { authorization: `Bearer ${KEYS.bearer}` }, body: second });
    expect(busy.status).toBe(503);
    expect(Number(busy.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await busy.json()).toMatchObject({ status: 503, code: 'uploads_busy' });

    // Cut off mid-body: its file is removed and its share of the budget comes back.
    slow.socket.destroy();
    expect(await until(() => leftovers(r).length === 0)).toBe(true);
    let status = 0;
    await until(async () => (status = (await postForm(r, second)).status) !== 503);
    expect(status).toBe(200);
    expect(leftovers(r)).toEqual([]);
    // A client that went away is no server error.
    expect(r.logger.lines.filter((l) => l.includes('"level":"error"'))).toEqual([]);
  });

  it('removes the files of a request that failed', async () => {
    const form = new FormData();
    form.append('query', 'my sites');
    form.append('files', new Blob([sitesCsv(50)]), 'good.csv');
    form.append('files', new Blob([Buffer.from([0x50, 0x4b, 0x03, 0x04, 0, 0, 0, 0, 1, 2, 3])]), 'archive.csv');
    const res = await postForm(r, form);
    expect(res.status).toBe(400);
    expect((res.body as { code: string }).code).toBe('binary');
    expect(leftovers(r)).toEqual([]);
  });

  it('keeps a file over the per-file limit out and removes what was written of it', async () => {
    const form = new FormData();
    form.append('query', 'my sites');
    form.append('files', new Blob([Buffer.alloc(21 * MIB, 0x61)]), 'huge.csv');
    const res = await postForm(r, form);
    expect(res.status).toBe(413);
    expect((res.body as { code: string }).code).toBe('file_too_large');
    expect(leftovers(r)).toEqual([]);
  });
});

describe('upload folder at start', () => {
  it('removes the folders of processes no longer running and empties its own, leaving running ones', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'fieldlens-limits-'));
    const root = join(dataDir, 'tmp', 'uploads');
    // A process that ran and ended: its id is free now.
    const ended = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout;
    for (const [dir, file] of [[ended, 'left.csv'], [String(process.pid), 'mine.csv'], [String(process.ppid), 'other.csv']] as const) {
      mkdirSync(join(root, dir), { recursive: true });
      writeFileSync(join(root, dir, file), 'x');
    }
    const r = await startService({ dataDir });
    try {
      expect(readdirSync(root).sort()).toEqual([String(process.pid), String(process.ppid)].sort());
      expect(readdirSync(join(root, String(process.pid)))).toEqual([]);
      expect(readdirSync(join(root, String(process.ppid)))).toEqual(['other.csv']);
    } finally {
      await stopService(r);
    }
  });
});

describe('wrong keys', () => {
  let r: Running;
  beforeAll(async () => {
    r = await startService({ options: { wrongKeysPerMinute: 5 } });
  });
  afterAll(async () => {
    await stopService(r);
  });

  const areas = (key: string) => fetch(`${r.baseUrl}/v1/areas`, { headers: { authorization: `Bearer ${key}` } });

  it('answers 429 with Retry-After after the limit of wrong keys, serves the right key meanwhile, and logs one line without the key', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await areas(`wrong-key-${i}`)).status);
    expect(statuses).toEqual([401, 401, 401, 401, 401]);
    const held = await areas('wrong-key-5');
    expect(held.status).toBe(429);
    expect(Number(held.headers.get('retry-after'))).toBeGreaterThan(0);
    // The count is per address across both hosts.
    const search = await fetch(`${r.searchBaseUrl}/health`, { headers: { 'x-api-key': 'wrong-key-6' } });
    expect(search.status).toBe(200);
    const searchHeld = await fetch(`${r.searchBaseUrl}/v1/nothing-here`, { headers: { 'x-api-key': 'wrong-key-7' } });
    expect(searchHeld.status).toBe(429);
    // The right key, from the same address, is served all along.
    expect((await areas(KEYS.bearer)).status).toBe(200);
    expect((await areas('wrong-key-8')).status).toBe(429);

    const lines = r.logger.lines.filter((l) => l.includes('wrong keys'));
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: 'warn', detail: { failures: 1 } });
    expect(r.logger.lines.join('\n')).not.toMatch(/wrong-key-\d/);
  });
});
