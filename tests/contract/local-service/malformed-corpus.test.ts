import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnService, type ServiceProcess } from '../../bench/service-harness';
import { writeMalformedCorpus, type CorpusFile } from '../../support/malformed-uploads';
import { runCorpus } from '../../support/upload-corpus-run';

// The test command sends a 3 MB file that is read and a 25 MB one past the limit; the 200 MB
// file is sent by `npm run bench:hardening`.
describe('malformed uploads corpus against the service in its own process', () => {
  let dir: string;
  let files: CorpusFile[];
  let svc: ServiceProcess;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fieldlens-corpus-'));
    files = writeMalformedCorpus(dir, { largeMb: 3, oversizeMb: [25] });
    svc = await spawnService({ nodeFlags: ['--expose-gc'] });
  });
  afterAll(async () => {
    await svc?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers every file with its rows and flagged lines, or an error naming the file (and line)', { timeout: 180_000 }, async () => {
    const f = await runCorpus(svc, files);
    console.log(
      `upload corpus: ${f.files} files, ${f.answered} answered, ${f.refused} refused, wrong ${f.wrong.length}, 5xx ${f.serverErrors}, ` +
        `health failures ${f.healthFailures}; RSS ${f.rssStartMb} -> peak ${f.rssPeakMb} -> end ${f.rssEndMb} MB (${f.rssAfterGcMb} after GC); ` +
        `heap after GC ${f.heapBeforeMb} -> ${f.heapAfterMb} MB; slowest ${f.slowestMs} ms`,
    );
    expect(f.files).toBeGreaterThanOrEqual(100);
    expect(f.wrong).toEqual([]);
    expect(f.serverErrors).toBe(0);
    expect(f.healthFailures).toBe(0);
    // Bounded: the service never holds much more than a few copies of the largest file it reads.
    expect(f.rssPeakMb - f.rssStartMb).toBeLessThan(600);
    // Nothing of the uploads is held once they are answered.
    expect(f.heapAfterMb - f.heapBeforeMb).toBeLessThan(30);
  });
});
