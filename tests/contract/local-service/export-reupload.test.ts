import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startExport } from '../../../electron/export/job';
import type { ComputeFeature } from '../../../shared/service/compute';
import { computeForm, fileForm, startService, stopService, type Running } from './harness';

/**
 * An answer over an uploaded file, exported as GeoJSON, edited and uploaded again: its uploaded
 * columns come back as columns, each once, and a question over the edited one answers by it.
 */
let r: Running;
const dir = mkdtempSync(join(tmpdir(), 'fieldlens-reupload-'));
beforeAll(async () => {
  r = await startService();
});
afterAll(async () => {
  await stopService(r);
  rmSync(dir, { recursive: true, force: true });
});

const ask = (query: string, name: string, text: string) => computeForm(r, fileForm({ query, limit: '100', answer: 'false' }, [{ name, text }]));

describe('an exported GeoJSON uploaded again', () => {
  it('keeps the uploaded columns flat and once, and answers a question over an edited one', async () => {
    const csv = 'name,lat,lon,status\nNorth gate,50.1,8.6,closed\nSouth gate,50.2,8.7,closed\nWest gate,50.3,8.8,closed\n';
    const first = await ask('my sites', 'sites.csv', csv);
    const answer = first.results.features as unknown as ComputeFeature[];
    expect(answer).toHaveLength(3);
    const path = join(dir, 'sites.geojson');
    await startExport({ layers: [{ kind: 'compute', name: 'my sites', features: answer, count: answer.length }], format: 'geojson', destination: path });
    const file = JSON.parse(readFileSync(path, 'utf8')) as { features: { properties: Record<string, unknown> }[] };
    const keys = Object.keys(file.features[0]!.properties);
    expect(keys).toContain('status');
    expect(keys).not.toContain('attributes');
    expect(keys.filter((k) => /^(attr_)?name$/i.test(k))).toEqual(['name']);

    // The analyst opens one site in the file, and uploads it again.
    for (const f of file.features) f.properties['status'] = f.properties['name'] === 'South gate' ? 'open' : 'closed';
    const again = await ask('my open sites', 'sites.geojson', JSON.stringify(file));
    const names = again.results.features.map((f) => f.properties.name);
    expect(names).toEqual(['South gate']);
    const attrs = again.results.features[0]!.properties.attributes as Record<string, unknown>;
    expect(attrs['status']).toBe('open');
    expect(Object.keys(attrs).filter((k) => /^attr_/.test(k))).toEqual([]);
  });
});
