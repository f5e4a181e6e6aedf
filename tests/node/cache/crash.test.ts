import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Cache } from '../../../electron/cache';
import { exportRounds, featuresIn } from '../../support/crash/export';
import { ingestRounds } from '../../support/crash/ingest';
import { computeResponse } from './fixtures';

// Reduced here (20 kills during ingest, 12 during export); `npm run bench:hardening` runs 50 of each.
const INGEST_KILLS = Number(process.env['CRASH_INGEST_KILLS'] ?? 20);
const EXPORT_KILLS = Number(process.env['CRASH_EXPORT_KILLS'] ?? 12);

const dir = mkdtempSync(join(tmpdir(), 'fieldlens-crash-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('crash safety', () => {
  it(`survives SIGKILL during ingest ${INGEST_KILLS} times with no partial query visible`, async () => {
    const f = await ingestRounds(join(dir, 'crash.db'), INGEST_KILLS);
    console.log(`ingest kills: ${f.rounds}, inside a write ${f.killedInWrite}, corrupt ${f.corrupt.length}, partial queries ${f.partial.length}, queries checked ${f.queriesSeen}`);
    expect(f.corrupt).toEqual([]);
    expect(f.partial).toEqual([]);
    expect(f.queriesSeen).toBeGreaterThanOrEqual(INGEST_KILLS);
    // Most of the child's time is spent inside a write transaction, so most kills land there.
    expect(f.killedInWrite).toBeGreaterThan(0);
  }, 300_000);

  it(`survives SIGKILL during export ${EXPORT_KILLS} times with no half-written file under its final name`, async () => {
    const cacheFile = join(dir, 'export-source.db');
    const features = 3000;
    const fx = computeResponse(features, 77);
    const cache = Cache.open(cacheFile);
    const queryId = cache.storeCompute({ profileId: 'crash', request: { query: fx.body.query }, startedAt: 1, finishedAt: 2 }, fx.body, Buffer.from(fx.raw));
    cache.close();
    const out = join(dir, 'exports');
    mkdirSync(out);
    const f = await exportRounds(cacheFile, queryId, features, out, EXPORT_KILLS);
    console.log(
      `export kills: ${f.rounds}, inside a write ${f.killedInWrite}, files checked whole ${f.completeFiles}, half-written under the final name ${f.halfWritten.length}, ` +
        `temporary files left beside them ${f.leftoverPartials}, corrupt source ${f.corruptSource.length}`,
    );
    expect(f.halfWritten).toEqual([]);
    expect(f.corruptSource).toEqual([]);
    expect(f.completeFiles).toBeGreaterThanOrEqual(EXPORT_KILLS);
    expect(f.killedInWrite).toBeGreaterThan(0);
  }, 300_000);

  it('the export check tells a cut file from a whole one', async () => {
    // The checker itself must fail on what a torn write leaves, or the test above proves nothing.
    const { writeFileSync } = await import('node:fs');
    const whole = join(dir, 'whole.geojson');
    writeFileSync(whole, JSON.stringify({ type: 'FeatureCollection', features: [{}, {}, {}] }));
    expect(featuresIn(whole)).toBe(3);
    const cut = join(dir, 'cut.geojson');
    writeFileSync(cut, JSON.stringify({ type: 'FeatureCollection', features: [{}, {}, {}] }).slice(0, -10));
    expect(() => featuresIn(cut)).toThrow();
    const csv = join(dir, 'cut.csv');
    writeFileSync(csv, 'a,b\n1,2\n3,"4');
    expect(() => featuresIn(csv)).toThrow();
  });
});
