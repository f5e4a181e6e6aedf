import { expect, test } from './fixtures';
import type { Page } from '@playwright/test';
import { openApp, shot } from './workspace-helpers';

/** The map view's extent, [west, south, east, north] in degrees. */
const mapExtent = (page: Page) =>
  page.evaluate(() => {
    const app = (document.getElementById('app') as unknown as { __vue_app__: { config: { globalProperties: { $pinia: { _s: Map<string, Record<string, unknown>> } } } } }).__vue_app__;
    return (app.config.globalProperties.$pinia._s.get('map')!['extent'] as () => number[])();
  }) as Promise<[number, number, number, number]>;

const SITES = [
  ['Lyon depot', 45.7485, 4.8467, 120],
  ['Annecy store', 45.8992, 6.1294, 340],
  ['Grenoble yard', 45.1885, 5.7245, 75],
  ['Chambery shop', 45.5646, 5.9178, 210],
] as const;

test('the figure asked about is a column of the table: the capacity of "my 2 largest sites by capacity"', async ({ page, host }) => {
  await openApp(page, host.launchUrl);
  const csv = ['name,lat,lon,capacity', ...SITES.map((s) => s.join(','))].join('\n');
  await page.getByTestId('tab-ask').click();
  await page.getByTestId('ask-files').setInputFiles({ name: 'sites.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
  await page.getByTestId('ask-query').fill('my 2 largest sites by capacity');
  await page.getByTestId('ask-run').click();
  await expect(page.getByTestId('ask-count')).toBeVisible({ timeout: 30_000 });
  const table = page.getByTestId('result-table');
  await expect(table.getByRole('columnheader', { name: 'capacity' })).toBeVisible();
  // The two largest capacities, read from the file here.
  const largest = [...SITES].sort((a, b) => b[3] - a[3]).slice(0, 2).map((s) => String(s[3]));
  for (const c of largest) await expect(table).toContainText(c);
  // The map labels each site with it too, and the legend says so.
  await page.getByTestId('map-layers').click();
  await expect(page.getByTestId('legend-figure')).toHaveText('Labels: name · capacity');
  await shot(page, 'asked-figure-capacity');
});

test('the count of "sites per country" is a column of the table and the figure of the map\'s labels', async ({ page, host }) => {
  await openApp(page, host.launchUrl);
  const csv = ['name,lat,lon,capacity', ...SITES.map((s) => s.join(','))].join('\n');
  await page.getByTestId('tab-ask').click();
  await page.getByTestId('ask-files').setInputFiles({ name: 'sites.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
  await page.getByTestId('ask-query').fill('sites per country');
  await page.getByTestId('ask-run').click();
  await expect(page.getByTestId('ask-count')).toBeVisible({ timeout: 30_000 });
  const table = page.getByTestId('result-table');
  await expect(table.getByRole('columnheader', { name: 'count', exact: true })).toBeVisible();
  // Every site of the file lies in France: one row, their number.
  await expect(table.getByRole('row').filter({ hasText: 'France' })).toContainText(String(SITES.length));
  await page.getByTestId('map-layers').click();
  await expect(page.getByTestId('legend-figure')).toHaveText('Labels: name · count');
  // The map frames the sites counted, not the whole of France (its west coast lies near 4.8° W).
  const lons = SITES.map((x) => x[2]);
  const lats = SITES.map((x) => x[1]);
  await expect
    .poll(async () => {
      const [west, south, east, north] = await mapExtent(page);
      return west > -1 && east < 11 && west <= Math.min(...lons) && east >= Math.max(...lons) && south <= Math.min(...lats) && north >= Math.max(...lats);
    }, { timeout: 15_000 })
    .toBe(true);
  await page.getByTestId('map-layers').click();
  await shot(page, 'asked-figure-count');
});

test('an answer of countries frames their main parts: France without French Guiana and Réunion', async ({ page, host }) => {
  await openApp(page, host.launchUrl);
  await page.getByTestId('tab-ask').click();
  await page.getByTestId('ask-query').fill('countries in Western Europe');
  await page.getByTestId('ask-run').click();
  await expect(page.getByTestId('ask-count')).toBeVisible({ timeout: 30_000 });
  await expect(page.getByTestId('result-table')).toContainText('France');
  await expect(page.getByTestId('map')).toHaveAttribute('data-settled', 'yes', { timeout: 15_000 });
  await page.waitForTimeout(400);
  await expect(page.getByTestId('map')).toHaveAttribute('data-settled', 'yes', { timeout: 15_000 });
  const [west, south, east] = await mapExtent(page);
  // French Guiana lies near 53° W, 4° N; Réunion near 55° E, 21° S: neither is framed, mainland Europe is.
  expect(west).toBeGreaterThan(-40);
  expect(south).toBeGreaterThan(20);
  expect(east).toBeLessThan(50);
  expect(west).toBeLessThan(-4.5);
  expect(east).toBeGreaterThan(16);
  await shot(page, 'asked-figure-framing');
});
