import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createGeojsonReader } from '../../../electron/local-service/layers/readers/geojson';
import { streamFeatureCollection } from '../../../electron/local-service/layers/readers/geojson-stream';
import { LayerFileError, type LayerFeature } from '../../../electron/local-service/layers/types';
import { buildTown, townGeoJson } from '../../support/town/town';

const dir = mkdtempSync(join(tmpdir(), 'fieldlens-geojson-stream-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The text in chunks of `size` characters, as a file stream would hand it out. */
async function* chunked(text: string, size: number) {
  for (let i = 0; i < text.length; i += size) yield text.slice(i, i + size);
}

const collect = async (text: string, size: number) => {
  const heads: unknown[] = [];
  const out: unknown[] = [];
  for await (const f of streamFeatureCollection(chunked(text, size), (h) => heads.push(h))) out.push(f);
  return { heads, out };
};

describe('streamed FeatureCollection', () => {
  const fc = {
    type: 'FeatureCollection',
    name: 'tricky',
    features: [
      { type: 'Feature', properties: { note: 'braces } { and ] [ in "quotes" \\ and \u00e9' }, geometry: { type: 'Point', coordinates: [1, 2] } },
      { type: 'Feature', properties: { nested: { a: [1, { b: '}' }] } }, geometry: { type: 'LineString', coordinates: [[0, 0], [1, 1]] } },
      { type: 'Feature', properties: null, geometry: null },
    ],
  };
  const text = JSON.stringify(fc, null, 1);

  it.each([1, 3, 17, 1 << 16])('gives every feature as JSON.parse would, in chunks of %i characters', async (size) => {
    const { heads, out } = await collect(text, size);
    expect(out).toEqual(fc.features);
    expect(heads).toEqual([{ type: 'FeatureCollection', name: 'tricky', features: [] }]);
  });

  it('refuses a cut file and one that is not a FeatureCollection', async () => {
    await expect(collect(text.slice(0, Math.floor(text.length * 0.6)), 64)).rejects.toThrow(/ends inside the "features" array, after 1 features/);
    await expect(collect('{"type":"Feature","geometry":null}', 8)).rejects.toThrow(/no "features" array/);
    await expect(collect('{"type":"FeatureCollection","features":[{"type":"Feature"} x]}', 8)).rejects.toThrow(/unexpected "x"/);
  });
});

describe('GeoJSON reader past its whole-file size', () => {
  const streaming = createGeojsonReader({ wholeMaxBytes: 0 });
  const read = async (file: string) => {
    const out: LayerFeature[] = [];
    const warnings: string[] = [];
    for await (const f of streaming.read(file, { tempDir: dir, warn: (w) => warnings.push(w) })) out.push(f);
    return { out, warnings };
  };

  it('reads the town feature by feature, the same as whole', async () => {
    const file = join(dir, 'town.geojson');
    const town = townGeoJson(buildTown());
    writeFileSync(file, JSON.stringify(town));
    const { out } = await read(file);
    expect(out.map((f) => [f.geometry, f.properties])).toEqual(town.features.map((f) => [f.geometry, f.properties]));
  });

  it('checks the crs of the head and reports features without geometry', async () => {
    const file = join(dir, 'crs.geojson');
    writeFileSync(file, JSON.stringify({ type: 'FeatureCollection', crs: { type: 'name', properties: { name: 'urn:ogc:def:crs:EPSG::3857' } }, features: [] }));
    await expect(read(file)).rejects.toThrow(LayerFileError);
    await expect(read(file)).rejects.toThrow(/CRS urn:ogc:def:crs:EPSG::3857, not WGS84/);
    writeFileSync(file, JSON.stringify({ type: 'FeatureCollection', crs: { type: 'name', properties: { name: 'urn:ogc:def:crs:OGC:1.3:CRS84' } }, features: [{ type: 'Feature', properties: {}, geometry: null }] }));
    expect(await read(file)).toEqual({ out: [], warnings: ['1 feature(s) without geometry not imported'] });
  });
});
