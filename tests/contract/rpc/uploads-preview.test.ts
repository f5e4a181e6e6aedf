import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RpcClient } from '../../../shared/rpc/client';
import type { AppServices } from '../../../electron/root/app-services';
import { bootTestApp, value } from '../../support/app';

let dir: string;
let services: AppServices;
let rpc: RpcClient;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fl-preview-'));
  ({ services, rpc } = await bootTestApp(dir, { startLocalService: false }));
});
afterAll(async () => {
  await services.close();
  rmSync(dir, { recursive: true, force: true });
});

const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');
/** The 1-based line of the first line of `lines` that contains `needle`: counted here, not by the reader. */
const lineOf = (lines: string[], needle: string) => lines.findIndex((l) => l.includes(needle)) + 1;

describe('uploads.preview', () => {
  it('reads a CSV as compute would: its coordinate columns, good rows, and bad rows with their lines', async () => {
    const lines = [
      'site,notes,Latitude,Longitude,code',
      'Depot A,x,45.7485,4.8467,A1',
      'Depot B,x,north,4.8,B2',
      'Depot C,x,48.8566,2.3522,C3',
      'Depot D,x,45.7',
      'Depot E,x,46.2044,6.1432,E5',
    ];
    const p = value(await rpc.call('uploads.preview', { name: 'depots.csv', dataBase64: b64(lines.join('\n')) }));
    expect(p.error).toBeNull();
    expect(p.format).toBe('csv');
    expect(p.columns).toEqual({ latitude: 'Latitude', longitude: 'Longitude', wkt: null });
    expect(p.featureCount).toBe(3);
    expect(p.badRowCount).toBe(2);
    expect(p.badRows.map((r) => r.line)).toEqual([lineOf(lines, 'Depot B'), lineOf(lines, 'Depot D')]);
    expect(p.badRows[0]!.reason).toContain('north');
    expect(p.sample.map((s) => s.name)).toEqual(['Depot A', 'Depot C', 'Depot E']);
    expect(p.sample[0]).toMatchObject({ latitude: 45.7485, longitude: 4.8467 });
    expect(p.sample[0]!.attributes).toMatchObject({ code: 'A1' });
  });

  it('reads GeoJSON features and names a file that cannot be used, with the line to blame', async () => {
    const fc = { type: 'FeatureCollection', features: [1, 2, 3].map((i) => ({ type: 'Feature', geometry: { type: 'Point', coordinates: [i, 40 + i] }, properties: { name: `P${i}` } })) };
    const ok = value(await rpc.call('uploads.preview', { name: 'points.geojson', dataBase64: b64(JSON.stringify(fc)) }));
    expect(ok).toMatchObject({ format: 'geojson', featureCount: 3, columns: null, error: null });
    expect(ok.sample.map((s) => [s.name, s.longitude, s.latitude])).toEqual([['P1', 1, 41], ['P2', 2, 42], ['P3', 3, 43]]);

    const broken = '{\n  "type": "FeatureCollection",\n  "features": [\n    {"type": "Feature",,}\n  ]\n}';
    const bad = value(await rpc.call('uploads.preview', { name: 'broken.geojson', dataBase64: b64(broken) }));
    expect(bad.featureCount).toBe(0);
    expect(bad.error).toMatchObject({ code: 'invalid_json', line: lineOf(broken.split('\n'), ',,') });

    const none = value(await rpc.call('uploads.preview', { name: 'names.csv', dataBase64: b64('name,city\nA,Lyon\n') }));
    expect(none.error?.code).toBe('no_coordinate_columns');
    expect(none.error?.line).toBe(1);
  });
});
