import { expect, test } from './fixtures';

test('an upload with three bad rows answers with its good rows and lists the bad ones', async ({ page, host }) => {
  await page.goto(host.launchUrl);
  await expect(page.getByTestId('map')).toHaveAttribute('data-basemap', 'drawn', { timeout: 30_000 });
  const csv = ['name,lat,lon,kind', 'Lyon depot,45.7485,4.8467,depot', 'Bad one,north,4.8,depot', 'Paris shop,48.8566,2.3522,shop', 'Far off,45.7,400,depot', 'Short row,45.7', 'Geneva office,46.2044,6.1432,office'].join('\n');
  await page.getByTestId('ask-files').setInputFiles({ name: 'my-sites.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
  await page.getByTestId('tab-ask').click();
  await page.getByTestId('ask-query').fill('my sites');
  await page.getByTestId('ask-run').click();
  await expect(page.getByTestId('ask-count')).toBeVisible({ timeout: 30_000 });
  await expect(page.getByTestId('result-name')).toHaveText(['Lyon depot', 'Paris shop', 'Geneva office']);
  const warnings = page.getByTestId('warnings');
  await expect(warnings).toContainText('3 row(s) could not be read and were left out');
  await expect(warnings).toContainText('my-sites.csv line 3: latitude "north" is not a number');
  // A stray longitude of 400 is a typo, not a projected CRS.
  await expect(warnings).not.toContainText('Web Mercator');
  await page.screenshot({ path: 'test-results/upload-bad-rows.png' });
});

test('a CSV larger than one call (13 MiB) is sent in chunks and answered with every row', async ({ page, host }) => {
  test.setTimeout(180_000);
  await page.goto(host.launchUrl);
  await expect(page.getByTestId('map')).toHaveAttribute('data-basemap', 'drawn', { timeout: 30_000 });
  const notes = 'n'.repeat(900);
  const rows = ['name,lat,lon,notes'];
  for (let i = 0, size = 0; size < 13 * 1024 * 1024; i++) {
    const row = `site ${i},${(40 + (i % 1000) / 100).toFixed(4)},${(2 + Math.floor(i / 1000) / 100).toFixed(4)},${notes}`;
    rows.push(row);
    size += row.length + 1;
  }
  const csv = rows.join('\n') + '\n';
  const expected = rows.length - 1;
  await page.getByTestId('ask-files').setInputFiles({ name: 'big-sites.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
  await page.getByTestId('tab-ask').click();
  await page.getByTestId('ask-query').fill('my sites');
  await page.getByTestId('ask-run').click();
  await expect(page.getByTestId('ask-count')).toBeVisible({ timeout: 120_000 });
  const shown = (await page.getByTestId('ask-count').textContent()) ?? '';
  // "N of M matches shown": M counts every row of the file.
  expect(Number(/of ([\d,\s]+) matches/.exec(shown)?.[1]?.replace(/\D/g, ''))).toBe(expected);
  await page.screenshot({ path: 'test-results/upload-large-csv.png' });
});
