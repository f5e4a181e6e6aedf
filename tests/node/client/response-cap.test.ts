import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServiceClient, ServiceError } from '../../../electron/client';
import { DEFAULT_MAX_RESPONSE_BYTES } from '../../../electron/client/options';
import { readCapped } from '../../../electron/client/wire';
import { createMemoryLogger } from '../../../electron/ground/logger';

/**
 * The answer size cap at its real value, 256 MiB: a body of exactly that many bytes is kept, one
 * byte more is refused as soon as it arrives, and a client built without a cap gets this one.
 * Bodies are streamed from one reused 1 MiB chunk, so only the accepted body is held whole.
 */
const MIB = 2 ** 20;
const CAP = 256 * MIB;
const chunk = new Uint8Array(MIB).fill(0x20);

/** A stream of `bytes` spaces, and how many chunks were pulled from it. */
function spaces(bytes: number) {
  let sent = 0;
  const pulls = { n: 0 };
  const stream = new ReadableStream<Uint8Array>({
    pull(c) {
      if (sent >= bytes) return c.close();
      pulls.n++;
      const n = Math.min(MIB, bytes - sent);
      sent += n;
      c.enqueue(n === MIB ? chunk : chunk.subarray(0, n));
    },
  });
  return { stream, pulls };
}

describe('the 256 MiB answer cap', () => {
  it('is the default', () => {
    expect(DEFAULT_MAX_RESPONSE_BYTES).toBe(CAP);
  });

  it('keeps a body of exactly 256 MiB', async () => {
    const { stream } = spaces(CAP);
    const body = await readCapped(stream, DEFAULT_MAX_RESPONSE_BYTES, 200, 'http://x');
    expect(body.byteLength).toBe(CAP);
    expect(body[CAP - 1]).toBe(0x20);
  });

  it('refuses 256 MiB and one byte, reading no further', async () => {
    const { stream, pulls } = spaces(CAP + 1 + 10 * MIB);
    const err = await readCapped(stream, DEFAULT_MAX_RESPONSE_BYTES, 200, 'http://x').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServiceError);
    expect((err as ServiceError).message).toMatch(/more than 256 MiB/);
    // The chunk that crossed the cap is the last one read.
    expect(pulls.n).toBe(257);
  });

  describe('a client with no cap configured, over HTTP', () => {
    let server: Server;
    let url: string;
    let written = 0;
    beforeAll(async () => {
      server = createServer((req, res) => {
        req.resume();
        res.writeHead(200, { 'content-type': 'application/json' });
        written = 0;
        const buf = Buffer.from(chunk.buffer);
        const more = () => {
          while (written <= CAP + 16 * MIB) {
            written += buf.length;
            if (!res.write(buf)) return void res.once('drain', more);
          }
          res.end();
        };
        res.on('error', () => undefined);
        more();
      });
      await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
      url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    });
    afterAll(async () => {
      server.closeAllConnections();
      await new Promise((ok) => server.close(ok));
    });

    it('refuses an answer past 256 MiB', async () => {
      const client = new ServiceClient({
        connection: () => ({ profileId: 'p', label: 'Big', kind: 'remote', baseUrl: url, searchBaseUrl: url }),
        keys: { getKey: async () => 'k' },
        logger: createMemoryLogger(),
        probeIntervalMs: 0,
        retry: { max: 0 },
      });
      const err = await client.compute({ query: 'q' }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ServiceError);
      expect((err as ServiceError).message).toMatch(/more than 256 MiB/);
    }, 60_000);
  });
});
