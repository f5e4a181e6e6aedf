import type { Locator } from '@playwright/test';
import * as mgrsModule from 'mgrs';
import proj4 from 'proj4';
import { expect, test } from './fixtures';
import { readoutAt } from './map-helpers';
import { rpcCall } from './rpc';

// Expected texts come from the feature's own coordinates, written out here or through the raw
// mgrs / proj4 packages, never through the app's shared/coords.

/** Pastes text into a box as the clipboard would (a paste event carrying text/plain). */
async function paste(box: Locator, text: string): Promise<void> {
  await box.focus();
  await box.evaluate((el, t) => {
    const data = new DataTransfer();
    data.setData('text/plain', t);
    el.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
  }, text);
}

function metres(a: { lat: number; lon: number }, b: { lat: number; lon: number }): number {
  const r = Math.PI / 180;
  const h = Math.sin(((b.lat - a.lat) * r) / 2) ** 2 + Math.cos(a.lat * r) * Math.cos(b.lat * r) * Math.sin(((b.lon - a.lon) * r) / 2) ** 2;
  return 2 * 6_371_008.8 * Math.asin(Math.sqrt(h));
}

/** 45°45'32.0"N style, to a tenth of a second. */
function dmsText(lat: number, lon: number): string {
  const one = (v: number, pos: string, neg: string) => {
    const tenths = Math.round(Math.abs(v) * 36000);
    const d = Math.floor(tenths / 36000);
    const m = Math.floor((tenths - d * 36000) / 600);
    const s = (tenths - d * 36000 - m * 600) / 10;
    return `${d}°${String(m).padStart(2, '0')}'${s.toFixed(1).padStart(4, '0')}"${v < 0 ? neg : pos}`;
  };
  return `${one(lat, 'N', 'S')} ${one(lon, 'E', 'W')}`;
}

// The package's Node build exports only a default; its ESM build named functions.
const mgrs = (mgrsModule as { default?: typeof mgrsModule }).default ?? mgrsModule;

const clipboard = (page: import('@playwright/test').Page) => page.evaluate(() => navigator.clipboard.readText());

