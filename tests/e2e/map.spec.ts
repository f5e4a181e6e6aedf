import type { Page } from '@playwright/test';
import { latLngToCell, polygonToCells } from 'h3-js';
import { expect, test } from './fixtures';
import { screenPixels, showPoints, storeCall, storeState, readoutAt } from './map-helpers';
import { hex } from './map-pixels';

// Colours of renderer/src/map/layerColours.ts (the e2e project cannot import renderer files).
const RESULT = hex('#e8710a');
const SELECTED = hex('#d7301f');
const IMAGERY = hex('#7b3fb5');
const H3 = hex('#1f77b4');
const PIN = hex('#1d2733');

async function openApp(page: Page, launchUrl: string): Promise<string[]> {
  const csp: string[] = [];
  page.on('console', (m) => {
    if (/Content Security Policy/i.test(m.text())) csp.push(m.text());
  });
  await page.goto(launchUrl);
  await expect(page.getByTestId('map')).toHaveAttribute('data-basemap', 'drawn', { timeout: 30_000 });
  return csp;
}

const map = (page: Page) => page.getByTestId('map');

test('100,000 results are drawn with WebGL; a pick on one rings the nearest point', async ({ page, host }) => {
  test.setTimeout(180_000);
  const csp = await openApp(page, host.launchUrl);
  // A 400 x 250 grid over western Europe: lon -10..30, lat 35..60.
  await showPoints(page, 100_000, [-10, 35, 30, 60]);
  await expect(map(page)).toHaveAttribute('data-features', '100000', { timeout: 60_000 });
  await expect(map(page)).toHaveAttribute('data-render-mode', 'webgl');
  // Drawn by the point renderer from one buffer (its own canvas), not feature by feature.
  await expect(map(page).locator('.fl-points canvas')).toHaveCount(1);
  await expect(map(page)).toHaveAttribute('data-settled', 'yes', { timeout: 90_000 });
  await page.screenshot({ path: 'test-results/map-webgl-100k.png' });
  // 100,000 sub-pixel dots blend with the basemap; thousands of pixels in the result colour show the grid drawn.
  await expect.poll(async () => (await screenPixels(page, RESULT, 30)).count, { timeout: 90_000 }).toBeGreaterThan(2_000);

  const at = (await screenPixels(page, RESULT, 30)).inside!;
  const [lat, lon] = await readoutAt(page, at.x, at.y);
  await page.mouse.click(at.x, at.y);
  await expect(map(page)).not.toHaveAttribute('data-selected', '', { timeout: 20_000 });
  const id = await map(page).getAttribute('data-selected');
  // The picked point's own position, from the grid formula, is within a few pixels of the click.
  const i = Number(id!.slice(1));
  const side = Math.ceil(Math.sqrt(100_000));
  const pLon = -10 + (40 * (i % side)) / side;
  const pLat = 35 + (25 * Math.floor(i / side)) / side;
  expect(Math.abs(pLon - lon)).toBeLessThan(0.3);
  expect(Math.abs(pLat - lat)).toBeLessThan(0.3);
  // The selection is drawn over the WebGL layer.
  await expect.poll(async () => (await screenPixels(page, SELECTED, 20)).count, { timeout: 20_000 }).toBeGreaterThan(30);
  await page.screenshot({ path: 'test-results/map-webgl-100k-selected.png' });
  expect(csp).toEqual([]);
});

test('heatmap and clusters replace the dots on request', async ({ page, host }) => {
  test.setTimeout(180_000);
  await openApp(page, host.launchUrl);
  await showPoints(page, 20_000, [-5, 42, 10, 51]);
  await expect(map(page)).toHaveAttribute('data-render-mode', 'webgl', { timeout: 60_000 });
  await expect.poll(async () => (await screenPixels(page, RESULT, 30)).count, { timeout: 60_000 }).toBeGreaterThan(10_000);

  await page.getByTestId('map-layers').click();
  await page.getByTestId('display-heatmap').check();
  await expect(map(page)).toHaveAttribute('data-render-mode', 'heatmap');
  // The default gradient runs blue, cyan, green, yellow, red: a dense even grid glows red and yellow.
  const heat = async () =>
    (await screenPixels(page, hex('#ff0000'), 70)).count + (await screenPixels(page, hex('#ffff00'), 70)).count;
  await expect.poll(heat, { timeout: 60_000 }).toBeGreaterThan(10_000);
  expect((await screenPixels(page, RESULT, 12)).count).toBeLessThan(500);
  await page.getByTestId('map-layers').click();
  await page.screenshot({ path: 'test-results/map-heatmap.png' });

  await page.getByTestId('map-layers').click();
  await page.getByTestId('display-cluster').check();
  await expect(map(page)).toHaveAttribute('data-render-mode', 'cluster');
  await page.getByTestId('map-layers').click();
  // Cluster discs are large: an interior pixel has the colour 6 px away on every side.
  await expect.poll(async () => (await screenPixels(page, RESULT, 20)).count, { timeout: 60_000 }).toBeGreaterThan(2_000);
  await page.screenshot({ path: 'test-results/map-cluster.png' });
});

