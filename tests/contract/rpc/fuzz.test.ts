import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppServices } from '../../../electron/root/app-services';
import { createMemoryTransport } from '../../../electron/rpc/memory-transport';
import { isMethodName, methodNames } from '../../../shared/rpc/contract';
import { ErrorCode, ResultEnvelope } from '../../../shared/rpc/errors';
import type { RpcTransport } from '../../../shared/rpc/client';
import { bootTestApp } from '../../support/app';
import { rpcCalls } from '../../support/rpc-fuzz';

// 10,000 in the test command; FUZZ_RUNS and FUZZ_SEED reproduce or widen a run.
const RUNS = Number(process.env['FUZZ_RUNS'] ?? 10_000);
const SEED = Number(process.env['FUZZ_SEED'] ?? 20_261_123);
/** Longest any one call may take before it counts as a hang (a compute over the catalog takes < 1 s). */
const HANG_MS = 15_000;

/** Loopback goes out for real (the bundled service); any other host is refused at once, as with no network. */
const loopbackOnly: typeof fetch = (input, init) => {
  const url = new URL(input instanceof Request ? input.url : String(input));
  if (url.hostname === '127.0.0.1' || url.hostname === 'localhost') return fetch(input, init);
  const cause = Object.assign(new Error(`connect ECONNREFUSED ${url.host}`), { code: 'ECONNREFUSED' });
  return Promise.reject(new TypeError('fetch failed', { cause }));
};

describe('RPC fuzz over the real router', () => {
  let dir: string;
  let services: AppServices;
  let transport: RpcTransport;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fieldlens-fuzz-'));
    ({ services } = await bootTestApp(join(dir, 'data'), {
      fetch: loopbackOnly,
      client: { fetch: loopbackOnly, probeIntervalMs: 0, retry: { max: 0 } },
    }));
    transport = createMemoryTransport(services.router, services.bus);
    // A few stored queries, so history, export and rerun inputs can name real ids.
    for (const query of ['airports in Malta', 'largest cities in Japan'])
      expect((await transport.invoke('compute.run', { request: { query, limit: 3 } })).ok).toBe(true);
  });
  afterAll(async () => {
    await services.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it(`answers ${RUNS.toLocaleString('en')} random and malformed calls with a Result envelope, seeded`, { timeout: 240_000 }, async () => {
    const scratch = join(dir, 'scratch');
    mkdirSync(scratch, { recursive: true });
    const crashes: unknown[] = [];
    const onCrash = (e: unknown) => crashes.push(e);
    process.on('uncaughtException', onCrash);
    process.on('unhandledRejection', onCrash);
    const codes = new Map<string, number>();
    const perMethod = new Map<string, { ok: number; err: number }>();
    const internal: string[] = [];
    let slowest = 0;
    let calls = 0;
    const t0 = performance.now();
    try {
      await fc.assert(
        fc.asyncProperty(rpcCalls(scratch), async ({ method, input }) => {
          calls++;
          const t = performance.now();
          let timer: NodeJS.Timeout | undefined;
          const hang = new Promise<'hang'>((resolve) => (timer = setTimeout(() => resolve('hang'), HANG_MS)));
          const r = await Promise.race([transport.invoke(method, input), hang]).finally(() => clearTimeout(timer));
          slowest = Math.max(slowest, performance.now() - t);
          if (r === 'hang') throw new Error(`${method} did not answer within ${HANG_MS} ms: ${JSON.stringify(input).slice(0, 300)}`);
          // The exact envelope: ok with a value, or a typed error with a known code.
          const env = ResultEnvelope.safeParse(r);
          if (!env.success) throw new Error(`${method} answered outside the envelope: ${JSON.stringify(r).slice(0, 300)}`);
          const key = isMethodName(method) ? method : '(unknown method)';
          const m = perMethod.get(key) ?? { ok: 0, err: 0 };
          perMethod.set(key, m);
          if (r.ok) m.ok++;
          else {
            m.err++;
            ErrorCode.parse(r.error.code);
            codes.set(r.error.code, (codes.get(r.error.code) ?? 0) + 1);
            // INTERNAL is the router catching what a handler did not expect: a defect, not an answer.
            if (r.error.code === 'INTERNAL') internal.push(`${method} ${JSON.stringify(input).slice(0, 200)} -> ${r.error.message}`);
          }
        }),
        { numRuns: RUNS, seed: SEED, endOnFailure: true },
      );
    } finally {
      process.off('uncaughtException', onCrash);
      process.off('unhandledRejection', onCrash);
    }
    const seconds = (performance.now() - t0) / 1000;
    const oks = [...perMethod.values()].reduce((s, m) => s + m.ok, 0);
    console.log(
      `rpc fuzz (seed ${SEED}): ${calls} calls in ${seconds.toFixed(1)} s over ${perMethod.size} methods; ${oks} ok, ` +
        `errors ${JSON.stringify(Object.fromEntries(codes))}; slowest ${slowest.toFixed(0)} ms; crashes ${crashes.length}; INTERNAL ${internal.length}`,
    );
    expect(calls).toBe(RUNS);
    expect(crashes).toEqual([]);
    expect(internal).toEqual([]);
    // Every method of the contract was reached, and some calls of most were valid enough to succeed.
    // (unknown names are counted together as one more).
    expect(perMethod.size).toBe(methodNames.length + 1);
    expect(oks).toBeGreaterThan(RUNS / 20);
    // The app is still whole afterwards.
    expect((await transport.invoke('app.info', {})).ok).toBe(true);
  });
});
