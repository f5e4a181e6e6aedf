import type { Locator } from '@playwright/test';
import { expect, test } from './fixtures';

/** Pastes text into a box as the clipboard would (a paste event carrying text/plain). */
async function paste(box: Locator, text: string): Promise<void> {
  await box.focus();
  await box.evaluate((el, t) => {
    const data = new DataTransfer();
    data.setData('text/plain', t);
    el.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
  }, text);
}
const dms = (d: number, m: number, s: number) => d + m / 60 + s / 3600;

test('coordinates: converted in the field kit, pasted into a question, copied from details in the default notation', async ({ page, host }) => {
  await page.goto(host.launchUrl);
  await expect(page.getByTestId('map')).toHaveAttribute('data-basemap', 'drawn', { timeout: 30_000 });

  await page.getByTestId('open-field-kit').click();
  await page.getByTestId('coord-input').fill('45 45 32 N 4 50 31 E');
  await expect(page.getByTestId('coord-dd')).toHaveText(`${dms(45, 45, 32).toFixed(6)}, ${dms(4, 50, 31).toFixed(6)}`);
  await expect(page.getByTestId('coord-dms')).toHaveText(`45°45'32.0"N 4°50'31.0"E`);
  await expect(page.getByTestId('coord-mgrs')).toHaveText(/^31T FL \d{5} \d{5}$/);
  await page.getByTestId('coord-default-format').selectOption('mgrs');
  await page.screenshot({ path: 'test-results/fieldkit-coords.png' });
  await page.getByTestId('coord-input').fill('45 61 00 N 4 E');
  await expect(page.getByTestId('coord-error')).toContainText('is not a coordinate');
  await page.getByTestId('field-kit-close').click();

  // A DMS pair pasted into the question box arrives as decimal degrees, and the box says so.
  await page.getByTestId('tab-ask').click();
  const query = page.getByTestId('ask-query');
  await query.fill('airports within 30 km of ');
  await query.press('End');
  await paste(query, `45°45'32"N 4°50'31"E`);
  await expect(query).toHaveValue(`airports within 30 km of ${dms(45, 45, 32).toFixed(6)}, ${dms(4, 50, 31).toFixed(6)}`);
  await expect(page.getByTestId('paste-note')).toContainText('Degrees, minutes, seconds');

  await query.fill('airports within 30 km of Lyon');
  await page.getByTestId('ask-run').click();
  await expect(page.getByTestId('ask-count')).toBeVisible({ timeout: 30_000 });
  await expect(page.getByTestId('result-row').first()).toBeVisible();
  await page.getByTestId('result-row').first().locator('button.pick').click();
  await expect(page.getByTestId('copy-as-position')).toHaveText(/^31T [A-Z]{2} \d{5} \d{5}$/);
  await page.screenshot({ path: 'test-results/fieldkit-copy-as.png' });
});
