import { expect, test } from './fixtures';

test('history by place and time: a drawn area typed in field notation and a date range find the entry; an area elsewhere does not', async ({ page, host }) => {
  await page.goto(host.launchUrl);
  await expect(page.getByTestId('map')).toHaveAttribute('data-basemap', 'drawn', { timeout: 30_000 });
  await page.getByTestId('tab-ask').click();
  await page.getByTestId('ask-query').fill('airports within 40 km of Lyon');
  await page.getByTestId('ask-run').click();
  await expect(page.getByTestId('ask-count')).toBeVisible({ timeout: 30_000 });

  await page.getByTestId('open-field-kit').click();
  const today = new Date();
  const day = `${today.getFullYear()}-${String(today.getMonth() + 1).padStart(2, '0')}-${String(today.getDate()).padStart(2, '0')}`;
  await page.getByTestId('pt-text').fill('airports');
  // A triangle around Lyon, corners in three notations.
  await page.getByTestId('pt-area').fill(`45°30'N 4°30'E\n45.5, 5.5\n31T 663000 5115000`);
  await page.getByTestId('pt-from').fill(day);
  await page.getByTestId('pt-to').fill(day);
  await page.getByTestId('pt-search').click();
  // Other specs on this host may have asked about Lyon today too; this entry must be among them.
  await expect(page.getByTestId('pt-results')).toContainText('airports within 40 km of Lyon');
  await page.getByTestId('place-time').scrollIntoViewIfNeeded();
  await page.screenshot({ path: 'test-results/fieldkit-history-place.png' });

  await page.getByTestId('pt-area').fill(`10 10\n10 11\n11 11`);
  await page.getByTestId('pt-search').click();
  await expect(page.getByTestId('pt-none')).toBeVisible();
  await page.getByTestId('pt-area').fill(`45 4\nnot a place`);
  await expect(page.getByTestId('pt-area-error')).toContainText('Line 2');
});
