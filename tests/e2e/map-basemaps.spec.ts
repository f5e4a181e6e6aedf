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
