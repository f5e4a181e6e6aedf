import { expect, test } from './fixtures';
import { ask, openApp, shot } from './workspace-helpers';

test('a row is picked by a click on any of its cells; Enter keeps it picked', async ({ page, host }) => {
  await openApp(page, host.launchUrl);
  await ask(page, 'airports within 100 km of Geneva');
  const rows = page.getByTestId('result-row');
  expect(await rows.count()).toBeGreaterThan(2);
  const second = rows.nth(1);
  const id = (await second.getAttribute('data-id'))!;
  await second.getByTestId('result-distance').click();
  await expect(second).toHaveAttribute('aria-selected', 'true');
  await expect(page.getByTestId('map')).toHaveAttribute('data-selected', id);
  await page.keyboard.press('Enter');
  await expect(second).toHaveAttribute('aria-selected', 'true');

  // The score cell of another row moves the pick there.
  const third = rows.nth(2);
  await third.locator('[role=gridcell]').nth(3).click();
  await expect(third).toHaveAttribute('aria-selected', 'true');
  await expect(second).toHaveAttribute('aria-selected', 'false');
  await expect(page.getByTestId('map')).toHaveAttribute('data-selected', (await third.getAttribute('data-id'))!);
  await shot(page, 'small-row-click-score');

  // Every column's cell picks its row: each click moves the pick between the two rows.
  const columns = await second.locator('[role=gridcell]').count();
  expect(columns).toBeGreaterThanOrEqual(5);
  for (let c = 0; c < columns; c++) {
    const [row, other] = c % 2 === 0 ? [second, third] : [third, second];
    await row.locator('[role=gridcell]').nth(c).click();
    await expect(row, `column ${c}`).toHaveAttribute('aria-selected', 'true');
    await expect(other, `column ${c}`).toHaveAttribute('aria-selected', 'false');
    await expect(page.getByTestId('map')).toHaveAttribute('data-selected', (await row.getAttribute('data-id'))!);
  }
  await shot(page, 'small-row-click-every-cell');
});

test('Ctrl+K with a History entry open goes to the search box, and the typed words land there', async ({ page, host }) => {
  await openApp(page, host.launchUrl);
  await ask(page, 'airports within 40 km of Lyon');
  await page.getByTestId('tab-history').click();
  await page.getByTestId('history-open').first().click();
  await expect(page.getByTestId('history-list')).toHaveCount(0);
  await page.keyboard.press('Control+k');
  await expect(page.getByTestId('history-text')).toBeFocused();
  await page.keyboard.type('Lyon');
  await expect(page.getByTestId('history-text')).toHaveValue('Lyon');
});

test('a warning reads as a sentence; its code is one click away', async ({ page, host }) => {
  await openApp(page, host.launchUrl);
  await ask(page, 'airports within 10 km of Paris');
  const w = page.getByTestId('results-panel').getByTestId('warning').filter({ hasText: /"Paris" matched/ });
  await expect(w.getByTestId('warning-text')).toHaveText(/^"Paris" matched \d+ places/);
  await expect(w.getByTestId('warning-code')).toBeHidden();
  await w.getByText('Code').click();
  await expect(w.getByTestId('warning-code')).toHaveText('ambiguous_place');
  await expect(page.getByTestId('usage-meters')).toHaveText(/^Usage [\d.]+$/);
  await shot(page, 'small-warning-code');
});

test('the column chooser adds population to the table, in the row of its own feature, and sorts by it', async ({ page, host }) => {
  await openApp(page, host.launchUrl);
  await ask(page, 'cities in Japan');
  await page.getByTestId('columns-choose').click();
  await page.getByTestId('column-population').check();
  await page.getByTestId('columns-choose').click();
  const first = page.getByTestId('result-row').first();
  await first.click();
  const pop = Number(await page.getByTestId('feature-details').locator('tr', { hasText: 'population' }).locator('td').first().textContent());
  expect(pop).toBeGreaterThan(0);
  await expect(first.getByTestId('result-extra')).toHaveText(pop.toLocaleString('en-US'));
  await page.getByTestId('sort-x-population').click();
  const shown = (await page.getByTestId('result-extra').allTextContents()).map((t) => Number(t.replace(/,/g, '')));
  expect(shown).toEqual([...shown].sort((a, b) => a - b));
  await shot(page, 'small-column-population');
});
