import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOAD_SERVICE_ARGS, mixedLoad } from '../../bench/service-load';
import { spawnService, type ServiceProcess } from '../../bench/service-harness';

// 10 s here; `npm run soak:service` (and `npm run bench:hardening`) run the full 60 s.
const SECONDS = Number(process.env['LOAD_SECONDS'] ?? 10);

describe('local service under a mixed load', () => {
  let svc: ServiceProcess;
  beforeAll(async () => {
    svc = await spawnService({ nodeFlags: ['--expose-gc'], args: LOAD_SERVICE_ARGS });
  });
  afterAll(async () => {
    await svc?.stop();
  });

  it(`answers compute, stream and search at 64 connections for ${SECONDS} s with no 5xx and no memory growth`, { timeout: 120_000 }, async () => {
    const f = await mixedLoad(svc, SECONDS);
    console.log(
      `mixed load: ${f.requests} requests in ${f.seconds} s at ${f.connections} connections (${f.rps}/s, p99 ${f.p99Ms} ms); ` +
        `5xx ${f['5xx']}, non-2xx ${f.non2xx}, errors ${f.errors}, timeouts ${f.timeouts}; RSS after GC ${f.rssBeforeMb} -> ${f.rssAfterMb} MB ` +
        `(${f.rssGrowthPct} %), heap ${f.heapBeforeMb} -> ${f.heapAfterMb} MB, peak ${f.rssPeakMb} MB`,
    );
    expect(f.requests).toBeGreaterThan(f.seconds * 10);
    expect(f['5xx']).toBe(0);
    expect(f.non2xx).toBe(0);
    expect(f.errors + f.timeouts).toBe(0);
    expect(f.rssGrowthPct).toBeLessThan(10);
  });
});
