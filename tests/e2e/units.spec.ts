import { expect, test } from './fixtures';
import { ask, openApp, shot } from './workspace-helpers';

const MI = 1609.344;

test('miles chosen in Settings: the table, the answer and the scale bar all speak miles', async ({ page, host }) => {
  await openApp(page, host.launchUrl);
  await page.getByTestId('open-settings').click();
  await page.getByTestId('units-mi').check();
  await page.getByTestId('units-ft').check();
  await page.getByTestId('open-settings').click();

  await ask(page, 'airports within 100 km of Geneva');
  // Each distance cell is the feature's own distance_meters in miles (computed here, not by the app).
  const row = page.getByTestId('result-row').nth(2);
  await row.click();
  const metres = Number(await page.getByTestId('feature-details').locator('tr', { hasText: 'distance_meters' }).locator('td').last().textContent());
  expect(metres).toBeGreaterThan(MI / 10);
  const miles = metres / MI;
  const expected = `${miles < 100 ? (Math.round(miles * 10) / 10).toString() : Math.round(miles).toString()} mi`;
  await expect(row.getByTestId('result-distance')).toHaveText(expected);
  for (const cell of await page.getByTestId('result-distance').allTextContents()) expect(cell).toMatch(/^[\d,.]+ (mi|ft)$/);

  const answer = page.getByTestId('ask-answer-text');
  await expect(answer).toContainText(' mi');
  await expect(answer).not.toContainText(/\d km\b/);
  // The notes under the answer ("read as: … within 100 km …") speak miles too.
  const notes = page.getByTestId('warning-text');
  await expect(notes.filter({ hasText: /^read as:/ })).toContainText(`within ${Math.round((100_000 / MI) * 10) / 10} mi of Genève`);
  for (const text of await notes.allTextContents()) expect(text).not.toMatch(/\d km\b/);
  await expect(page.locator('.ol-scale-line-inner')).toHaveText(/\d+ (mi|ft)$/);
  // The "Read as" chip keeps the figure asked and says it in miles too.
  const relation = page.locator('[data-testid="reading-chip"][data-part="relation"]');
  await expect(relation.getByTestId('reading-figure')).toHaveValue('100');
  await expect(relation.getByTestId('reading-units')).toHaveText(`(${Math.round((100_000 / MI) * 10) / 10} mi)`);
  await expect(relation).toHaveText(/^within\s*km \([\d.]+ mi\) of Genève/);
  await shot(page, 'units-miles');
  // What the chip asks again is the question in its own units, without the note.
  await relation.getByTestId('reading-figure').fill('120');
  await relation.getByTestId('reading-figure').press('Enter');
  await expect(page.getByTestId('ask-query')).toHaveValue('airports within 120 km of Genève, Switzerland');
  await expect(relation.getByTestId('reading-units')).toHaveText(`(${Math.round((120_000 / MI) * 10) / 10} mi)`);

  // Remembered after a reload.
  await page.reload();
  await expect(page.getByTestId('map')).toHaveAttribute('data-basemap', 'drawn', { timeout: 30_000 });
  await expect(page.locator('.ol-scale-line-inner')).toHaveText(/\d+ (mi|ft)$/);
});
