import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { gpxReader, kmlReader, XML_DOCUMENT_MAX_BYTES } from '../../../electron/local-service/layers/readers/kml-gpx';
import type { LayerFeature, LayerReader } from '../../../electron/local-service/layers/types';

/**
 * KML and GPX are read whole, so their size is capped at 32 MiB: a file of exactly the cap is
 * read, one byte more is refused with the way out, before anything is parsed.
 */
const dir = mkdtempSync(join(tmpdir(), 'fieldlens-xml-cap-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const DOCS = {
  gpx: (pad: string) => `<?xml version="1.0"?>\n<gpx version="1.1" creator="t" xmlns="http://www.topografix.com/GPX/1/1"><wpt lat="48.1" lon="11.5"><name>Hut</name></wpt><!--${pad}--></gpx>\n`,
  kml: (pad: string) => `<?xml version="1.0"?>\n<kml xmlns="http://www.opengis.net/kml/2.2"><Document><Placemark><name>Hut</name><Point><coordinates>11.5,48.1</coordinates></Point></Placemark><!--${pad}--></Document></kml>\n`,
};

/** A document of exactly `bytes` bytes, its size made up by comments of about 1 kB. */
function fileOf(format: 'gpx' | 'kml', bytes: number): string {
  const bare = Buffer.byteLength(DOCS[format](''));
  const pad = bytes - bare;
  const piece = `${' '.repeat(1000)}--><!--`;
  const file = join(dir, `${bytes}.${format}`);
  writeFileSync(file, DOCS[format](piece.repeat(Math.floor(pad / piece.length)) + ' '.repeat(pad % piece.length)));
  expect(statSync(file).size).toBe(bytes);
  return file;
}

async function readAll(reader: LayerReader, file: string): Promise<LayerFeature[]> {
  const out: LayerFeature[] = [];
  for await (const f of reader.read(file, { tempDir: dir })) out.push(f);
  return out;
}

describe.each([
  ['gpx', gpxReader],
  ['kml', kmlReader],
] as const)('%s size cap', (format, reader) => {
  it('is 32 MiB', () => {
    expect(XML_DOCUMENT_MAX_BYTES).toBe(32 * 2 ** 20);
  });

  it('reads a file of exactly the cap', async () => {
    const features = await readAll(reader, fileOf(format, XML_DOCUMENT_MAX_BYTES));
    expect(features.map((f) => [f.geometry, f.properties['name']])).toEqual([[{ type: 'Point', coordinates: [11.5, 48.1] }, 'Hut']]);
  }, 60_000);

  it('refuses one byte more, naming the way out', async () => {
    const file = fileOf(format, XML_DOCUMENT_MAX_BYTES + 1);
    await expect(readAll(reader, file)).rejects.toThrow(/of 32.0 MiB is over the 32 MiB this reader loads; convert it to GeoPackage or FlatGeobuf/);
  });
});
