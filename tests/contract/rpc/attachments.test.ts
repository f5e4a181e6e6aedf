import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { AppServices } from '../../../electron/root/app-services';
import { createMemoryLogger } from '../../../electron/ground/logger';
import { startBrowserHost, type BrowserHost } from '../../../electron/host/browser-host';
import { createRpcClient, type RpcClient } from '../../../shared/rpc/client';
import { ATTACHMENT_MAX_FILE_BYTES, ATTACHMENT_MAX_FILES, RPC_MAX_BASE64 } from '../../../shared/rpc/limits';
import type { InlineAttachment } from '../../../shared/rpc/methods/compute';
import { createWsTransport, type WebSocketLike } from '../../../shared/rpc/ws-protocol';
import { createUploadService } from '../../../renderer/src/services/uploads';
import { bootTestApp, value } from '../../support/app';

const MIB = 1024 * 1024;

/** A CSV of about `bytes` bytes: rows padded with a notes column so the file is large but its rows few. */
function sitesCsv(bytes: number, seed: number): string {
  const notes = 'n'.repeat(900);
  const rows = ['name,lat,lon,notes'];
  let size = rows[0]!.length + 1;
  for (let i = 0; size < bytes; i++) {
    const row = `site ${seed}-${i},${(((i * 7919 + seed) % 17000) / 100 - 85).toFixed(5)},${(((i * 104729 + seed) % 35000) / 100 - 175).toFixed(5)},${notes}`;
    rows.push(row);
    size += row.length + 1;
  }
  return rows.join('\n') + '\n';
}

/** Data rows of a CSV, counted from its text: every line after the header that is not empty. */
const rowsOf = (csv: string) => csv.split('\n').slice(1).filter((l) => l !== '').length;

const csvFile = (name: string, text: string): InlineAttachment => ({
  field: 'files',
  name,
  contentType: 'text/csv',
  dataBase64: Buffer.from(text).toString('base64'),
});

