import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import type { LineString, Polygon, Position } from 'geojson';
import { writeTownFiles, type TownFiles } from '../support/town/files';
import { expect, test } from './fixtures';
import { hex, screenCountIn, type Rgb } from './map-pixels';
import { readoutAt, showPoints, storeCall } from './map-helpers';
import { rpcCall } from './rpc';
import { openApp, shot } from './workspace-helpers';

// STREET_PALETTES of renderer/src/map/streetStyle.ts (the e2e project cannot import renderer files).
const COLOURS = {
  light: { street: hex('#ffffff'), secondary: hex('#fbe8b0'), building: hex('#d6cbbd') },
  dark: { street: hex('#6d737c'), secondary: hex('#6f6a58'), building: hex('#4a4f57') },
};

let dir: string;
let town: TownFiles;
test.beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'fl-e2e-street-'));
  town = writeTownFiles(dir);
});
test.afterAll(() => rmSync(dir, { recursive: true, force: true }));

const byName = (name: string) => town.features.find((f) => f.properties['name'] === name)!;
// Web Mercator written out here: a position in world pixels at a zoom (256 px tiles).
const worldPx = ([lon, lat]: Position, z: number) => {
  const r = (lat! * Math.PI) / 180;
  const n = 256 * 2 ** z;
  return [((lon! + 180) / 360) * n, ((1 - Math.log(Math.tan(r) + 1 / Math.cos(r)) / Math.PI) / 2) * n] as const;
};

/** For each page position, whether a pixel within `reach` of it shows the colour (one screenshot of the map). */
async function coloursAt(page: Page, at: { x: number; y: number }[], colour: Rgb, reach = 2, tolerance = 10): Promise<boolean[]> {
  const box = (await page.getByTestId('map').boundingBox())!;
  const png = await page.screenshot({ clip: box });
  return page.evaluate(
    async ({ b64, at, colour, reach, tolerance, box }) => {
      const img = new Image();
      img.src = `data:image/png;base64,${b64}`;
      await img.decode();
      const canvas = document.createElement('canvas');
      canvas.width = img.width;
      canvas.height = img.height;
      const ctx = canvas.getContext('2d')!;
      ctx.drawImage(img, 0, 0);
      const { data, width, height } = ctx.getImageData(0, 0, img.width, img.height);
      const near = (x: number, y: number) => {
        if (x < 0 || y < 0 || x >= width || y >= height) return false;
        const i = (y * width + x) * 4;
        return Math.abs(data[i]! - colour.r) <= tolerance && Math.abs(data[i + 1]! - colour.g) <= tolerance && Math.abs(data[i + 2]! - colour.b) <= tolerance;
      };
      return at.map((p) => {
        const cx = Math.round(((p.x - box.x) * width) / box.width);
        const cy = Math.round(((p.y - box.y) * height) / box.height);
        for (let dy = -reach; dy <= reach; dy++) for (let dx = -reach; dx <= reach; dx++) if (near(cx + dx, cy + dy)) return true;
        return false;
      });
    },
    { b64: png.toString('base64'), at, colour, reach, tolerance, box },
  );
}

/** The number of map pixels of a colour inside a page rectangle. */
async function countIn(page: Page, rect: { x0: number; y0: number; x1: number; y1: number }, colour: Rgb, tolerance = 10): Promise<number> {
  const box = (await page.getByTestId('map').boundingBox())!;
  const clip = { x: Math.max(box.x, rect.x0), y: Math.max(box.y, rect.y0), width: rect.x1 - rect.x0, height: rect.y1 - rect.y0 };
  return screenCountIn(page, clip, colour, tolerance);
}

