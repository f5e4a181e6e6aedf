import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { at } from '../support/town/town';
import { writeTownFiles } from '../support/town/files';
import { writePmTiles, type PmTile } from '../support/pmtiles-writer';
import { expect, test } from './fixtures';
import type { Page } from '@playwright/test';
import { pageMapping, storeCall } from './map-helpers';
import { hex, screenCountIn } from './map-pixels';
import { rpcCall } from './rpc';
import { ask, openApp, shot } from './workspace-helpers';

// Label colours written out here (the e2e project cannot import renderer files): the street
// basemap's labels in the light theme (renderer/src/map/streetStyle.ts) and the results' labels
// (renderer/src/map/resultStyles.ts).
const STREET_LABEL = hex('#2f3338');
const RESULT_LABEL = hex('#3d4a58');

/** The quarters of the town (tests/support/town/town.ts), each a place the basemap names. */
const QUARTERS = ['Nordviertel', 'Ostviertel', 'Südviertel'];

/** How many labels of the last complete frame name each quarter (OpenLayers' placed labels, any layer). */
async function quarterLabels(page: Page): Promise<Record<string, number>> {
  const names = (await storeCall(page, 'map', 'labelledNames')) as string[];
  return Object.fromEntries(QUARTERS.map((q) => [q, names.filter((n) => n.toLocaleLowerCase() === q.toLocaleLowerCase()).length]));
}
const once = Object.fromEntries(QUARTERS.map((q) => [q, 1]));

const vtpbf = createRequire(import.meta.url)('vt-pbf') as {
  fromGeojsonVt(layers: Record<string, { features: { type: number; geometry: number[][]; tags: Record<string, string> }[] }>, options?: { version?: number; extent?: number }): Uint8Array;
};

/**
 * A vector PMTiles archive with one layer, "places" (as Protomaps names it), of named points at
 * zooms 10 to 14: Web Mercator tiles written out here, points at 4096 units a tile.
 */
function placesArchive(places: { name: string; at: [number, number] }[]): Buffer {
  const tiles: PmTile[] = [];
  const [west, south, east, north] = [Math.min(...places.map((p) => p.at[0])), Math.min(...places.map((p) => p.at[1])), Math.max(...places.map((p) => p.at[0])), Math.max(...places.map((p) => p.at[1]))];
  for (let z = 10; z <= 14; z++) {
    const byTile = new Map<string, { x: number; y: number; features: { type: number; geometry: number[][]; tags: Record<string, string> }[] }>();
    for (const { name, at: [lon, lat] } of places) {
      const r = (lat * Math.PI) / 180;
      const wx = ((lon + 180) / 360) * 2 ** z;
      const wy = ((1 - Math.log(Math.tan(r) + 1 / Math.cos(r)) / Math.PI) / 2) * 2 ** z;
      const [x, y] = [Math.floor(wx), Math.floor(wy)];
      const tile = byTile.get(`${x}/${y}`) ?? { x, y, features: [] };
      tile.features.push({ type: 1, geometry: [[Math.round((wx - x) * 4096), Math.round((wy - y) * 4096)]], tags: { name } });
      byTile.set(`${x}/${y}`, tile);
    }
    for (const t of byTile.values()) tiles.push({ z, x: t.x, y: t.y, data: Buffer.from(vtpbf.fromGeojsonVt({ places: { features: t.features } }, { version: 2, extent: 4096 })) });
  }
  return writePmTiles(tiles, { tileType: 1, bounds: [west - 0.02, south - 0.02, east + 0.02, north + 0.02] });
}

let dir: string;
test.beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'fl-e2e-labels-'));
});
test.afterAll(() => rmSync(dir, { recursive: true, force: true }));