/** The centroid of the imagery colour for one capture facing `heading` at a fixed place. */
async function arrowCentroid(page: Page, heading: number): Promise<{ x: number; y: number }> {
  await storeCall(page, 'map', 'show', 'imagery', {
    type: 'FeatureCollection',
    features: [{ type: 'Feature', id: `h${heading}`, geometry: { type: 'Point', coordinates: [4.85, 45.76] }, properties: { address: '', heading } }],
  }, false);
  let c: { x: number; y: number } | null = null;
  await expect
    .poll(async () => {
      c = (await screenPixels(page, IMAGERY, 24)).centroid;
      return c !== null;
    }, { timeout: 20_000 })
    .toBe(true);
  // Icons load asynchronously: let the drawing settle before measuring.
  await page.waitForTimeout(300);
  return (await screenPixels(page, IMAGERY, 24)).centroid!;
}

test('captures are drawn as arrows turned to their compass facing', async ({ page, host }) => {
  await openApp(page, host.launchUrl);
  await storeCall(page, 'map', 'setActiveLayer', 'imagery');
  // The view stays put between shows (no fit), so the capture is at the same pixel each time.
  const east = await arrowCentroid(page, 90);
  const west = await arrowCentroid(page, 270);
  const north = await arrowCentroid(page, 0);
  const south = await arrowCentroid(page, 180);
  expect(east.x - west.x).toBeGreaterThan(4);
  expect(Math.abs(east.y - west.y)).toBeLessThan(1.5);
  expect(south.y - north.y).toBeGreaterThan(4);
  expect(Math.abs(south.x - north.x)).toBeLessThan(1.5);

  // Eight captures on a ring around Lyon, each facing away from the centre, plus spec compass text.
  const features = Array.from({ length: 8 }, (_, k) => ({
    type: 'Feature',
    id: `c${k}`,
    geometry: { type: 'Point', coordinates: [4.85 + 0.08 * Math.sin((k * Math.PI) / 4), 45.76 + 0.056 * Math.cos((k * Math.PI) / 4)] },
    properties: { address: `Capture ${k}`, compass: ['North (N)', 'North-East (NE)', 'East (E)', 'South-East (SE)', 'South (S)', 'South-West (SW)', 'West (W)', 'North-West (NW)'][k] },
  }));
  await storeCall(page, 'map', 'show', 'imagery', { type: 'FeatureCollection', features });
  await expect(map(page)).toHaveAttribute('data-features', '8');
  await expect.poll(async () => (await screenPixels(page, IMAGERY, 24)).count, { timeout: 20_000 }).toBeGreaterThan(8 * 40);
  await expect(map(page)).toHaveAttribute('data-settled', 'yes', { timeout: 20_000 });
  await page.screenshot({ path: 'test-results/map-imagery-arrows.png' });
});

