import { readFileSync, writeFileSync } from 'node:fs';
import { unzipSync, zipSync } from 'fflate';
import { expect, test } from './fixtures';

test('evidence: a bundle made from an answer checks as intact in Settings, and a copy with one byte changed does not', async ({ page, host }) => {
  await page.goto(host.launchUrl);
  await expect(page.getByTestId('map')).toHaveAttribute('data-basemap', 'drawn', { timeout: 30_000 });
  await page.getByTestId('tab-ask').click();
  await page.getByTestId('ask-query').fill('airports within 40 km of Lyon');
  await page.getByTestId('ask-run').click();
  await expect(page.getByTestId('ask-count')).toBeVisible({ timeout: 30_000 });

  await page.getByTestId('open-field-kit').click();
  await page.getByTestId('evidence-create').click();
  await expect(page.getByTestId('evidence-made')).toContainText('response.raw');
  await page.screenshot({ path: 'test-results/fieldkit-evidence-made.png' });
  const path = (await page.getByTestId('evidence-path').textContent())!.trim();

  await page.getByTestId('open-settings').click();
  await expect(page.getByTestId('evidence-own-key')).toHaveText(/^[0-9a-f]{4}(:[0-9a-f]{4}){7}$/);
  await page.getByTestId('evidence-path-input').fill(path);
  await page.getByTestId('evidence-verify').click();
  await expect(page.getByTestId('evidence-report')).toContainText('Intact');
  await expect(page.getByTestId('evidence-report')).toContainText('Everything matches');

  const entries = unzipSync(readFileSync(path));
  const raw = Uint8Array.from(entries['response.raw']!);
  raw[10] = raw[10]! ^ 0x01;
  const altered = path.replace(/\.zip$/, '-altered.zip');
  writeFileSync(altered, zipSync({ ...entries, 'response.raw': raw }));
  await page.getByTestId('evidence-path-input').fill(altered);
  await page.getByTestId('evidence-verify').click();
  const report = page.getByTestId('evidence-report');
  await expect(report).toContainText('Not as made');
  await expect(report).toContainText('ALTERED: response.raw differs from the bytes that were signed.');
  await report.scrollIntoViewIfNeeded();
  await page.screenshot({ path: 'test-results/fieldkit-evidence-check.png' });
});