test('a place the data layer names is labelled once: the street basemap leaves its own label of it out', async ({ page, host }) => {
  test.setTimeout(120_000);
  const town = writeTownFiles(dir);
  await openApp(page, host.launchUrl);
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'light');
  const map = page.getByTestId('map');
  await rpcCall(page, 'layers.import', { path: town.pbf });
  await expect.poll(async () => (await rpcCall<{ layers: { name: string }[] }>(page, 'layers.list', {})).layers.map((l) => l.name), { timeout: 30_000 }).toEqual(['town']);
  const [layer] = (await rpcCall<{ layers: { id: string }[] }>(page, 'layers.list', {})).layers;
  await storeCall(page, 'layers', 'load');
  // The town drawn as a data layer over its own street basemap: both would name the quarter Ostviertel.
  await storeCall(page, 'layers', 'showOnMap', layer!.id);
  await expect(map).toHaveAttribute('data-overlay-features', /[1-9]/, { timeout: 15_000 });
  await page.waitForTimeout(800);
  await expect(map).toHaveAttribute('data-settled', 'yes', { timeout: 15_000 });

  // Inside the quarter around its middle (metres east/north of the town centre, town.ts), clear
  // of Nordstraße (y 500) and its name: where the basemap writes the quarter's name.
  await page.mouse.move(0, 0);
  const toPage = await pageMapping(page);
  const [a, b] = [toPage(at(300, 1150)), toPage(at(1200, 650))];
  const rect = { x: a.x, y: a.y, width: b.x - a.x, height: b.y - a.y };
  expect(rect.width).toBeGreaterThan(60);
  await page.mouse.move(0, 0);
  await shot(page, 'map-place-labelled-once');
  const withLayer = await screenCountIn(page, rect, STREET_LABEL);
  // Every quarter is named, once: by the data layer, or by the basemap where the layer's label gave way.
  const namedWithLayer = await quarterLabels(page);

  // Without the data layer the basemap names the quarter itself.
  await storeCall(page, 'map', 'setOverlay', 'data', false);
  await page.waitForTimeout(800);
  await expect(map).toHaveAttribute('data-settled', 'yes', { timeout: 15_000 });
  await shot(page, 'map-place-basemap-label');
  const withoutLayer = await screenCountIn(page, rect, STREET_LABEL);
  const namedWithoutLayer = await quarterLabels(page);

  // The host is shared by the worker's tests: the next ones start with no layer, as they expect.
  await storeCall(page, 'map', 'setOverlay', 'data', true);
  await rpcCall(page, 'layers.remove', { id: layer!.id });

  expect(namedWithLayer, 'each quarter named once with the data layer shown').toEqual(once);
  expect(namedWithoutLayer, 'each quarter named once by the basemap alone').toEqual(once);
  expect(withoutLayer, 'the basemap labels the quarter when no overlay does').toBeGreaterThan(15);
  expect(withLayer, 'the basemap label is left out while the data layer names the quarter').toBeLessThan(withoutLayer / 5);
});

test('a place an answer names without a label on the map (a heatmap) is named by the basemap instead', async ({ page, host }) => {
  test.setTimeout(120_000);
  const town = writeTownFiles(dir);
  await openApp(page, host.launchUrl);
  const map = page.getByTestId('map');
  await rpcCall(page, 'layers.import', { path: town.pbf });
  await expect.poll(async () => (await rpcCall<{ layers: { name: string }[] }>(page, 'layers.list', {})).layers.map((l) => l.name), { timeout: 30_000 }).toEqual(['town']);
  const [layer] = (await rpcCall<{ layers: { id: string }[] }>(page, 'layers.list', {})).layers;
  await storeCall(page, 'layers', 'load');

  // An answer of one point in the middle of the southern quarter, named as the quarter.
  const [lon, lat] = at(0, -825);
  await storeCall(page, 'map', 'show', 'ask', {
    type: 'FeatureCollection',
    features: [{ type: 'Feature', id: 'q', geometry: { type: 'Point', coordinates: [lon, lat] }, properties: { name: 'Südviertel' } }],
  });
  const settle = async () => {
    await page.waitForTimeout(800);
    await expect(map).toHaveAttribute('data-settled', 'yes', { timeout: 15_000 });
  };
  await settle();
  await page.mouse.move(0, 0);
  await shot(page, 'map-place-named-by-answer');
  const byAnswer = await quarterLabels(page);

  // As a heatmap the answer draws no labels: the basemap's own label names the quarter.
  await storeCall(page, 'map', 'setDisplay', 'heatmap');
  await settle();
  await shot(page, 'map-place-named-by-basemap-under-heatmap');
  const underHeatmap = await quarterLabels(page);

  await storeCall(page, 'map', 'setDisplay', 'features');
  await storeCall(page, 'map', 'show', 'ask', null, false);
  await rpcCall(page, 'layers.remove', { id: layer!.id });

  expect(byAnswer['Südviertel'], 'named by the answer, not again by the basemap').toBe(1);
  expect(underHeatmap['Südviertel'], 'named by the basemap while the answer shows no label').toBe(1);
});

