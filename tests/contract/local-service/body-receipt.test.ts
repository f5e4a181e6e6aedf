import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROBLEM_CONTENT_TYPE } from '../../../shared/service/problem';
import { KEYS, postForm, startService, stopService, type Running } from './harness';

// Bodies sent with Transfer-Encoding: chunked (no declared length) on plain sockets, past the
// limits or stalling: each is answered and its connection closed, and its share of the upload
// budget given back.

const MIB = 1024 * 1024;
const BOUNDARY = 'fieldlens-receipt-boundary';
/** A short stall window so a stalled body is cut within the test's time. */
const STALL = { windowMs: 1500, minBytes: 64 * 1024 };
const sleep = (ms: number) => new Promise((ok) => setTimeout(ok, ms));

/** 1 MiB of CSV rows with coordinates in France. */
const ROWS = Buffer.from('site,45.10,4.10\n'.repeat(MIB / 16));
const FILE_HEAD = Buffer.from(
  `--${BOUNDARY}\r\ncontent-disposition: form-data; name="query"\r\n\r\nmy sites\r\n` +
    `--${BOUNDARY}\r\ncontent-disposition: form-data; name="files"; filename="endless.csv"\r\ncontent-type: text/csv\r\n\r\nname,lat,lon\n`,
);

interface Chunked {
  /** Sends one chunk; false once the connection is gone (or the write did not complete). */
  send(bytes: Buffer): Promise<boolean>;
  closed: Promise<void>;
  closedAt(): number | null;
  status(): number;
  header(name: string): string | undefined;
  body(): string;
  socket: Socket;
}

function chunked(url: string, contentType: string): Chunked {
  const u = new URL(url);
  const socket = connect(Number(u.port), u.hostname);
  socket.on('error', () => {});
  let got = '';
  let closedAt: number | null = null;
  socket.on('data', (d: Buffer) => (got += d.toString('latin1')));
  const closed = new Promise<void>((ok) => socket.once('close', () => ((closedAt = performance.now()), ok())));
  socket.write(
    `POST /v1/compute HTTP/1.1\r\nhost: ${u.host}\r\nauthorization: Bearer ${KEYS.bearer}\r\ncontent-type: ${contentType}\r\ntransfer-encoding: chunked\r\n\r\n`,
  );
  const head = () => got.split('\r\n\r\n')[0]!;
  return {
    socket,
    closed,
    closedAt: () => closedAt,
    send: (bytes) =>
      Promise.race([
        closed.then(() => false),
        new Promise<boolean>((ok) =>
          socket.destroyed ? ok(false) : socket.write(Buffer.concat([Buffer.from(`${bytes.length.toString(16)}\r\n`), bytes, Buffer.from('\r\n')]), (e) => ok(!e)),
        ),
      ]),
    status: () => Number(/^HTTP\/1\.1 (\d{3})/.exec(got)?.[1] ?? 0),
    header: (name) => new RegExp(`\r\n${name}: ([^\r]*)`, 'i').exec(head())?.[1],
    body: () => got.slice(got.indexOf('\r\n\r\n') + 4),
  };
}

/** The problem body of a response (its content-length framing left out). */
const problemOf = (c: Chunked) => JSON.parse(c.body()) as { status: number; code: string; detail: string };

const budgetInUse = async (r: Running) =>
  ((await (await fetch(`${r.baseUrl}/v1/status`, { headers: { authorization: `Bearer ${KEYS.bearer}` } })).json()) as { upload_budget_in_use_mb: number })
    .upload_budget_in_use_mb;

const smallUpload = () => {
  const form = new FormData();
  form.append('query', 'my sites');
  form.append('files', new Blob(['name,lat,lon\na,45.1,4.1\nb,45.2,4.2\n']), 'ok.csv');
  return form;
};

/**
 * Sends `ROWS` after `head` until the connection goes (at most `capMiB`): how many MiB were
 * sent, and when the total passed `limitBytes`.
 */
async function flood(c: Chunked, head: Buffer, limitBytes: number, capMiB: number, during?: () => Promise<void>) {
  await c.send(head);
  let sent = 0;
  let crossedAt: number | null = null;
  for (let i = 0; i < capMiB; i++) {
    if (!(await c.send(ROWS))) break;
    sent += ROWS.length;
    if (crossedAt === null && sent > limitBytes) crossedAt = performance.now();
    if (i === 2 && during) await during();
  }
  await Promise.race([c.closed, sleep(3000)]);
  return { sentMiB: sent / MIB, crossedAt };
}

