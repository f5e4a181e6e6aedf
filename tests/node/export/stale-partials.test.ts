import { mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { STALE_PARTIAL_MS, startExport } from '../../../electron/export/job';
import { pointFeatures } from '../../interop/export/features';

const dir = mkdtempSync(join(tmpdir(), 'fieldlens-stale-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('temporary files left by a killed export', () => {
  it('are removed by the next export to the same file once old; fresh ones and other names stay', async () => {
    const old = (Date.now() - STALE_PARTIAL_MS - 60_000) / 1000;
    const files = {
      // What a SIGKILL leaves beside sites.geojson (the crash test shows such files appear).
      stale: '.sites.geojson.0123456789ab.partial',
      staleJournal: '.sites.gpkg.0123456789ab.partial-journal',
      // Another export to the same name may be writing right now: too recent to touch.
      fresh: '.sites.geojson.ba9876543210.partial',
      // Not ours, or another destination's.
      otherName: '.other.geojson.0123456789ab.partial',
      lookalike: '.sites.geojson.notours.partial',
      userFile: 'sites.geojson.partial',
    };
    for (const [key, name] of Object.entries(files)) {
      writeFileSync(join(dir, name), 'x');
      if (key !== 'fresh') utimesSync(join(dir, name), old, old);
    }
    const features = pointFeatures(10, 5);
    await startExport({ layers: [{ name: 'Sites', kind: 'compute', features, count: features.length }], format: 'geojson', destination: join(dir, 'sites.geojson') });
    await startExport({ layers: [{ name: 'Sites', kind: 'compute', features, count: features.length }], format: 'gpkg', destination: join(dir, 'sites.gpkg') });
    expect(readdirSync(dir).sort()).toEqual(
      [files.fresh, files.otherName, files.lookalike, files.userFile, 'sites.geojson', 'sites.gpkg'].sort(),
    );
  });
});