test('a loaded town extract is the basemap at zoom 16 offline, in light and dark: roads and buildings drawn where the layer has them, road names about once per screen span', async ({ page, host, context }) => {
  test.setTimeout(120_000);
  // Offline as a laptop in the field is: nothing beyond this machine answers. (The browser's own
  // offline switch would also cut the page's socket to the app on 127.0.0.1.)
  const outside: string[] = [];
  await context.route(
    (url) => url.protocol.startsWith('http') && !['127.0.0.1', 'localhost'].includes(url.hostname),
    (route) => {
      outside.push(route.request().url());
      return route.abort('internetdisconnected');
    },
  );
  await openApp(page, host.launchUrl);
  const map = page.getByTestId('map');
  await rpcCall(page, 'layers.import', { path: town.pbf });
  await expect.poll(async () => (await rpcCall<{ layers: { name: string }[] }>(page, 'layers.list', {})).layers.map((l) => l.name), { timeout: 30_000 }).toEqual(['town']);

  // To the town hall at zoom 16: one point framed goes to street zoom 17, one step out is 16.
  const hall = (byName('Rathaus').geometry as Polygon).coordinates[0]!;
  const [lon0, lat0] = [(hall[0]![0]! + hall[2]![0]!) / 2, (hall[0]![1]! + hall[2]![1]!) / 2];
  await showPoints(page, 1, [lon0, lat0, lon0, lat0]);
  await expect(map).toHaveAttribute('data-settled', 'yes', { timeout: 15_000 });
  await page.waitForTimeout(600);
  await page.locator('.ol-zoom-out').click();
  await page.waitForTimeout(600);
  await storeCall(page, 'map', 'show', 'ask', null, false);
  await expect(map).toHaveAttribute('data-settled', 'yes', { timeout: 15_000 });

  // Where a position is on the page, from the readout at the map's centre and the zoom it shows.
  const box = (await map.boundingBox())!;
  const c = { x: box.x + box.width / 2, y: box.y + box.height / 2 };
  const [latC, lonC] = await readoutAt(page, c.x, c.y);
  const [latR, lonR] = await readoutAt(page, c.x + 400, c.y);
  expect(latR).toBeCloseTo(latC, 3);
  expect(Math.log2(((400 / (lonR - lonC)) * 360) / 256)).toBeCloseTo(16, 1);
  const [wcx, wcy] = worldPx([lonC, latC], 16);
  const onPage = (p: Position) => {
    const [wx, wy] = worldPx(p, 16);
    return { x: c.x + wx - wcx, y: c.y + wy - wcy };
  };
  // Points along a line every 8 px, kept off the map's edges (controls, attribution).
  const along = (coords: Position[]) => {
    const out: { x: number; y: number }[] = [];
    for (let i = 1; i < coords.length; i++) {
      const a = onPage(coords[i - 1]!);
      const b = onPage(coords[i]!);
      const steps = Math.ceil(Math.hypot(b.x - a.x, b.y - a.y) / 8);
      for (let s = 0; s <= steps; s++) out.push({ x: a.x + ((b.x - a.x) * s) / steps, y: a.y + ((b.y - a.y) * s) / steps });
    }
    return out.filter((p) => p.x > box.x + 80 && p.x < box.x + box.width - 80 && p.y > box.y + 80 && p.y < box.y + box.height - 80);
  };
  const north = along((byName('Nordstraße').geometry as LineString).coordinates);
  const bridge = along((byName('Lennebrücke 2').geometry as LineString).coordinates);
  expect(north.length).toBeGreaterThan(40);
  expect(bridge.length).toBeGreaterThan(3);
  const [hx0, hy0] = [onPage(hall[3]!), onPage(hall[1]!)].map((p) => [p.x, p.y]) as [[number, number], [number, number]];
  const hallRect = { x0: hx0[0], y0: hx0[1], x1: hy0[0], y1: hy0[1] };
  const hallArea = (hallRect.x1 - hallRect.x0) * (hallRect.y1 - hallRect.y0);
  expect(hallArea).toBeGreaterThan(1000);

  for (const theme of ['light', 'dark'] as const) {
    const want = COLOURS[theme];
    await expect(page.locator('html')).toHaveAttribute('data-theme', theme);
    await expect(map).toHaveAttribute('data-settled', 'yes', { timeout: 15_000 });
    await page.mouse.move(box.x + 10, box.y + box.height - 10);
    await shot(page, `street-basemap-z16-${theme}`);
    // The street's fill on (nearly) every point along it; a name drawn over it hides a few.
    const onStreet = await coloursAt(page, north, want.street);
    expect(onStreet.filter(Boolean).length / onStreet.length, `${theme}: Nordstraße`).toBeGreaterThan(0.8);
    // Nordstraße crosses the view through several 256 px tiles: its name is drawn about once per
    // screen span (at most one more than the spans its drawn length makes), not once per tile.
    const road = (byName('Nordstraße').geometry as LineString).coordinates.map(onPage);
    const shown = Math.min(box.x + box.width, Math.max(...road.map((p) => p.x))) - Math.max(box.x, Math.min(...road.map((p) => p.x)));
    const roadNames = ((await storeCall(page, 'map', 'labelledNames')) as string[]).filter((n) => n === 'Nordstraße').length;
    expect(Math.ceil(shown / 256), 'tiles the road crosses').toBeGreaterThanOrEqual(3);
    expect(roadNames, `${theme}: Nordstraße named`).toBeGreaterThanOrEqual(1);
    expect(roadNames, `${theme}: Nordstraße named about once per screen span`).toBeLessThanOrEqual(Math.ceil(shown / box.width) + 1);
    const onBridge = await coloursAt(page, bridge, want.secondary);
    expect(onBridge.filter(Boolean).length / onBridge.length, `${theme}: the bridge`).toBeGreaterThan(0.8);
    // The town hall: its rectangle filled in the building colour (the outline takes a pixel a side).
    const inHall = await countIn(page, hallRect, want.building);
    expect(inHall, `${theme}: town hall`).toBeGreaterThan(hallArea * 0.7);
    // No building colour where the layer has no building: the same size of box 300 m east of the hall.
    const [ex, ey] = [onPage([hall[0]![0]! + 0.004, hall[0]![1]!]), onPage([hall[2]![0]! + 0.004, hall[2]![1]!])];
    expect(await countIn(page, { x0: Math.min(ex!.x, ey!.x), y0: Math.min(ex!.y, ey!.y), x1: Math.max(ex!.x, ey!.x), y1: Math.max(ex!.y, ey!.y) }, want.building)).toBe(0);
    if (theme === 'light') await page.getByTestId('theme-toggle').click();
  }
  // The layer switcher lists it by the extract's name and turns it off and on.
  await page.getByTestId('map-layers').click();
  const toggle = page.getByTestId('street-basemap');
  await expect(page.getByTestId('layer-switcher')).toContainText('Street map (town)');
  await expect(toggle).toBeChecked();
  await shot(page, 'street-basemap-layer-switcher');
  await toggle.uncheck();
  await page.waitForTimeout(400);
  await expect(map).toHaveAttribute('data-settled', 'yes', { timeout: 15_000 });
  expect(await countIn(page, hallRect, COLOURS.dark.building)).toBeLessThan(hallArea * 0.05);
  await toggle.check();
  await page.waitForTimeout(400);
  await expect(map).toHaveAttribute('data-settled', 'yes', { timeout: 15_000 });
  expect(await countIn(page, hallRect, COLOURS.dark.building)).toBeGreaterThan(hallArea * 0.7);
  // Drawn from the extract alone: nothing was asked of the network.
  expect(outside).toEqual([]);
});