describe('request bodies past the limits or stalling', () => {
  let r: Running;
  beforeAll(async () => {
    // A budget of 1 MiB: a chunked request (which takes the request limit) leaves no room for another.
    r = await startService({ options: { uploadBudgetBytes: MIB, bodyStall: STALL } });
  });
  afterAll(async () => {
    await stopService(r);
  });

  it('cuts a chunked upload at the file limit: 413 file_too_large, closed within 1 s, budget given back', async () => {
    const c = chunked(r.baseUrl, `multipart/form-data; boundary=${BOUNDARY}`);
    let during = 0;
    // While it is sent, the budget is held: an ordinary upload waits (503).
    const f = await flood(c, FILE_HEAD, 20 * MIB, 200, async () => void (during = (await postForm(r, smallUpload())).status));
    expect(during).toBe(503);
    expect(f.crossedAt).not.toBeNull();
    expect(c.closedAt()).not.toBeNull();
    expect(c.closedAt()! - f.crossedAt!).toBeLessThan(1000);
    // Sent past the limit: what the socket buffers took before the answer, not the rest of the body.
    expect(f.sentMiB).toBeLessThan(40);
    expect(c.status()).toBe(413);
    expect(c.header('content-type')).toContain(PROBLEM_CONTENT_TYPE);
    expect(c.header('connection')).toBe('close');
    expect(problemOf(c)).toMatchObject({ status: 413, code: 'file_too_large' });
    expect(await budgetInUse(r)).toBe(0);
    expect((await postForm(r, smallUpload())).status).toBe(200);
  });

  it('cuts a chunked JSON body at the JSON limit: 413 request_too_large, closed within 1 s', async () => {
    const c = chunked(r.baseUrl, 'application/json');
    const f = await flood(c, Buffer.from('{"query":"airports in France","x":"'), MIB, 200);
    expect(c.closedAt()).not.toBeNull();
    expect(c.closedAt()! - f.crossedAt!).toBeLessThan(1000);
    expect(f.sentMiB).toBeLessThan(40);
    expect(c.status()).toBe(413);
    expect(problemOf(c)).toMatchObject({ status: 413, code: 'request_too_large' });
  });

  for (const how of ['stops sending', 'trickles'] as const)
    it(`cuts an upload whose client ${how}: 408 body_timeout after the stall window, budget given back`, async () => {
      const c = chunked(r.baseUrl, `multipart/form-data; boundary=${BOUNDARY}`);
      await c.send(FILE_HEAD);
      await c.send(ROWS);
      const t0 = performance.now();
      // A trickle: 1 KiB every 100 ms, some 15 KiB a window, under its 64 KiB.
      const trickle = how === 'trickles' ? setInterval(() => void c.send(ROWS.subarray(0, 1024)), 100) : null;
      // Once the request holds the budget, an ordinary upload waits.
      for (let i = 0; i < 100 && (await budgetInUse(r)) === 0; i++) await sleep(10);
      expect((await postForm(r, smallUpload())).status).toBe(503);
      await Promise.race([c.closed, sleep(STALL.windowMs * 4)]);
      if (trickle) clearInterval(trickle);
      expect(c.closedAt()).not.toBeNull();
      const took = c.closedAt()! - t0;
      expect(took).toBeGreaterThan(STALL.windowMs * 0.9);
      expect(took).toBeLessThan(STALL.windowMs * 1.2 + 1000);
      expect(c.status()).toBe(408);
      expect(problemOf(c)).toMatchObject({ status: 408, code: 'body_timeout' });
      expect(await budgetInUse(r)).toBe(0);
      expect((await postForm(r, smallUpload())).status).toBe(200);
    });

  it('cuts a JSON body whose client stops sending: 408 body_timeout', async () => {
    const c = chunked(r.baseUrl, 'application/json');
    await c.send(Buffer.from('{"query":"airports in France"'));
    await Promise.race([c.closed, sleep(STALL.windowMs * 4)]);
    expect(c.closedAt()).not.toBeNull();
    expect(c.status()).toBe(408);
    expect(problemOf(c)).toMatchObject({ code: 'body_timeout' });
  });

  it('reads an upload that arrives slowly but above the minimum rate to its end', async () => {
    const c = chunked(r.baseUrl, `multipart/form-data; boundary=${BOUNDARY}`);
    await c.send(FILE_HEAD);
    // 64 KiB every 250 ms (four times the minimum) for twice the window.
    const rows = ROWS.subarray(0, 64 * 1024);
    for (let t = 0; t < (STALL.windowMs * 2) / 250; t++) {
      expect(await c.send(rows)).toBe(true);
      await sleep(250);
    }
    await c.send(Buffer.from(`\r\n--${BOUNDARY}--\r\n`));
    await c.send(Buffer.alloc(0));
    // The answer (its whole body, of the length it declares) within 20 s on a busy machine.
    const whole = () => c.status() > 0 && Buffer.byteLength(c.body(), 'latin1') >= Number(c.header('content-length'));
    for (let i = 0; i < 400 && !whole(); i++) await sleep(50);
    expect(c.status()).toBe(200);
    c.socket.destroy();
    await c.closed;
    expect(await budgetInUse(r)).toBe(0);
  });
});