test('H3 cells are picked by clicking the map and filled into a drawn polygon', async ({ page, host }) => {
  test.setTimeout(120_000);
  const csp = await openApp(page, host.launchUrl);
  await page.getByTestId('map-h3').click();
  await page.getByTestId('tool-h3-pick').check();
  await page.getByTestId('map-h3-resolution').fill('2');
  await page.getByTestId('map-h3-resolution').dispatchEvent('change');
  // Two steps closer, so resolution-2 cells are some 20 px across.
  for (const _ of [1, 2]) {
    await page.locator('.ol-zoom-in').click();
    await page.waitForTimeout(600);
  }
  await expect(map(page)).toHaveAttribute('data-settled', 'yes');
  const box = (await map(page).boundingBox())!;
  const clicks = [
    { x: box.x + box.width * 0.55, y: box.y + box.height * 0.35 },
    { x: box.x + box.width * 0.62, y: box.y + box.height * 0.42 },
  ];
  const expected: string[] = [];
  for (const c of clicks) {
    const [lat, lon] = await readoutAt(page, c.x, c.y);
    expected.push(latLngToCell(lat, lon, 2));
    await page.mouse.click(c.x, c.y);
    // Clicks closer together than a double-click's 250 ms would zoom instead.
    await page.waitForTimeout(400);
  }
  await expect(map(page)).toHaveAttribute('data-h3-cells', String(new Set(expected).size));
  expect(await storeState<string[]>(page, 'composer', 'h3Ids')).toEqual([...new Set(expected)]);
  await expect.poll(async () => (await screenPixels(page, H3, 10)).count, { timeout: 10_000 }).toBeGreaterThan(60);

  // A polygon, its corners read back from the coordinate readout, filled at resolution 2.
  await page.getByTestId('tool-h3-draw').check();
  const corners = [
    [0.3, 0.55],
    [0.45, 0.55],
    [0.45, 0.75],
    [0.3, 0.75],
  ].map(([fx, fy]) => ({ x: box.x + box.width * fx!, y: box.y + box.height * fy! }));
  const ring: number[][] = [];
  for (const c of corners) {
    const [lat, lon] = await readoutAt(page, c.x, c.y);
    ring.push([lon, lat]);
    await page.mouse.click(c.x, c.y);
    await page.waitForTimeout(400);
  }
  await page.mouse.click(corners[0]!.x, corners[0]!.y);
  const filled = polygonToCells([[...ring, ring[0]!]], 2, true);
  expect(filled.length).toBeGreaterThan(3);
  const all = [...new Set([...expected, ...filled])];
  await expect(map(page)).toHaveAttribute('data-h3-cells', String(all.length), { timeout: 10_000 });
  expect(new Set(await storeState<string[]>(page, 'composer', 'h3Ids'))).toEqual(new Set(all));
  await page.getByTestId('tool-select').check();
  await expect(map(page)).toHaveAttribute('data-settled', 'yes');
  await page.screenshot({ path: 'test-results/map-h3-cells.png' });

  // Too fine for the area: refused with the reason, nothing added.
  await page.getByTestId('map-h3-resolution').fill('12');
  await page.getByTestId('map-h3-resolution').dispatchEvent('change');
  await page.getByTestId('tool-h3-draw').check();
  for (const c of corners) {
    await page.mouse.click(c.x, c.y);
    await page.waitForTimeout(400);
  }
  await page.mouse.click(corners[0]!.x, corners[0]!.y);
  await expect(page.getByTestId('map-problem')).toContainText('coarser resolution');
  await expect(map(page)).toHaveAttribute('data-h3-cells', String(all.length));
  expect(csp).toEqual([]);
});

