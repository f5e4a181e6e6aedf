import { readFileSync } from 'node:fs';
import { expect, test } from './fixtures';
import { ask, openApp, shot } from './workspace-helpers';

test('in the browser host an area pack comes to the browser as a download, and can be fetched again', async ({ page, host }) => {
  await openApp(page, host.launchUrl);
  await ask(page, 'airports within 40 km of Lyon');
  await page.getByTestId('open-field-kit').click();
  await page.getByTestId('area-pack').scrollIntoViewIfNeeded();
  await page.getByTestId('pack-drawn').check();
  await page.getByTestId('pack-area').fill('45.2, 4.3\n45.2, 5.5\n46.2, 5.5\n46.2, 4.3');
  await page.getByTestId('pack-estimate').click();
  await expect(page.getByTestId('pack-est-queries')).toContainText(/^[1-9]\d* \(/);
  const download = page.waitForEvent('download');
  await page.getByTestId('pack-create').click();
  const file = await download;
  expect(file.suggestedFilename()).toMatch(/^area-\d{4}-\d{2}-\d{2}\.gpkg$/);
  const bytes = readFileSync((await file.path())!);
  expect(bytes.subarray(0, 16).toString('latin1')).toBe('SQLite format 3\u0000');
  await expect(page.getByTestId('pack-download')).toBeVisible();
  const again = page.waitForEvent('download');
  await page.getByTestId('pack-download').click();
  expect(readFileSync((await (await again).path())!).length).toBe(bytes.length);
  await page.getByTestId('area-pack').scrollIntoViewIfNeeded();
  await shot(page, 'pack-download');
});
