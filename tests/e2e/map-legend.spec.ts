import { expect, test } from './fixtures';
import { screenPixels, storeState } from './map-helpers';
import { hex } from './map-pixels';
import { ask, openApp, shot } from './workspace-helpers';

// RANK_COLOURS[0] and CATEGORY_COLOURS[1] of shared/map/symbology.ts (the e2e project cannot import it).
const BEST_RANKS = hex('#8c2d04');
const SECOND_VALUE = hex('#1f77b4');

test('results coloured by rank or by a column, each class of the legend turned off and on from the layer switcher', async ({ page, host }) => {
  const csp = await openApp(page, host.launchUrl);
  await ask(page, 'airports within 150 km of Lyon');
  const count = (await storeState<unknown[]>(page, 'ask', 'rows')).length;
  expect(count).toBeGreaterThanOrEqual(4);
  const map = page.getByTestId('map');

  await page.getByTestId('map-layers').click();
  const legend = page.getByTestId('results-legend');
  await legend.getByTestId('colour-by').selectOption('rank');
  const classes = legend.locator('li');
  await expect(classes).toHaveCount(4);
  // Every result is in exactly one class: the counts add up to the table's rows.
  const counts = (await classes.locator('.muted').allTextContents()).map((t) => Number(t.replace(/,/g, '')));
  expect(counts.reduce((a, b) => a + b, 0)).toBe(count);
  await expect(classes.first()).toContainText('#1');
  await shot(page, 'map-legend-rank');
  await page.getByTestId('map-layers').click();
  await expect(map).toHaveAttribute('data-settled', 'yes');
  const best = await screenPixels(page, BEST_RANKS, 10);
  expect(best.count).toBeGreaterThan(20);

  // The best-ranked quarter turned off in the legend: its colour leaves the map, the rest stay.
  await page.getByTestId('map-layers').click();
  await classes.first().locator('input').uncheck();
  await page.getByTestId('map-layers').click();
  await expect(map).toHaveAttribute('data-settled', 'yes');
  expect((await screenPixels(page, BEST_RANKS, 10)).count).toBeLessThan(best.count / 10);
  await shot(page, 'map-legend-rank-off');

  // By a column: names are distinct, so the second name has the palette's second colour.
  await page.getByTestId('map-layers').click();
  await legend.getByTestId('colour-by').selectOption('column:name');
  await expect(classes.first().locator('input')).toBeChecked();
  await expect(legend.locator('li').nth(1)).toBeVisible();
  await shot(page, 'map-legend-column');
  await page.getByTestId('map-layers').click();
  await expect(map).toHaveAttribute('data-settled', 'yes');
  expect((await screenPixels(page, SECOND_VALUE, 10)).count).toBeGreaterThan(20);
  expect(csp).toEqual([]);
});
