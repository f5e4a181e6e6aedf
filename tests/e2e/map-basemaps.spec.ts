import type { Page, Request } from '@playwright/test';
import { solidPng, pngOf } from '../support/png';
import { writePmTiles } from '../support/pmtiles-writer';
import { expect, test } from './fixtures';
import { readoutAt, screenPixels } from './map-helpers';
import { openApp, shot } from './workspace-helpers';

const TILE = { r: 20, g: 150, b: 70 };
const WEST = { r: 200, g: 30, b: 155 };
const EAST = { r: 30, g: 200, b: 180 };
const rgb = (c: { r: number; g: number; b: number }): [number, number, number] => [c.r, c.g, c.b];

const map = (page: Page) => page.getByTestId('map');

async function layers(page: Page, open: boolean): Promise<void> {
  const panel = page.getByTestId('layer-switcher');
  if ((await panel.count()) > 0 !== open) await page.getByTestId('map-layers').click();
  await expect(panel).toHaveCount(open ? 1 : 0);
}

async function settled(page: Page): Promise<void> {
  // Moves and tile loads start a frame after the change that caused them.
  await page.waitForTimeout(400);
  await expect(map(page)).toHaveAttribute('data-settled', 'yes', { timeout: 15_000 });
}

test('online tiles are fetched only when chosen and online, pass the CSP, and are drawn', async ({ page, host, context }) => {
  const tileRequests: string[] = [];
  const png = solidPng(256, rgb(TILE));
  await context.route('https://tile.openstreetmap.org/**', (route) => {
    tileRequests.push(route.request().url());
    return route.fulfill({ status: 200, contentType: 'image/png', headers: { 'access-control-allow-origin': '*' }, body: png });
  });
  const otherHosts: string[] = [];
  page.on('request', (r: Request) => {
    const u = new URL(r.url());
    if (!['127.0.0.1', 'localhost', 'tile.openstreetmap.org'].includes(u.hostname) && u.protocol.startsWith('http')) otherHosts.push(r.url());
  });
  const csp = await openApp(page, host.launchUrl);
  await settled(page);
  expect(tileRequests).toEqual([]);
  expect((await screenPixels(page, TILE, 6)).count).toBe(0);

  // Chosen while offline: nothing goes out, and the switcher says why.
  await context.setOffline(true);
  await layers(page, true);
  await page.getByTestId('online-tiles').check();
  await expect(page.getByTestId('layer-switcher')).toContainText('OpenStreetMap tiles (offline)');
  await page.waitForTimeout(800);
  await expect(map(page)).toHaveAttribute('data-online-tiles', 'off');
  expect(tileRequests).toEqual([]);

  // Back online: the tiles are asked for and drawn over the offline basemap.
  await context.setOffline(false);
  await expect(map(page)).toHaveAttribute('data-online-tiles', 'shown');
  await layers(page, false);
  await expect.poll(() => tileRequests.length).toBeGreaterThan(0);
  await settled(page);
  for (const u of tileRequests) expect(u).toMatch(/^https:\/\/tile\.openstreetmap\.org\/\d+\/\d+\/\d+\.png$/);
  const box = (await map(page).boundingBox())!;
  const drawn = await screenPixels(page, TILE, 6);
  // The world at zoom 2 fills most of the map's box; the rest is controls, labels and the poles.
  expect(drawn.count).toBeGreaterThan(box.width * box.height * 0.3);
  await shot(page, 'map-online-tiles');
  expect(csp).toEqual([]);
  expect(otherHosts).toEqual([]);

  // Turned off: the layer goes, and panning asks for nothing more.
  await layers(page, true);
  await page.getByTestId('online-tiles').uncheck();
  await layers(page, false);
  await expect(map(page)).toHaveAttribute('data-online-tiles', 'off');
  const asked = tileRequests.length;
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.wheel(0, -300);
  await settled(page);
  expect(tileRequests.length).toBe(asked);
  expect((await screenPixels(page, TILE, 6)).count).toBe(0);
});

