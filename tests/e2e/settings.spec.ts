import { copyFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from './fixtures';

test('a photo folder added in Settings is indexed, its unreadable files listed, and it can be removed', async ({
  page,
  host,
}) => {
  const folder = mkdtempSync(join(tmpdir(), 'fl-e2e-photos-'));
  copyFileSync('resources/sample-photos/berlin-mitte.jpg', join(folder, 'berlin-copy.jpg'));
  writeFileSync(join(folder, 'broken.jpg'), 'not a jpeg');

  await page.goto(host.launchUrl);
  await page.getByRole('button', { name: 'Settings' }).click();
  const summary = page.getByTestId('photo-summary');
  await expect(summary).toHaveText(/^\d+ photos indexed/);
  const before = Number((await summary.textContent())?.match(/^(\d+)/)?.[1]);

  await page.getByTestId('photo-folder-input').fill('relative/path');
  await page.getByTestId('photo-folder-add').click();
  await expect(page.getByTestId('photo-folders').getByRole('alert')).toContainText('VALIDATION');

  await page.getByTestId('photo-folder-input').fill(folder);
  await page.getByTestId('photo-folder-add').click();
  await expect(summary).toHaveText(`${before + 1} photos indexed · 1 skipped`);
  await page.getByText('Skipped files').click();
  await expect(page.getByTestId('photo-folders')).toContainText('broken.jpg');
  // The folder's detectors switch: on when added, off when unticked, and still off after a reload.
  const detect = page.getByTestId('photo-folder-detect');
  await expect(detect).toBeChecked();
  await detect.uncheck();
  await expect(detect).not.toBeChecked();
  await expect(detect).toBeEnabled();
  await page.screenshot({ path: 'test-results/settings-photo-folders.png' });
  await page.reload();
  await page.getByRole('button', { name: 'Settings' }).click();
  await expect(page.getByTestId('photo-folder-detect')).not.toBeChecked();

  await page.getByTestId('photo-folders').getByRole('button', { name: 'Remove' }).click();
  await expect(summary).toHaveText(`${before} photos indexed`);
});
