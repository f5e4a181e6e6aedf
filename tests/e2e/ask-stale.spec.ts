/**
 * A question that gets no answer (refused, or failed) must not leave the answer before it looking
 * current: that answer is greyed, its chips and map layer go, and a note says which question it
 * belongs to with a button back to it.
 */
import { expect, test } from './fixtures';
import { ask, openApp, shot } from './workspace-helpers';

test('a refused question greys the previous answer, says whose it is, and the way back restores it', async ({ page, host }) => {
  await openApp(page, host.launchUrl);
  await ask(page, 'airports within 100 km of Geneva');
  const map = page.getByTestId('map');
  const rows = await page.getByTestId('result-row').count();
  expect(rows).toBeGreaterThan(1);
  await expect(map).toHaveAttribute('data-features', String(rows));
  await expect(page.getByTestId('reading')).toBeVisible();
  await expect(page.getByTestId('ask-answer-body')).toHaveAttribute('data-stale', 'no');

  await page.getByTestId('ask-query').fill('airports with runways longer than 3,000 m in Switzerland');
  await page.getByTestId('ask-run').click();
  await expect(page.getByTestId('refusal')).toBeVisible({ timeout: 30_000 });
  const note = page.getByTestId('ask-stale');
  await expect(note).toContainText('Showing the answer to «airports within 100 km of Geneva»');
  await expect(note).toContainText('«airports with runways longer than 3,000 m in Switzerland», was refused');
  await expect(page.getByTestId('ask-stale-panel')).toContainText('belong to the earlier question «airports within 100 km of Geneva»');
  await expect(page.getByTestId('ask-answer-body')).toHaveAttribute('data-stale', 'yes');
  const opacity = await page.getByTestId('ask-answer-body').evaluate((e) => Number(getComputedStyle(e).opacity));
  expect(opacity).toBeLessThan(1);
  await expect(page.getByTestId('reading')).toHaveCount(0);
  await expect(map).toHaveAttribute('data-features', '0');
  await shot(page, 'ask-stale-refused');

  await page.getByTestId('ask-restore').click();
  await expect(page.getByTestId('ask-stale')).toHaveCount(0);
  await expect(page.getByTestId('refusal')).toHaveCount(0);
  await expect(page.getByTestId('ask-answer-body')).toHaveAttribute('data-stale', 'no');
  await expect(page.getByTestId('reading')).toBeVisible();
  await expect(map).toHaveAttribute('data-features', String(rows));
  await expect(page.getByTestId('result-row')).toHaveCount(rows);
  await shot(page, 'ask-stale-restored');
});

test('a failed question greys the previous answer the same way', async ({ page, host }) => {
  await openApp(page, host.launchUrl);
  await ask(page, 'airports within 100 km of Geneva');
  const rows = await page.getByTestId('result-row').count();
  // More than the interface allows, asked with Enter (the Run button's form check would hold it
  // back): the request fails its validation before it reaches the service.
  await page.getByTestId('ask-limit').fill('100000');
  await page.getByTestId('ask-query').fill('cafes in Geneva');
  await page.getByTestId('ask-query').press('Enter');
  await expect(page.getByTestId('error-note')).toBeVisible({ timeout: 30_000 });
  await expect(page.getByTestId('ask-stale')).toContainText('«cafes in Geneva», was not answered (it failed)');
  await expect(page.getByTestId('ask-answer-body')).toHaveAttribute('data-stale', 'yes');
  await expect(page.getByTestId('map')).toHaveAttribute('data-features', '0');
  await shot(page, 'ask-stale-failed');
  await page.getByTestId('ask-restore-panel').click();
  await expect(page.getByTestId('error-note')).toHaveCount(0);
  await expect(page.getByTestId('map')).toHaveAttribute('data-features', String(rows));
});