test('a PMTiles file picked from disk is drawn as the basemap, each tile where the archive puts it', async ({ page, host }) => {
  const csp = await openApp(page, host.launchUrl);
  // West half one colour, east half another, at zooms 0 and 1.
  const west = solidPng(256, rgb(WEST));
  const east = solidPng(256, rgb(EAST));
  const archive = writePmTiles(
    [
      { z: 0, x: 0, y: 0, data: pngOf(256, (x) => (x < 128 ? rgb(WEST) : rgb(EAST))) },
      { z: 1, x: 0, y: 0, data: west },
      { z: 1, x: 0, y: 1, data: west },
      { z: 1, x: 1, y: 0, data: east },
      { z: 1, x: 1, y: 1, data: east },
    ],
    { tileType: 2 },
  );
  await layers(page, true);
  await page.getByTestId('basemap-file-input').setInputFiles({ name: 'halves.pmtiles', mimeType: 'application/octet-stream', buffer: archive });
  await expect(page.getByTestId('layer-switcher')).toContainText('halves.pmtiles');
  await layers(page, false);
  await settled(page);
  const w = await screenPixels(page, WEST, 6);
  const e = await screenPixels(page, EAST, 6);
  await shot(page, 'map-pmtiles');
  expect(w.count).toBeGreaterThan(20_000);
  expect(e.count).toBeGreaterThan(20_000);
  // Each half's middle reads as the middle of its hemisphere on the pointer readout.
  const [, lonW] = await readoutAt(page, w.centroid!.x, w.centroid!.y);
  const [, lonE] = await readoutAt(page, e.centroid!.x, e.centroid!.y);
  expect(Math.abs(lonW + 90)).toBeLessThan(12);
  expect(Math.abs(lonE - 90)).toBeLessThan(12);
  expect(csp).toEqual([]);

  // A file that is not PMTiles is refused with the reason, and the basemap it replaced goes.
  await layers(page, true);
  await page.getByTestId('basemap-file-input').setInputFiles({ name: 'notes.pmtiles', mimeType: 'application/octet-stream', buffer: Buffer.from('not an archive at all, just words') });
  await expect(page.getByTestId('map-problem')).toContainText('notes.pmtiles is not a PMTiles archive');
  await layers(page, false);
  await settled(page);
  expect((await screenPixels(page, WEST, 6)).count).toBe(0);
});

test('the basemap follows the dark theme: Natural Earth recoloured, online tiles inverted', async ({ page, host, context }) => {
  // Natural Earth colours of renderer/src/map/basemapPalette.ts and style.css's --fl-map-bg.
  const LAND = { light: { r: 0xee, g: 0xf0, b: 0xe6 }, dark: { r: 0x2c, g: 0x33, b: 0x3b } };
  const WATER = { light: { r: 0xb9, g: 0xd3, b: 0xe6 }, dark: { r: 0x1f, g: 0x2e, b: 0x3b } };
  const PAPER = { r: 242, g: 239, b: 233 };
  await context.route('https://tile.openstreetmap.org/**', (route) =>
    route.fulfill({ status: 200, contentType: 'image/png', headers: { 'access-control-allow-origin': '*' }, body: solidPng(256, rgb(PAPER)) }),
  );
  await openApp(page, host.launchUrl);
  await settled(page);
  const box = (await map(page).boundingBox())!;
  const area = box.width * box.height;
  expect((await screenPixels(page, LAND.light, 4)).count).toBeGreaterThan(area * 0.1);
  expect((await screenPixels(page, WATER.light, 4)).count).toBeGreaterThan(area * 0.1);

  await page.getByTestId('theme-toggle').click();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  await settled(page);
  await shot(page, 'map-dark');
  await layers(page, true);
  // The switcher takes the theme's surface, not a white box on the dark map.
  const panelBg = await page.getByTestId('layer-switcher').evaluate((el) => getComputedStyle(el).backgroundColor);
  expect(panelBg).toBe('rgb(27, 34, 43)');
  await shot(page, 'map-dark-layers');
  await layers(page, false);
  const land = await screenPixels(page, LAND.dark, 4);
  expect(land.count).toBeGreaterThan(area * 0.1);
  expect((await screenPixels(page, WATER.dark, 4)).count).toBeGreaterThan(area * 0.1);
  expect((await screenPixels(page, LAND.light, 4)).count).toBe(0);
  // Land is drawn where the land is: the middle of it reads on the northern continents.
  const [lat] = await readoutAt(page, land.centroid!.x, land.centroid!.y);
  expect(lat).toBeGreaterThan(0);

  // Online tiles in dark: the light paper colour is inverted to a dark one on screen.
  await layers(page, true);
  await page.getByTestId('online-tiles').check();
  await layers(page, false);
  await settled(page);
  await shot(page, 'map-dark-online');
  expect((await screenPixels(page, PAPER, 8)).count).toBeLessThan(area * 0.001);
  const inverted = await page.evaluate(() => {
    const el = document.querySelector('.basemap-online');
    return el ? getComputedStyle(el).filter : null;
  });
  expect(inverted).toContain('invert(1)');
  // invert(1) then hue-rotate(180deg) turns a near-grey dark by about 255 - x (brightness dims it further).
  const dark = await screenPixels(page, { r: 255 - PAPER.r, g: 255 - PAPER.g, b: 255 - PAPER.b }, 40);
  expect(dark.count).toBeGreaterThan(area * 0.3);

  await page.getByTestId('theme-toggle').click();
  await settled(page);
  expect((await screenPixels(page, PAPER, 8)).count).toBeGreaterThan(area * 0.3);
});