test("a PMTiles basemap's place labels follow the same rule: a place the data layer names is not named again", async ({ page, host }) => {
  test.setTimeout(120_000);
  const town = writeTownFiles(dir);
  await openApp(page, host.launchUrl);
  const map = page.getByTestId('map');
  // The town as GeoJSON: a data layer with no street basemap of its own, over a basemap file naming the quarters.
  await rpcCall(page, 'layers.import', { path: town.geojson });
  await expect.poll(async () => (await rpcCall<{ layers: { name: string }[] }>(page, 'layers.list', {})).layers.length, { timeout: 30_000 }).toBe(1);
  const [layer] = (await rpcCall<{ layers: { id: string }[] }>(page, 'layers.list', {})).layers;
  await storeCall(page, 'layers', 'load');
  await storeCall(page, 'layers', 'showOnMap', layer!.id);
  await expect(map).toHaveAttribute('data-overlay-features', /[1-9]/, { timeout: 15_000 });

  // Each quarter's place point in its northern or southern middle (town.ts: x -1500..0, 0..1500; y 150..1500, -1500..-150).
  const archive = placesArchive([
    { name: 'Nordviertel', at: at(-750, 1300) as [number, number] },
    { name: 'Ostviertel', at: at(1200, 1300) as [number, number] },
    { name: 'Südviertel', at: at(0, -1200) as [number, number] },
  ]);
  await page.getByTestId('map-layers').click();
  await page.getByTestId('basemap-file-input').setInputFiles({ name: 'places.pmtiles', mimeType: 'application/octet-stream', buffer: archive });
  await expect(page.getByTestId('layer-switcher')).toContainText('places.pmtiles');
  await page.getByTestId('map-layers').click();
  // The file is framed when opened (its bounds are a little wider): back to the town.
  await page.waitForTimeout(600);
  await storeCall(page, 'layers', 'zoomToShown');
  const settle = async () => {
    await page.waitForTimeout(800);
    await expect(map).toHaveAttribute('data-settled', 'yes', { timeout: 15_000 });
  };
  await settle();
  await page.mouse.move(0, 0);
  await shot(page, 'map-pmtiles-place-labelled-once');
  const withLayer = await quarterLabels(page);

  // The data layer hidden: the file names each quarter itself.
  await storeCall(page, 'map', 'setOverlay', 'data', false);
  await settle();
  await shot(page, 'map-pmtiles-place-labels');
  const fileAlone = await quarterLabels(page);

  await storeCall(page, 'map', 'setOverlay', 'data', true);
  await storeCall(page, 'map', 'setBasemapFile', null);
  await rpcCall(page, 'layers.remove', { id: layer!.id });

  expect(fileAlone, "the file's place labels name each quarter").toEqual(once);
  expect(withLayer, 'each quarter named once with the data layer over the file').toEqual(once);
});

test('labels are placed again when the Layers panel closes: none stays hidden where it was', async ({ page, host }) => {
  await openApp(page, host.launchUrl);
  const map = page.getByTestId('map');
  await ask(page, 'airports within 150 km of Lyon');
  await expect(map).toHaveAttribute('data-settled', 'yes', { timeout: 15_000 });
  await page.waitForTimeout(800);
  await page.mouse.move(0, 0);

  const panelButton = page.getByTestId('map-layers');
  await panelButton.click();
  const panel = (await page.getByTestId('layer-switcher').boundingBox())!;
  await panelButton.click();
  await expect(page.getByTestId('layer-switcher')).toHaveCount(0);
  await page.waitForTimeout(500);
  const before = await screenCountIn(page, panel, RESULT_LABEL);

  // With the panel open the view moves and settles (labels under the panel give way to it)...
  await panelButton.click();
  await map.focus();
  for (const key of ['ArrowRight', 'ArrowLeft']) {
    await page.keyboard.press(key);
    await page.waitForTimeout(400);
    await expect(map).toHaveAttribute('data-settled', 'yes', { timeout: 15_000 });
  }
  const mapBox = (await map.boundingBox())!;
  const beside = { x: panel.x + panel.width + 4, y: mapBox.y, width: mapBox.x + mapBox.width - panel.x - panel.width - 4, height: mapBox.height };
  await shot(page, 'map-labels-layers-panel-open');
  // ...labels beside it stay drawn...
  expect(await screenCountIn(page, beside, RESULT_LABEL)).toBeGreaterThan(20);

  // ...and once it closes, those under it come back without the map being moved.
  await panelButton.click();
  await expect(page.getByTestId('layer-switcher')).toHaveCount(0);
  await page.waitForTimeout(500);
  await page.mouse.move(0, 0);
  await shot(page, 'map-labels-layers-panel-closed');
  const after = await screenCountIn(page, panel, RESULT_LABEL);
  expect(before, 'labels where the panel opens').toBeGreaterThan(50);
  expect(after).toBeGreaterThan(before * 0.8);
});
