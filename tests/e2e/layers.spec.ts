import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import distance from '@turf/distance';
import type { Point } from 'geojson';
import { writeTownFiles, type TownFiles } from '../support/town/files';
import { expect, test } from './fixtures';
import { colourPixels, hex } from './map-pixels';
import { osmiumCat, writeGridTownXml } from '../support/town/grid';

// DATA_LAYER_COLOUR of renderer/src/map/DataLayerOverlay.ts (the e2e project cannot import renderer files).
const DATA_LAYER = hex('#1b7f8c');
// The ask layer's colour of renderer/src/map/layerColours.ts.
const RESULT = hex('#e8710a');

let dir: string;
let town: TownFiles;
let gridPbf: string;
test.beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'fl-e2e-layers-'));
  town = writeTownFiles(dir);
  // Big enough that its import takes seconds: time to see the progress and cancel it.
  writeGridTownXml(join(dir, 'grid.osm'), 1_000_000);
  gridPbf = join(dir, 'grid.osm.pbf');
  osmiumCat(join(dir, 'grid.osm'), gridPbf);
});
test.afterAll(() => rmSync(dir, { recursive: true, force: true }));

test('a layer added in Settings is listed with its figures, drawn on the map, answers a question, is credited, and removed', async ({ page, host }) => {
  const n = town.features.length;
  const named = town.features.map((f) => f.properties['name']).filter(Boolean).length;
  await page.goto(host.launchUrl);
  const map = page.getByTestId('map');
  await expect(map).toHaveAttribute('data-basemap', 'drawn', { timeout: 30_000 });
  expect((await colourPixels(page, DATA_LAYER)).count).toBe(0);

  await page.getByRole('button', { name: 'Settings' }).click();
  const section = page.getByTestId('data-layers');
  // The list comes once the bundled service has started (it loads its catalog first).
  await expect(section.getByTestId('layer-none')).toHaveText('No data layers yet.', { timeout: 30_000 });

  // A 0-byte file: refused with the file and the reason, nothing listed.
  await section.getByTestId('layer-file').setInputFiles({ name: 'empty.gpkg', mimeType: 'application/octet-stream', buffer: Buffer.alloc(0) });
  await expect(section.getByTestId('error-sentence')).toHaveText('empty.gpkg: the file is empty (0 bytes)');
  await expect(section.getByTestId('layer-row')).toHaveCount(0);

  // The town's OpenStreetMap extract, chosen as a person would in the browser.
  await section.getByTestId('layer-file').setInputFiles(town.pbf);
  await expect(section.getByTestId('layer-added')).toHaveText(`Added “town”: ${n} features.`, { timeout: 30_000 });
  await expect(section.getByTestId('error-note')).toHaveCount(0);
  const row = section.getByTestId('layer-row');
  await expect(row).toHaveCount(1);
  await expect(row.getByTestId('layer-name')).toHaveText('town');
  await expect(row.getByTestId('layer-source')).toHaveText('town.osm.pbf');
  await expect(row.getByTestId('layer-count')).toContainText(String(n));
  await expect(row.getByTestId('layer-licence')).toHaveText('OpenStreetMap contributors, ODbL 1.0');
  await expect(row.getByTestId('layer-bbox')).toHaveText(/^W 8\.\d{4}, S 47\.\d{4} – E 8\.\d{4}, N 47\.\d{4}$/);
  await page.screenshot({ path: 'test-results/layers-settings.png' });

  await row.getByTestId('layer-show').click();
  await expect(map).toHaveAttribute('data-overlay-features', String(n));
  await page.getByTestId('settings-close').click();
  await expect(map).toHaveAttribute('data-settled', 'yes', { timeout: 10_000 });
  // Zoomed in to the town: its streets, river and areas cover many pixels in the layer's colour.
  await expect.poll(async () => (await colourPixels(page, DATA_LAYER)).count, { timeout: 10_000 }).toBeGreaterThan(20 * named);
  await page.screenshot({ path: 'test-results/layers-on-map.png' });
  // The legend is the switcher: the data layer is listed with its name and turned off and on there.
  const drawn = (await colourPixels(page, DATA_LAYER)).count;
  await page.getByTestId('map-layers').click();
  await expect(page.getByTestId('layer-legend-data')).toContainText('(data layer)');
  await page.getByTestId('overlay-data').uncheck();
  await page.getByTestId('map-layers').click();
  await expect.poll(async () => (await colourPixels(page, DATA_LAYER)).count, { timeout: 10_000 }).toBeLessThan(drawn / 20);
  await page.getByTestId('map-layers').click();
  await page.getByTestId('overlay-data').check();
  await page.getByTestId('map-layers').click();
  await expect.poll(async () => (await colourPixels(page, DATA_LAYER)).count, { timeout: 10_000 }).toBeGreaterThan(drawn / 2);

  // A question over the new layer: the pharmacies within 500 m of the station, nearest first, by
  // great-circle distance over the generator's own points.
  const station = town.features.find((f) => f.properties['railway'] === 'station')!.geometry as Point;
  const want = town.features
    .filter((f) => f.properties['amenity'] === 'pharmacy')
    .map((f) => ({ name: f.properties['name']!, d: distance((f.geometry as Point).coordinates, station.coordinates, { units: 'meters' }) }))
    .filter((x) => x.d <= 500)
    .sort((a, b) => a.d - b.d);
  expect(want.length).toBeGreaterThan(1);
  await page.getByTestId('tab-ask').click();
  await page.getByTestId('ask-query').fill('pharmacies within 500 m of Lennbrück Hauptbahnhof');
  await page.getByTestId('ask-run').click();
  await expect(page.getByTestId('ask-count')).toBeVisible({ timeout: 30_000 });
  await expect(page.getByTestId('result-name')).toHaveText(want.map((x) => x.name));
  await expect(page.getByTestId('ask-answer-text')).toContainText('OpenStreetMap contributors, ODbL 1.0');
  await expect(map).toHaveAttribute('data-features', String(want.length));
  await expect(map).toHaveAttribute('data-settled', 'yes', { timeout: 10_000 });
  await expect.poll(async () => (await colourPixels(page, RESULT)).count, { timeout: 10_000 }).toBeGreaterThan(20 * want.length);
  // Results fit at city zoom; back to the layer, the answer's dots stand over the town (the
  // layer's labels may cover part of a dot, so the same per-dot floor as above).
  await page.getByRole('button', { name: 'Settings' }).click();
  await row.getByTestId('layer-zoom').click();
  await page.getByTestId('settings-close').click();
  await expect(map).toHaveAttribute('data-settled', 'yes', { timeout: 10_000 });
  await expect.poll(async () => (await colourPixels(page, RESULT)).count, { timeout: 10_000 }).toBeGreaterThan(20 * want.length);
  await page.screenshot({ path: 'test-results/layers-question.png' });

  await page.getByRole('button', { name: 'About' }).click();
  const credit = page.getByTestId('layer-credit');
  await expect(credit).toHaveCount(1);
  await expect(credit).toContainText('town');
  await expect(credit).toContainText('town.osm.pbf (OpenStreetMap contributors, ODbL 1.0)');
  await expect(page.getByTestId('osm-notice')).toContainText('Open Database License');
  await page.getByTestId('about-close').click();

  await page.getByRole('button', { name: 'Settings' }).click();
  await row.getByTestId('layer-remove').click();
  await expect(row).toContainText(`Remove “town”? Its ${n} features are deleted`);
  await row.getByTestId('layer-remove-confirm').click();
  await expect(section.getByTestId('layer-row')).toHaveCount(0);
  await expect(map).toHaveAttribute('data-overlay-features', '0');
  await page.getByTestId('settings-close').click();
  await expect.poll(async () => (await colourPixels(page, DATA_LAYER)).count, { timeout: 10_000 }).toBe(0);
});