test('named coordinates: right-click to add with a name, drag to move, delete from the menu or with Delete', async ({ page, host }) => {
  await openApp(page, host.launchUrl);
  const box = (await map(page).boundingBox())!;
  // Dark pixels with no pin (text of the controls), measured with the pointer off the map.
  await page.mouse.move(box.x + box.width + 2, box.y + 5);
  const darkBefore = (await screenPixels(page, PIN, 12)).count;
  const at = { x: box.x + box.width * 0.5, y: box.y + box.height * 0.45 };
  const [lat, lon] = await readoutAt(page, at.x, at.y);
  // One pixel in degrees at this zoom: the readout is exact to the pixel, no finer.
  const px = Math.abs((await readoutAt(page, at.x + 20, at.y))[1] - lon) / 20;
  await page.mouse.click(at.x, at.y, { button: 'right' });
  await page.getByTestId('menu-add').click();
  await page.getByTestId('coordinate-name').fill('Depot');
  await page.getByTestId('coordinate-name').press('Enter');
  await expect(map(page)).toHaveAttribute('data-coordinates', '1');
  let [c] = await storeState<Array<{ name: string; longitude: number; latitude: number }>>(page, 'composer', 'coordinates');
  expect(c!.name).toBe('Depot');
  expect(Math.abs(c!.longitude - lon)).toBeLessThanOrEqual(px);
  expect(Math.abs(c!.latitude - lat)).toBeLessThanOrEqual(px);
  await expect.poll(async () => (await screenPixels(page, PIN, 12)).count, { timeout: 10_000 }).toBeGreaterThan(60);

  // Drag the pin 150 px right and 60 px down: its coordinates follow the pointer.
  const to = { x: at.x + 150, y: at.y + 60 };
  const [lat2, lon2] = await readoutAt(page, to.x, to.y);
  await page.mouse.move(at.x, at.y);
  await page.mouse.down();
  await page.mouse.move(at.x + 50, at.y + 20, { steps: 5 });
  await page.mouse.move(to.x, to.y, { steps: 10 });
  await page.mouse.up();
  await expect
    .poll(async () => Math.abs((await storeState<Array<{ longitude: number }>>(page, 'composer', 'coordinates'))[0]!.longitude - lon2))
    .toBeLessThanOrEqual(2 * px);
  [c] = await storeState<Array<{ name: string; longitude: number; latitude: number }>>(page, 'composer', 'coordinates');
  expect(Math.abs(c!.latitude - lat2)).toBeLessThanOrEqual(2 * px);

  // A second one, so the picture shows two named places.
  const other = { x: box.x + box.width * 0.35, y: box.y + box.height * 0.6 };
  await page.mouse.click(other.x, other.y, { button: 'right' });
  await page.getByTestId('menu-add').click();
  await page.getByTestId('coordinate-name').fill('Site B');
  await page.getByTestId('coordinate-save').click();
  await expect(map(page)).toHaveAttribute('data-coordinates', '2');
  await page.mouse.move(box.x + 5, box.y + box.height - 5);
  await page.screenshot({ path: 'test-results/map-named-coordinates.png' });

  // Delete from the menu on the pin.
  await page.mouse.click(to.x, to.y, { button: 'right' });
  await page.getByTestId('menu-delete').click();
  await expect(map(page)).toHaveAttribute('data-coordinates', '1');
  // Select the other by a click, then Delete.
  await page.mouse.click(other.x, other.y);
  // A single click is told from a double one after 250 ms.
  await page.waitForTimeout(500);
  await map(page).press('Delete');
  await expect(map(page)).toHaveAttribute('data-coordinates', '0');
  await page.mouse.move(box.x + box.width + 2, box.y + 5);
  await expect.poll(async () => (await screenPixels(page, PIN, 12)).count, { timeout: 10_000 }).toBeLessThan(darkBefore + 20);
});

test('zoom to results goes as close as the results need: a town fills the map, a single point stops at street zoom', async ({ page, host }) => {
  await openApp(page, host.launchUrl);
  const box = (await map(page).boundingBox())!;
  const y = box.y + box.height / 2;
  // Web Mercator zoom from the readout: degrees of longitude per CSS pixel at zoom z are 360 / (256 * 2^z).
  const zoomNow = async () => {
    const [, west] = await readoutAt(page, box.x + box.width / 2 - 100, y);
    const [, east] = await readoutAt(page, box.x + box.width / 2 + 100, y);
    return Math.log2(360 / (256 * ((east - west) / 200)));
  };
  const show = async (coordinates: Array<[number, number]>) => {
    const features = coordinates.map((c, i) => ({ type: 'Feature', id: `z${i}`, geometry: { type: 'Point', coordinates: c }, properties: { name: `Z${i}` } }));
    await storeCall(page, 'map', 'show', 'ask', { type: 'FeatureCollection', features }, false);
    await storeCall(page, 'map', 'fit', 'ask');
  };

  // Two sites 0.06 degrees apart on one parallel (some 4.5 km): the fit is as wide as the map less
  // its side padding (120 px each side), so the resolution is their distance in Mercator metres over that.
  await show([[11.5, 48.1], [11.56, 48.1]]);
  const metres = (6378137 * 0.06 * Math.PI) / 180;
  const expected = Math.log2((2 * Math.PI * 6378137) / 256 / (metres / (box.width - 240)));
  expect(expected).toBeGreaterThan(11);
  await expect.poll(zoomNow, { timeout: 20_000 }).toBeCloseTo(expected, 1);

  // One result: the closest the fit goes is 17.
  await show([[4.8357, 45.764]]);
  await expect.poll(zoomNow, { timeout: 20_000 }).toBeCloseTo(17, 1);
  const [lat, lon] = await readoutAt(page, box.x + box.width / 2, y);
  // And it is in the middle (the padding is 120 px either side, 72 above and 56 below: 8 px low).
  expect(Math.abs(lon - 4.8357)).toBeLessThan(0.0002);
  expect(Math.abs(lat - 45.764)).toBeLessThan(0.0002);
  await expect(map(page)).toHaveAttribute('data-settled', 'yes', { timeout: 20_000 });
  await page.screenshot({ path: 'test-results/map-zoom-single-result.png' });
});
