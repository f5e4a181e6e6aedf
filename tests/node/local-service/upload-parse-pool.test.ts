import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ColumnStats } from '../../../electron/local-service/upload/column-stats';
import { createUploadParser, INLINE_BYTES, type UploadParser } from '../../../electron/local-service/upload/parse-pool';
import { createSlots } from '../../../electron/local-service/upload/slots';
import { createSlicer, readUpload, UploadError, UploadReport } from '../../../electron/local-service/uploads';
import { sitesCsv } from '../../contract/local-service/sites';

let parser: UploadParser | null = null;
afterEach(async () => {
  await parser?.close();
  parser = null;
});

const errors: unknown[] = [];
const start = () => (parser = createUploadParser({ workers: 1, onError: (e) => errors.push(e) }));

/** The reading on this thread, as the readers do it: what the pool's answer must equal. */
async function inline(name: string, bytes: Buffer) {
  const report = new UploadReport();
  try {
    const features = await readUpload(name, bytes, { countryAt: () => '', report, slice: createSlicer() });
    const stats = new ColumnStats();
    for (const f of features) stats.add(f.attributes);
    return { features, columns: stats.states(), warnings: report.warnings() };
  } catch (e) {
    return { error: e as UploadError, warnings: report.warnings() };
  }
}

/** What the pool read, its rows made again from the worker's spool (in a folder of its own, empty once the set is let go). */
async function pooled(p: UploadParser, name: string, from: { path: string } | { bytes: Buffer }) {
  const report = new UploadReport();
  const spoolDir = mkdtempSync(join(tmpdir(), 'fieldlens-spool-'));
  try {
    const set = await p.parse(name, from, report, { slice: createSlicer(), spoolDir });
    const features = set.all();
    // What the set gathered of the columns is what a pass over the rows finds.
    const columns = set.stats().states();
    set.dispose();
    expect(readdirSync(spoolDir)).toEqual([]);
    return { features, columns, warnings: report.warnings() };
  } catch (e) {
    expect(readdirSync(spoolDir)).toEqual([]);
    return { error: e as UploadError, warnings: report.warnings() };
  } finally {
    rmSync(spoolDir, { recursive: true, force: true });
  }
}

// Rows that break in several ways, and a long cell, so the report crosses back with bad rows and cut values.
const csv = sitesCsv(20_000) + 'bad,x,1,depot,1\nshort,1\n' + `long,1,2,${'v'.repeat(20_000)},3\n`;

describe('upload parsing worker pool', () => {
  it('reads a large CSV on a worker: the same features and warnings as on this thread', { timeout: 120_000 }, async () => {
    const bytes = Buffer.from(csv);
    expect(bytes.length).toBeGreaterThan(INLINE_BYTES);
    const p = start();
    const dir = mkdtempSync(join(tmpdir(), 'fieldlens-pool-'));
    try {
      writeFileSync(join(dir, 'sites.csv'), bytes);
      const byPath = await pooled(p, 'sites.csv', { path: join(dir, 'sites.csv') });
      expect(p.running()).toBe(1);
      const byBytes = await pooled(p, 'sites.csv', { bytes });
      const here = await inline('sites.csv', bytes);
      expect(here.features).toHaveLength(20_001);
      expect(byPath).toEqual(here);
      expect(byBytes).toEqual(here);
      expect(here.warnings.map((w) => w.code).sort()).toEqual(['bad_rows', 'truncated_values']);
      expect(errors).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('answers a file it cannot use with the same UploadError (code, file, line)', { timeout: 60_000 }, async () => {
    const p = start();
    const broken = Buffer.from(`{"type":"FeatureCollection","features":[\n${'{"type":"Feature","geometry":null,"properties":{}},\n'.repeat(8000)}{"type":`);
    expect(broken.length).toBeGreaterThan(INLINE_BYTES);
    const got = await pooled(p, 'broken.geojson', { bytes: broken });
    const here = await inline('broken.geojson', broken);
    expect(got.error).toBeInstanceOf(UploadError);
    expect(here.error).toBeInstanceOf(UploadError);
    expect([got.error!.message, got.error!.code, got.error!.line]).toEqual([here.error!.message, here.error!.code, here.error!.line]);
    expect(got.error!.code).toBe('invalid_json');
  });

  it('is ended by close, and reads on this thread after it', { timeout: 60_000 }, async () => {
    const p = start();
    const bytes = Buffer.from(csv);
    await pooled(p, 'a.csv', { bytes });
    expect(p.running()).toBe(1);
    await p.close();
    expect(p.running()).toBe(0);
    const after = await pooled(p, 'a.csv', { bytes });
    expect(after.features).toHaveLength(20_001);
  });

  it('reads small files on this thread (no worker started)', async () => {
    const p = start();
    const got = await pooled(p, 'small.csv', { bytes: Buffer.from('name,lat,lon\nA,1,2\n') });
    expect(got.features).toHaveLength(1);
    expect(p.running()).toBe(0);
  });
});

describe('upload slots', () => {
  it('lets one holder run at a time, the next in arrival order once it gives back', async () => {
    const slots = createSlots(1);
    const order: string[] = [];
    const first = await slots.take();
    const second = slots.take().then((give) => (order.push('second'), give));
    const third = slots.take().then((give) => (order.push('third'), give));
    await new Promise((ok) => setTimeout(ok, 20));
    expect(order).toEqual([]);
    expect(slots.waiting).toBe(2);
    first();
    first(); // twice gives back once
    const g2 = await second;
    await new Promise((ok) => setTimeout(ok, 20));
    expect(order).toEqual(['second']);
    g2();
    (await third)();
    expect(order).toEqual(['second', 'third']);
    expect(slots.waiting).toBe(0);
  });
});
