import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLayerImport } from '../../../electron/local-service/layers/import-job';
import type { EmbeddedLayerStore } from '../../../electron/local-service/layers/store/layer-store';
import { LAYERS_DATABASE_FILE, openSqliteLayerStore } from '../../../electron/local-service/layers/store/sqlite-layer-store';
import { LayerFileError } from '../../../electron/local-service/layers/types';
import { writeTownFiles, type TownFiles } from '../../support/town/files';

let dir: string;
let town: TownFiles;
let store: EmbeddedLayerStore;
const bad = (name: string) => join(dir, 'bad', name);
const ogr = (args: string[]) => execFileSync('ogr2ogr', args, { stdio: ['ignore', 'ignore', 'pipe'] });

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'fieldlens-bad-layers-'));
  town = writeTownFiles(join(dir, 'town'));
  mkdirSync(join(dir, 'bad'));
  store = openSqliteLayerStore({ dataDir: join(dir, 'data') });
});
afterAll(() => {
  store?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Tables of layers in the store file, read over a second connection. */
function layerTables(): string[] {
  const db = new Database(join(dir, 'data', LAYERS_DATABASE_FILE), { readonly: true });
  try {
    return (db.prepare("SELECT name FROM sqlite_master WHERE name LIKE 'lf\\_%' ESCAPE '\\' OR name LIKE 'lr\\_%' ESCAPE '\\'").pluck().all() as string[]).sort();
  } finally {
    db.close();
  }
}

async function expectRefused(file: string, reason: RegExp) {
  const before = store.list().length;
  const tables = layerTables();
  const err = await startLayerImport({ store, file, tempDir: join(dir, 'tmp') }).done.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(LayerFileError);
  const message = (err as Error).message;
  expect(message.startsWith(`${file.split('/').pop()}: `), message).toBe(true);
  expect(message).toMatch(reason);
  expect(store.list()).toHaveLength(before);
  expect(layerTables()).toEqual(tables);
}

describe('layer files that cannot be imported give a clear error and leave nothing behind', () => {
  it('a truncated PBF', async () => {
    const whole = readFileSync(town.pbf);
    writeFileSync(bad('cut.osm.pbf'), whole.subarray(0, Math.floor(whole.length * 0.7)));
    await expectRefused(bad('cut.osm.pbf'), /truncated OSM PBF/);
  });

  it('an OSM history file', async () => {
    execFileSync('osmium', ['cat', '--overwrite', '-o', bad('history.osh.pbf'), '-f', 'osh.pbf', town.osm]);
    await expectRefused(bad('history.osh.pbf'), /requires HistoricalInformation, which this reader does not support/);
  });

  it('a PBF cut right after a block size', async () => {
    writeFileSync(bad('cut-size.osm.pbf'), readFileSync(town.pbf).subarray(0, 4));
    await expectRefused(bad('cut-size.osm.pbf'), /truncated OSM PBF: file ends after a block size/);
  });

  it('a PBF whose last data block is damaged inside (uncompressed, so the block decoder reads the bad bytes)', async () => {
    execFileSync('osmium', ['cat', '--overwrite', '-o', bad('raw.osm.pbf'), '-f', 'pbf,pbf_compression=none', town.osm]);
    const bytes = readFileSync(bad('raw.osm.pbf'));
    // Frames: a 4-byte size, a BlobHeader (its datasize is field 3), then the blob.
    let last = 0;
    let blobEnd = 0;
    for (let o = 0; o < bytes.length; ) {
      const headerLen = bytes.readUInt32BE(o);
      const header = bytes.subarray(o + 4, o + 4 + headerLen);
      const at = header.indexOf(0x18);
      let size = 0;
      for (let k = at + 1, shift = 0; ; k++, shift += 7) {
        size += (header[k]! & 0x7f) * 2 ** shift;
        if (header[k]! < 0x80) break;
      }
      last = o + 4 + headerLen;
      blobEnd = last + size;
      o = blobEnd;
    }
    // Bytes with the continuation bit set: a varint that never ends, or fields that overrun the block.
    bytes.fill(0xff, last + Math.floor((blobEnd - last) * 0.6), last + Math.floor((blobEnd - last) * 0.6) + 24);
    writeFileSync(bad('damaged.osm.pbf'), bytes);
    await expectRefused(bad('damaged.osm.pbf'), /damaged OSM PBF near byte \d+: damaged block/);
  });

  it('a file named .osm.pbf that is not one', async () => {
    writeFileSync(bad('text.osm.pbf'), 'this is not a protocol buffer at all, just words\n'.repeat(20));
    await expectRefused(bad('text.osm.pbf'), /not an OSM PBF file/);
  });

  it('a truncated OSM XML', async () => {
    const xml = readFileSync(town.osm, 'utf8');
    writeFileSync(bad('cut.osm'), xml.slice(0, Math.floor(xml.length / 2)));
    await expectRefused(bad('cut.osm'), /truncated OSM XML|ends inside a tag/);
  });

  it('a GeoPackage without geometry (attribute table only)', async () => {
    writeFileSync(bad('plain.csv'), 'name,kind\nA,x\nB,y\n');
    ogr(['-f', 'GPKG', bad('attrs.gpkg'), bad('plain.csv')]);
    await expectRefused(bad('attrs.gpkg'), /GeoPackage has no (geometry|vector table)/);
  });

  it('a GeoPackage in a projected CRS', async () => {
    ogr(['-f', 'GPKG', bad('mercator.gpkg'), town.geojson, '-t_srs', 'EPSG:3857']);
    await expectRefused(bad('mercator.gpkg'), /EPSG:3857.*not WGS84.*reproject/);
  });

  it('a FlatGeobuf in a projected CRS', async () => {
    ogr(['-f', 'FlatGeobuf', bad('mercator.fgb'), town.geojson, '-t_srs', 'EPSG:3857']);
    await expectRefused(bad('mercator.fgb'), /3857.*not WGS84.*reproject/);
  });

  it('a file with a .gpkg name that is not SQLite', async () => {
    writeFileSync(bad('fake.gpkg'), 'not a database');
    await expectRefused(bad('fake.gpkg'), /not a GeoPackage/);
  });

  it('a Shapefile without its .dbf', async () => {
    for (const ext of ['shp', 'shx', 'prj']) copyFileSync(town.shp.replace(/shp$/, ext), bad(`nodbf.${ext}`));
    await expectRefused(bad('nodbf.shp'), /without its \.dbf/);
  });

  it('a Shapefile in a projected CRS, with and without its .prj', async () => {
    ogr(['-f', 'ESRI Shapefile', bad('utm.shp'), town.geojson, '-t_srs', 'EPSG:32632', '-where', "OGR_GEOMETRY='POINT'"]);
    await expectRefused(bad('utm.shp'), /projected CRS "WGS_1984_UTM_Zone_32N|projected CRS "WGS 84 \/ UTM zone 32N/);
    rmSync(bad('utm.prj'));
    await expectRefused(bad('utm.shp'), /no \.prj and coordinates .* are not longitude\/latitude/);
  });

  it('a GeoJSON in projected metres without a crs member', async () => {
    writeFileSync(bad('metres.geojson'), JSON.stringify({ type: 'FeatureCollection', features: [{ type: 'Feature', properties: {}, geometry: { type: 'Point', coordinates: [950000, 5240000] } }] }));
    await expectRefused(bad('metres.geojson'), /outside longitude\/latitude/);
  });

  it('a 0-byte file of each kind', async () => {
    for (const name of ['empty.osm.pbf', 'empty.gpkg', 'empty.shp', 'empty.geojson', 'empty.kml', 'empty.fgb']) {
      writeFileSync(bad(name), '');
      await expectRefused(bad(name), /the file is empty \(0 bytes\)/);
    }
  });

  it('a missing file and an unknown type', async () => {
    await expectRefused(bad('nowhere.gpkg'), /file not found/);
    writeFileSync(bad('notes.docx'), 'x');
    await expectRefused(bad('notes.docx'), /unsupported file type/);
  });

  it('a Shapefile without .prj in lon/lat is read, with a warning', async () => {
    for (const ext of ['shp', 'shx', 'dbf']) copyFileSync(town.shp.replace(/shp$/, ext), bad(`noprj.${ext}`));
    const info = await startLayerImport({ store, file: bad('noprj.shp'), tempDir: join(dir, 'tmp') }).done;
    expect(info.featureCount).toBe(town.features.filter((f) => f.geometry.type === 'Point').length);
    expect(info.warnings).toEqual(['noprj.shp has no .prj; read as WGS84 longitude/latitude']);
  });
});

describe('layer files nested thousands deep are refused by name before they are parsed', () => {
  const deep = (d: number) => `${'['.repeat(d)}${']'.repeat(d)}`;
  const feature = (nested: string) => `{"type":"Feature","properties":{"x":${nested}},"geometry":{"type":"Point","coordinates":[2.35,48.85]}}`;

  it('a GeoJSON whose properties nest 5,000 levels', async () => {
    writeFileSync(bad('deep.geojson'), `{"type":"FeatureCollection","features":[${feature(deep(5000))}]}`);
    await expectRefused(bad('deep.geojson'), /JSON nested more than 100 levels deep/);
  });

  it('a GeoJSON sequence with one such line', async () => {
    writeFileSync(bad('deep.geojsonl'), `${feature('1')}\n${feature(deep(5000))}\n`);
    await expectRefused(bad('deep.geojsonl'), /line 2: JSON nested more than 100 levels deep/);
  });

  it('a KML whose folders nest 5,000 deep', async () => {
    const folders = '<Folder>'.repeat(5000) + '<Placemark><Point><coordinates>2.35,48.85</coordinates></Point></Placemark>' + '</Folder>'.repeat(5000);
    writeFileSync(bad('deep.kml'), `<?xml version="1.0"?>\n<kml xmlns="http://www.opengis.net/kml/2.2"><Document>${folders}</Document></kml>\n`);
    await expectRefused(bad('deep.kml'), /malformed KML: elements nested more than 100 levels deep/);
  });

  it('a GeoJSON nested 60 levels is read', async () => {
    writeFileSync(bad('nested-60.geojson'), `{"type":"FeatureCollection","features":[${feature(deep(55))}]}`);
    const info = await startLayerImport({ store, file: bad('nested-60.geojson'), tempDir: join(dir, 'tmp') }).done;
    expect(info.featureCount).toBe(1);
  });

  it('shows control characters of a file name as ?', async () => {
    const name = 'a\u001b[2Jb\n.geojson';
    writeFileSync(bad(name), '{"type":"FeatureCollection","features":[');
    const err = await startLayerImport({ store, file: bad(name), tempDir: join(dir, 'tmp') }).done.then(
      () => null,
      (e: unknown) => e as Error,
    );
    expect(err?.message.startsWith('a?[2Jb?.geojson: ')).toBe(true);
  });
});