test('results table: a row copied as DMS, MGRS and (the default) UTM; positions pasted into named coordinates', async ({ page, host }) => {
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(host.launchUrl).origin });
  await page.goto(host.launchUrl);
  await expect(page.getByTestId('map')).toHaveAttribute('data-basemap', 'drawn', { timeout: 30_000 });
  await rpcCall(page, 'settings.save', { coordinateFormat: 'dd' });

  await page.getByTestId('tab-ask').click();
  await page.getByTestId('ask-query').fill('airports within 30 km of Lyon');
  await page.getByTestId('ask-run').click();
  const rows = page.getByTestId('result-row');
  await expect(rows.first()).toBeVisible({ timeout: 30_000 });

  // The features as the cache holds them, by id.
  const last = await rpcCall<{ items: { id: number }[] }>(page, 'history.list', { limit: 1 });
  const rec = await rpcCall<{ raw: string }>(page, 'history.get', { id: last.items[0]!.id });
  const features = (JSON.parse(rec.raw) as { results: { features: { id: string; geometry: { coordinates: [number, number] } }[] } }).results.features;
  const at = async (row: Locator) => {
    const id = await row.getAttribute('data-id');
    const [lon, lat] = features.find((f) => f.id === id)!.geometry.coordinates;
    return { lat, lon };
  };

  // Right click: every notation, the default (decimal) first.
  const first = rows.first();
  await first.click({ button: 'right', position: { x: 400, y: 10 } });
  const menu = page.getByTestId('row-copy-menu');
  await expect(menu).toBeVisible();
  await expect(menu.getByRole('menuitem')).toHaveCount(5);
  await expect(menu.getByRole('menuitem').first()).toContainText('Decimal degrees (default)');
  await expect(menu.getByRole('menuitem').first()).toBeFocused();
  // Opened near the window's right edge, it is moved to stay whole on screen.
  const box = (await menu.boundingBox())!;
  expect(box.x + box.width).toBeLessThanOrEqual(1280);
  await expect(menu.getByRole('menuitem').last()).toContainText(/31T [A-Z]{2} \d{5} \d{5}/);
  await page.screenshot({ path: 'test-results/results-copy-as-menu.png' });
  await page.getByTestId('row-copy-dms').click();
  await expect(menu).toBeHidden();
  const p1 = await at(first);
  expect(await clipboard(page)).toBe(dmsText(p1.lat, p1.lon));
  await expect(page.getByTestId('row-copy-note')).toContainText('Degrees, minutes, seconds of');

  // Keyboard: the second row, Shift+F10, End (MGRS), Enter.
  const body = page.getByTestId('result-table-body');
  await body.focus();
  await body.press('ArrowDown');
  await body.press('Shift+F10');
  await expect(menu).toBeVisible();
  await page.keyboard.press('End');
  await expect(page.getByTestId('row-copy-mgrs')).toBeFocused();
  await page.keyboard.press('Enter');
  const p2 = await at(rows.nth(1));
  const mgrsText = await clipboard(page);
  expect(mgrsText).toMatch(/^31T [A-Z]{2} \d{5} \d{5}$/);
  const [mlon, mlat] = mgrs.toPoint(mgrsText.replace(/ /g, ''));
  // A 1 m MGRS square names its south-west corner: within 1.5 m of the feature.
  expect(metres({ lat: mlat!, lon: mlon! }, p2)).toBeLessThan(1.5);
  await expect(body).toBeFocused();
  await body.press('Shift+F10');
  await page.keyboard.press('Escape');
  await expect(menu).toBeHidden();
  await expect(body).toBeFocused();

  // Ctrl+C copies in the default notation, set here to UTM.
  await rpcCall(page, 'settings.save', { coordinateFormat: 'utm' });
  await page.reload();
  await expect(page.getByTestId('map')).toHaveAttribute('data-basemap', 'drawn', { timeout: 30_000 });
  await page.getByTestId('tab-ask').click();
  await page.getByTestId('ask-query').fill('airports within 30 km of Lyon');
  await page.getByTestId('ask-run').click();
  await expect(rows.first()).toBeVisible({ timeout: 30_000 });
  await page.getByTestId('result-table-body').focus();
  await page.getByTestId('result-table-body').press('Control+c');
  const utmText = await clipboard(page);
  const [, zone, band, e, n] = /^(\d{1,2})([C-X]) (\d+) (\d+)$/.exec(utmText) ?? [];
  expect(`${zone}${band}`).toBe('31T');
  const [ulon, ulat] = proj4(`+proj=utm +zone=${zone} +datum=WGS84 +units=m +no_defs`, 'EPSG:4326', [Number(e), Number(n)]);
  expect(metres({ lat: ulat!, lon: ulon! }, await at(rows.first()))).toBeLessThan(1);
  await expect(page.getByTestId('row-copy-note')).toContainText(`UTM of`);
  await rpcCall(page, 'settings.save', { coordinateFormat: 'dd' });

  // The question box still converts a pasted UTM reference (the CN Tower, as Wikipedia gives it).
  const query = page.getByTestId('ask-query');
  await query.fill('');
  await paste(query, '17T 630084 4833438');
  const [qlat, qlon] = (await query.inputValue()).split(',').map(Number);
  expect(metres({ lat: qlat!, lon: qlon! }, { lat: 43 + 38 / 60 + 33.24 / 3600, lon: -(79 + 23 / 60 + 13.7 / 3600) })).toBeLessThan(1.5);

  // Named coordinates: an MGRS reference pasted into the latitude box fills both boxes
  // (the Washington Monument, 18SUJ2348306479, published at 38°53′22″N 77°02′07″W).
  await page.getByTestId('ask-more').click();
  const named = page.getByTestId('named-coordinates');
  await page.getByTestId('named-coordinate-new').fill('Monument');
  await paste(page.getByTestId('named-coordinate-lat'), '18SUJ2348306479');
  const lat = Number(await page.getByTestId('named-coordinate-lat').inputValue());
  const lon = Number(await page.getByTestId('named-coordinate-lon').inputValue());
  expect(metres({ lat, lon }, { lat: 38 + 53 / 60 + 22 / 3600, lon: -(77 + 2 / 60 + 7 / 3600) })).toBeLessThan(30);
  await expect(named.getByTestId('paste-note')).toContainText('MGRS');
  await page.screenshot({ path: 'test-results/named-coordinates-paste.png' });
  // DMS into the longitude box, then something that is no position.
  await paste(page.getByTestId('named-coordinate-lon'), `43°38'33.24"N 79°23'13.7"W`);
  expect(Number(await page.getByTestId('named-coordinate-lat').inputValue())).toBeCloseTo(43 + 38 / 60 + 33.24 / 3600, 6);
  expect(Number(await page.getByTestId('named-coordinate-lon').inputValue())).toBeCloseTo(-(79 + 23 / 60 + 13.7 / 3600), 6);
  await paste(page.getByTestId('named-coordinate-lat'), 'north of the river');
  await expect(page.getByTestId('named-coordinate-problem')).toContainText('is not a coordinate');
  await named.getByRole('button', { name: 'Add', exact: true }).click();
  await expect(page.getByTestId('named-coordinate-name')).toHaveValue('Monument');
  await expect(named.getByTestId('named-coordinate')).toContainText('43.6426, -79.3871');
});

