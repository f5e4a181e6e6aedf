/**
 * The hardening checks at full size (the test command runs them reduced): the malformed uploads
 * corpus with a 15 MB file that is read and a 25 MB and a 200 MB one past the upload limit; 50
 * SIGKILLs during cache ingest and 50 during export; 60 s of mixed load at 64 connections; then
 * the limits (limits-load.ts): 4 uploads of 10 x 20 MiB of CSV rows at once (at the default
 * upload budget and at `UPLOAD_BUDGETS_MB`, 1024 by default), a request declaring 1 GiB,
 * wrong keys, and retention after 60 s of saved searches.
 * Prints one JSON line of figures.  npm run bench:hardening  (-- --limits-only: the limits alone)
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Cache } from '../../electron/cache';
import { exportRounds } from '../support/crash/export';
import { ingestRounds } from '../support/crash/ingest';
import { writeMalformedCorpus } from '../support/malformed-uploads';
import { runCorpus } from '../support/upload-corpus-run';
import { computeResponse } from '../node/cache/fixtures';
import { printFigures, type Figures } from './figures';
import { limitsFigures } from './limits-load';
import { spawnService } from './service-harness';
import { mixedLoad } from './service-load';

const KILLS = Number(process.env['CRASH_KILLS'] ?? 50);
const LOAD_SECONDS = Number(process.env['SOAK_SECONDS'] ?? 60);
const dir = mkdtempSync(join(tmpdir(), 'fieldlens-hardening-bench-'));
const figures: Figures = {};
const note = (line: string) => process.stdout.write(line + '\n');
const LIMITS_ONLY = process.argv.includes('--limits-only');
const RETENTION_SECONDS = Number(process.env['RETENTION_LOAD_SECONDS'] ?? 60);
// The bench's questions save about 1 KB of rows each (a minute's load: some 10 MB): a bound
// under that shows retention at work.
const RETENTION_BOUND_MB = Number(process.env['RETENTION_BOUND_MB'] ?? 2);

try {
  if (!LIMITS_ONLY) await robustness();
  Object.assign(figures, await limitsFigures({ retentionSeconds: RETENTION_SECONDS, retentionBoundMb: RETENTION_BOUND_MB, uploadPartMib: Number(process.env['UPLOAD_PART_MIB'] ?? 20),
    largerBudgetsMb: (process.env['UPLOAD_BUDGETS_MB'] ?? '1024').split(',').filter(Boolean).map(Number),
  }));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
printFigures(figures);

async function robustness() {
  const svc = await spawnService({ nodeFlags: ['--expose-gc'] });
  try {
    const files = writeMalformedCorpus(join(dir, 'corpus'), { largeMb: 15, oversizeMb: [25, 200] });
    const c = await runCorpus(svc, files);
    for (const w of c.wrong) note(`corpus: ${w}`);
    Object.assign(figures, {
      corpus_files: c.files,
      corpus_wrong: c.wrong.length,
      corpus_5xx: c.serverErrors,
      corpus_health_failures: c.healthFailures,
      corpus_rss_start_mb: c.rssStartMb,
      corpus_rss_peak_mb: c.rssPeakMb,
      corpus_heap_after_gc_start_mb: c.heapBeforeMb,
      corpus_heap_after_gc_end_mb: c.heapAfterMb,
      corpus_slowest_ms: c.slowestMs,
    });
    rmSync(join(dir, 'corpus'), { recursive: true, force: true });

    const l = await mixedLoad(svc, LOAD_SECONDS, 64);
    Object.assign(figures, {
      load_seconds: l.seconds,
      load_requests: l.requests,
      load_rps: l.rps,
      load_p99_ms: l.p99Ms,
      load_5xx: l['5xx'],
      load_non2xx: l.non2xx,
      load_errors: l.errors + l.timeouts,
      load_rss_after_gc_growth_pct: l.rssGrowthPct,
      load_heap_start_mb: l.heapBeforeMb,
      load_heap_end_mb: l.heapAfterMb,
    });
  } finally {
    await svc.stop();
  }

  const i = await ingestRounds(join(dir, 'ingest.db'), KILLS);
  for (const w of [...i.corrupt, ...i.partial]) note(`ingest: ${w}`);
  Object.assign(figures, { ingest_kills: i.rounds, ingest_kills_in_write: i.killedInWrite, ingest_corrupt: i.corrupt.length, ingest_partial_queries: i.partial.length });

  const source = join(dir, 'export-source.db');
  const fx = computeResponse(3000, 77);
  const cache = Cache.open(source);
  const queryId = cache.storeCompute({ profileId: 'bench', request: { query: fx.body.query }, startedAt: 1, finishedAt: 2 }, fx.body, Buffer.from(fx.raw));
  cache.close();
  mkdirSync(join(dir, 'exports'));
  const e = await exportRounds(source, queryId, 3000, join(dir, 'exports'), KILLS);
  for (const w of [...e.halfWritten, ...e.corruptSource]) note(`export: ${w}`);
  Object.assign(figures, {
    export_kills: e.rounds,
    export_kills_in_write: e.killedInWrite,
    export_files_whole: e.completeFiles,
    export_half_written: e.halfWritten.length,
    export_leftover_temporary: e.leftoverPartials,
    export_corrupt_source: e.corruptSource.length,
  });
}
