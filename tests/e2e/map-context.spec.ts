import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import type { Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { pageMapping, showPoints, storeCall } from './map-helpers';
import { hex, screenCountIn, type Rgb } from './map-pixels';
import { ask, openApp, shot } from './workspace-helpers';

/** The catalog's cities and countries, read here from the files the app ships. */
const catalog = (() => {
  const read = (f: string) => JSON.parse(gunzipSync(readFileSync(`resources/catalog/${f}`)).toString('utf8')) as Record<string, unknown>;
  const c = read('cities.json.gz') as { name: string[]; pop: number[] };
  const cityPop = new Map<string, number>();
  c.name.forEach((n, i) => cityPop.set(n, Math.max(cityPop.get(n) ?? 0, c.pop[i] ?? 0)));
  const countries = new Set((read('countries.json.gz') as { rows: { name: string }[] }).rows.map((r) => r.name));
  return { cityPop, countries };
})();

/** Colours written out here: the basemap's city names and the answer's reference, per theme (PlaceLabels.ts, ReferenceLayer.ts). */
const CITY_TEXT = { light: hex('#2b2f3a'), dark: hex('#dde3ea') };
const REFERENCE = { light: hex('#1c5fd4'), dark: hex('#6aa8ff') };
const LYON = [4.84671, 45.74846] as [number, number];
/** Degrees of latitude a distance north spans (a sphere of 6,371 km). */
const northKm = (km: number) => (km / 6371) * (180 / Math.PI);

const settled = (page: Page) => expect(page.getByTestId('map')).toHaveAttribute('data-settled', 'yes', { timeout: 15_000 });
const labelled = async (page: Page) => (await storeCall(page, 'map', 'labelledNames')) as string[];

async function countAround(page: Page, at: { x: number; y: number }, colour: Rgb, half = 6): Promise<number> {
  return screenCountIn(page, { x: at.x - half, y: at.y - half, width: 2 * half, height: 2 * half }, colour, 24);
}

/** Of the points `km` north, south, east and west of Lyon, how many show the colour. */
async function sidesShowing(page: Page, toPage: (p: [number, number]) => { x: number; y: number }, km: number, colour: Rgb): Promise<number> {
  const dLat = northKm(km);
  const dLon = dLat / Math.cos((LYON[1] * Math.PI) / 180);
  let n = 0;
  for (const p of [[0, dLat], [0, -dLat], [dLon, 0], [-dLon, 0]] as const) if ((await countAround(page, toPage([LYON[0] + p[0], LYON[1] + p[1]]), colour)) > 2) n++;
  return n;
}

test('the offline basemap names countries from afar and cities thinned by population as the map zooms in, in both themes', async ({ page, host }) => {
  await openApp(page, host.launchUrl);
  await settled(page);
  await expect.poll(async () => (await labelled(page)).filter((n) => catalog.countries.has(n)).length, { timeout: 15_000 }).toBeGreaterThan(5);
  const world = await labelled(page);
  const worldCities = world.filter((n) => catalog.cityPop.has(n) && !catalog.countries.has(n));
  // From afar only the great cities are named, as web maps do.
  for (const n of worldCities) expect(catalog.cityPop.get(n), n).toBeGreaterThanOrEqual(1_000_000);
  await shot(page, 'map-context-world-light');

  // Closer in, around Lyon: Lyon and smaller towns are named.
  await showPoints(page, 2, [2.5, 44.5, 12.5, 47]);
  await settled(page);
  await expect.poll(async () => (await labelled(page)).includes('Lyon'), { timeout: 15_000 }).toBe(true);
  const near = (await labelled(page)).filter((n) => catalog.cityPop.has(n) && !catalog.countries.has(n));
  expect(Math.min(...near.map((n) => catalog.cityPop.get(n)!))).toBeLessThan(150_000);
  for (const n of near) expect(catalog.cityPop.get(n), n).toBeGreaterThanOrEqual(15_000);
  const toPage = await pageMapping(page);
  const lyon = toPage(LYON);
  // The name is written above its dot.
  const label = { x: lyon.x - 30, y: lyon.y - 22, width: 60, height: 16 };
  expect(await screenCountIn(page, label, CITY_TEXT.light, 12)).toBeGreaterThan(15);
  await shot(page, 'map-context-lyon-light');
  await page.getByTestId('theme-toggle').click();
  await settled(page);
  await expect.poll(() => screenCountIn(page, label, CITY_TEXT.dark, 12), { timeout: 10_000 }).toBeGreaterThan(15);
  await shot(page, 'map-context-lyon-dark');
});

test("an answer's reference is drawn: the place marked, a radius as a circle, a ring, an area's outline", async ({ page, host }) => {
  await openApp(page, host.launchUrl);
  const map = page.getByTestId('map');

  await ask(page, 'airports within 100 km of Lyon');
  await expect(map).toHaveAttribute('data-references', 'Lyon||100|', { timeout: 15_000 });
  await settled(page);
  for (const theme of ['light', 'dark'] as const) {
    if (theme === 'dark') {
      await page.getByTestId('theme-toggle').click();
      await settled(page);
    }
    const c = REFERENCE[theme];
    // The mark on Lyon, the circle's line 100 km north (and south), none halfway. The mapping is
    // taken again on each try: a fit still moving the view when it was first taken would be stale.
    await expect.poll(async () => countAround(page, (await pageMapping(page))(LYON), c, 5), { timeout: 10_000 }).toBeGreaterThan(10);
    const toPage = await pageMapping(page);
    expect(await countAround(page, toPage([LYON[0], LYON[1] + northKm(100)]), c)).toBeGreaterThan(2);
    expect(await countAround(page, toPage([LYON[0], LYON[1] - northKm(100)]), c)).toBeGreaterThan(2);
    expect(await countAround(page, toPage([LYON[0], LYON[1] + northKm(50)]), c)).toBe(0);
    await shot(page, `map-context-within-${theme}`);
  }
  await page.getByTestId('theme-toggle').click();

  await ask(page, 'airports between 50 km and 150 km of Lyon');
  await expect(map).toHaveAttribute('data-references', 'Lyon|50|150|', { timeout: 15_000 });
  await settled(page);
  {
    const c = REFERENCE.light;
    // Result labels may cover the line in places: of the four points of each circle, at least two show it.
    await expect.poll(async () => sidesShowing(page, await pageMapping(page), 50, c), { timeout: 10_000 }).toBeGreaterThanOrEqual(2);
    const toPage = await pageMapping(page);
    expect(await sidesShowing(page, toPage, 150, c)).toBeGreaterThanOrEqual(2);
    expect(await sidesShowing(page, toPage, 100, c)).toBe(0);
    await shot(page, 'map-context-between-light');
  }

  await ask(page, 'cities within 30 km of 45.05, 5.15');
  await expect(map).toHaveAttribute('data-references', /\|\|30\|$/, { timeout: 15_000 });
  await settled(page);
  {
    await expect.poll(async () => countAround(page, (await pageMapping(page))([5.15, 45.05]), REFERENCE.light, 5), { timeout: 10_000 }).toBeGreaterThan(10);
    const toPage = await pageMapping(page);
    expect(await countAround(page, toPage([5.15, 45.05 - northKm(30)]), REFERENCE.light)).toBeGreaterThan(2);
    await shot(page, 'map-context-point-light');
  }

  await ask(page, 'cities in Portugal with population over 100000');
  await expect(map).toHaveAttribute('data-references', 'Portugal|||area', { timeout: 15_000 });
  await settled(page);
  {
    // The fit may still be moving the view: wait until the border near Guarda is inside the map.
    const box = (await map.boundingBox())!;
    const inside = (p: { x: number; y: number }) => p.x > box.x && p.x < box.x + box.width && p.y > box.y && p.y < box.y + box.height;
    await expect.poll(async () => inside((await pageMapping(page))([-6.9, 40.6])), { timeout: 10_000 }).toBe(true);
    const toPage = await pageMapping(page);
    // Portugal's outline runs along its border with Spain: east of Guarda (-7.27, 40.54) by a few km, at about -6.9.
    let found = 0;
    for (let lon = -7.1; lon <= -6.7; lon += 0.05) found += await countAround(page, toPage([lon, 40.6]), REFERENCE.light, 3);
    expect(found).toBeGreaterThan(0);
    await shot(page, 'map-context-area-light');
  }
});

test('at a zoom no extract or pack covers, the map says so once, with one click to load an extract or build a pack', async ({ page, host }) => {
  await openApp(page, host.launchUrl);
  const note = page.getByTestId('map-coverage');
  await expect(note).toHaveCount(0);
  // A few hundred metres across Lyon: street zoom.
  await showPoints(page, 2, [4.83, 45.76, 4.836, 45.761]);
  await settled(page);
  await expect(note).toBeVisible({ timeout: 10_000 });
  await shot(page, 'map-context-uncovered-light');
  const chooser = page.waitForEvent('filechooser');
  await page.getByTestId('coverage-extract').click();
  expect((await chooser).isMultiple()).toBe(false);
  await note.getByRole('button', { name: 'Dismiss' }).click();
  await expect(note).toHaveCount(0);
  // Out and back in: said once, not again.
  await showPoints(page, 2, [0, 40, 10, 50]);
  await settled(page);
  await showPoints(page, 2, [4.83, 45.76, 4.836, 45.761]);
  await settled(page);
  await page.waitForTimeout(500);
  await expect(note).toHaveCount(0);

  // In a new window the pack button opens the field kit with its area pack.
  await page.reload();
  await expect(page.getByTestId('map')).toHaveAttribute('data-basemap', 'drawn', { timeout: 30_000 });
  await showPoints(page, 2, [4.83, 45.76, 4.836, 45.761]);
  await settled(page);
  await page.getByTestId('coverage-pack').click();
  await expect(page.getByTestId('area-pack')).toBeVisible();
});