/** Reads 45°45'32.0"N 4°50'12.3"E back into degrees. */
function fromDms(text: string): { lat: number; lon: number } {
  const parts = [...text.matchAll(/(\d+)°(\d+)'([\d.]+)"([NSEW])/g)].map(([, d, m, s, h]) => {
    const v = Number(d) + Number(m) / 60 + Number(s) / 3600;
    return h === 'S' || h === 'W' ? -v : v;
  });
  return { lat: parts[0]!, lon: parts[1]! };
}

test('map: right click copies the position under the pointer in any notation', async ({ page, host }) => {
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(host.launchUrl).origin });
  await page.goto(host.launchUrl);
  const map = page.getByTestId('map');
  await expect(map).toHaveAttribute('data-basemap', 'drawn', { timeout: 30_000 });
  await rpcCall(page, 'settings.save', { coordinateFormat: 'dms' });
  const box = (await map.boundingBox())!;
  const at = { x: box.x + box.width * 0.55, y: box.y + box.height * 0.4 };
  // The pointer readout and one pixel's size in degrees there: the copied text must name the same place, to the pixel.
  const [lat, lon] = await readoutAt(page, at.x, at.y);
  const [latDown, lonRight] = [(await readoutAt(page, at.x, at.y + 20))[0], (await readoutAt(page, at.x + 20, at.y))[1]];
  const px = { lat: Math.abs(lat - latDown) / 20, lon: Math.abs(lonRight - lon) / 20 };
  await page.mouse.click(at.x, at.y, { button: 'right' });
  const menu = page.getByTestId('map-menu');
  await expect(menu).toBeVisible();
  await expect(page.getByTestId('map-copy-dms')).toContainText('(default)');
  await page.screenshot({ path: 'test-results/map-copy-as.png' });

  await page.getByTestId('map-copy-dms').click();
  await expect(page.getByTestId('map-copy-note')).toContainText('copied');
  const dms = fromDms(await clipboard(page));
  expect(Math.abs(dms.lat - lat)).toBeLessThanOrEqual(px.lat + 1 / 36000);
  expect(Math.abs(dms.lon - lon)).toBeLessThanOrEqual(px.lon + 1 / 36000);

  await page.getByTestId('map-copy-mgrs').click();
  const [mlon, mlat] = mgrs.toPoint((await clipboard(page)).replace(/ /g, ''));
  expect(Math.abs(mlat! - lat)).toBeLessThanOrEqual(px.lat + 1e-4);
  expect(Math.abs(mlon! - lon)).toBeLessThanOrEqual(px.lon + 1e-4);
  await menu.press('Escape');
  await expect(menu).toBeHidden();
  await rpcCall(page, 'settings.save', { coordinateFormat: 'dd' });
});