test('an import shows its progress and can be cancelled, leaving nothing listed', async ({ page, host }) => {
  await page.goto(host.launchUrl);
  await page.getByRole('button', { name: 'Settings' }).click();
  const section = page.getByTestId('data-layers');
  await expect(section.getByTestId('layer-add')).toBeVisible({ timeout: 30_000 });
  const before = await section.getByTestId('layer-row').count();
  await section.getByTestId('layer-file').setInputFiles(gridPbf);
  const progress = section.getByTestId('layer-progress');
  await expect(progress).toContainText('Importing grid.osm.pbf');
  await expect(section.getByTestId('layer-progress-text')).toHaveText(/^Reading features: [\d.]+ [KM]?B of [\d.]+ MB, [\d,]+ features$/, { timeout: 20_000 });
  await page.screenshot({ path: 'test-results/layers-progress.png' });
  await section.getByTestId('layer-cancel').click();
  await expect(section.getByTestId('layer-cancelled')).toHaveText('Import of grid.osm.pbf cancelled; nothing was added.');
  await expect(progress).toHaveCount(0);
  await expect(section.getByTestId('error-note')).toHaveCount(0);
  await expect(section.getByTestId('layer-row')).toHaveCount(before);
  // The list as the service keeps it, read afresh.
  await page.getByTestId('settings-close').click();
  await page.getByRole('button', { name: 'Settings' }).click();
  await expect(section.getByTestId('layer-add')).toBeVisible();
  await expect(section.getByTestId('layer-row')).toHaveCount(before);
});