describe('attachments larger than one call, staged over the browser host WebSocket', () => {
  let dir: string;
  let services: AppServices;
  let host: BrowserHost;
  let client: RpcClient;
  let close: () => void;
  const staged = () => (existsSync(join(dir, 'attachment-uploads')) ? readdirSync(join(dir, 'attachment-uploads')) : []);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fl-attach-'));
    ({ services } = await bootTestApp(dir));
    host = await startBrowserHost({ router: services.router, bus: services.bus, logger: createMemoryLogger() });
    const ws = new WebSocket(`ws://127.0.0.1:${host.port}/rpc`, {
      headers: { Cookie: `fieldlens_token=${host.token}`, Origin: `http://127.0.0.1:${host.port}` },
    });
    const transport = createWsTransport(ws as unknown as WebSocketLike);
    await transport.ready;
    close = () => transport.close();
    client = createRpcClient(transport);
  }, 120_000);

  afterAll(async () => {
    close();
    await host.close();
    await services.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers a question with two 15 MiB CSV files, every row read, and leaves nothing staged', { timeout: 300_000 }, async () => {
    const a = sitesCsv(15 * MIB, 1);
    const b = sitesCsv(15 * MIB, 2);
    expect(Buffer.byteLength(a) + Buffer.byteLength(b)).toBeGreaterThan(2 * (RPC_MAX_BASE64 / 4) * 3);
    const files = [csvFile('a.csv', a), csvFile('b.csv', b)];
    const sent = value(await createUploadService(client).forCall(files));
    // Neither fits a call with the other: both go staged.
    expect(sent.map((f) => 'stagedId' in f)).toEqual([true, true]);
    expect(staged()).toHaveLength(2);
    const run = value(await client.call('compute.run', { request: { query: 'my sites', limit: 1, answer: false }, attachments: sent, runId: 'big-1' }));
    expect(run.response.results.numberMatched).toBe(rowsOf(a) + rowsOf(b));
    expect(staged()).toEqual([]);
    // The files are kept with the entry, byte for byte, for a rerun.
    const kept = value(await client.call("history.get", { id: run.queryId }));
    expect(kept.uploads.map((u) => [u.name, u.size])).toEqual([
      ['a.csv', Buffer.byteLength(a)],
      ['b.csv', Buffer.byteLength(b)],
    ]);
  });

  it('removes staged files when the run is cancelled', { timeout: 120_000 }, async () => {
    const text = sitesCsv(15 * MIB, 3);
    const sent = value(await createUploadService(client).forCall([csvFile('c.csv', text)]));
    expect(staged()).toHaveLength(1);
    const running = client.call('compute.run', { request: { query: 'my sites', limit: 1, answer: false }, attachments: sent, runId: 'big-cancel' });
    let cancelled = false;
    let settled = false;
    void running.then(() => (settled = true));
    while (!cancelled && !settled) {
      cancelled = value(await client.call('compute.cancel', { runId: 'big-cancel' })).cancelled;
      if (!cancelled) await new Promise((r) => setTimeout(r, 5));
    }
    const r = await running;
    expect(cancelled).toBe(true);
    expect(!r.ok && r.error.code).toBe('CANCELLED');
    expect(staged()).toEqual([]);
  });

  it('removes staged files when the run fails, also one staged beside a missing one', async () => {
    const uploads = createUploadService(client);
    const bad = value(await uploads.forCall([{ ...csvFile('bad.csv', `name,notes\n${'x,y\n'.repeat(2_000_000)}`) }]));
    expect(staged()).toHaveLength(1);
    const r = await client.call('compute.run', { request: { query: 'my sites', limit: 1, answer: false }, attachments: bad });
    expect(r.ok).toBe(false);
    expect(staged()).toEqual([]);

    const good = value(await uploads.forCall([csvFile('big.csv', sitesCsv(6 * MIB, 4))]));
    const missing = await client.call('compute.run', {
      request: { query: 'my sites', limit: 1, answer: false },
      attachments: [...good, { field: 'files', name: 'gone.csv', stagedId: 'attachment-none' }],
    });
    expect(!missing.ok && missing.error.code).toBe('NOT_FOUND');
    expect(staged()).toEqual([]);
  });

  it('queues a question with a staged file: its bytes kept in the cache, the staged copy removed, the answer read from them', { timeout: 120_000 }, async () => {
    const text = sitesCsv(6 * MIB, 5);
    const sent = value(await createUploadService(client).forCall([csvFile('q.csv', text)]));
    expect('stagedId' in sent[0]!).toBe(true);
    const settled = new Promise<{ status: string; queryId: number | null }>((ok) => {
      const off = client.on('queue.settled', (q) => {
        off();
        ok(q);
      });
    });
    const q = value(await client.call('queue.add', { request: { query: 'my sites', limit: 1, answer: false }, attachments: sent }));
    expect(q.attachmentNames).toEqual(['q.csv']);
    const done = await settled;
    expect(done.status).toBe('answered');
    const entry = value(await client.call('history.get', { id: done.queryId! }));
    expect((JSON.parse(entry.raw!) as { results: { numberMatched: number } }).results.numberMatched).toBe(rowsOf(text));
    expect(staged()).toEqual([]);
  });

  it("refuses past the service's limits, at the router, saying which", async () => {
    const big = await client.call('uploads.stageStart', { name: 'huge.csv', size: ATTACHMENT_MAX_FILE_BYTES + 1 });
    expect(!big.ok && big.error.code).toBe('VALIDATION');
    expect(!big.ok && big.error.message).toMatch(/at most 20 MiB/);
    const tiny = csvFile('t.csv', 'name,lat,lon\nA,1,2\n');
    const many = await client.call('compute.run', {
      request: { query: 'my sites' },
      attachments: Array.from({ length: ATTACHMENT_MAX_FILES + 1 }, (_, i) => ({ ...tiny, name: `t${i}.csv` })),
    });
    expect(!many.ok && many.error.code).toBe('VALIDATION');
    expect(!many.ok && many.error.message).toMatch(/at most 10 files/);
    // Ten files pass the count.
    const ten = await client.call('compute.run', {
      request: { query: 'my sites', limit: 1, answer: false },
      attachments: Array.from({ length: ATTACHMENT_MAX_FILES }, (_, i) => ({ ...tiny, name: `t${i}.csv` })),
    });
    expect(value(ten).response.results.numberMatched).toBe(ATTACHMENT_MAX_FILES);
  });
});
