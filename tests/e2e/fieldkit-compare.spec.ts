import { expect, test } from './fixtures';
import { rpcCall } from './rpc';

test('re-run diff: two runs of one question compared in a table, on the map, and exported as a layer', async ({ page, host }) => {
  await page.goto(host.launchUrl);
  await expect(page.getByTestId('map')).toHaveAttribute('data-basemap', 'drawn', { timeout: 30_000 });
  // The same question asked with a smaller and a larger limit: the second run adds results.
  const q = 'airports within 60 km of Grenoble';
  const a = await rpcCall<{ queryId: number }>(page, 'compute.run', { request: { query: q, limit: 1 } });
  const b = await rpcCall<{ queryId: number; response: { results: { numberReturned: number } } }>(page, 'compute.run', { request: { query: q, limit: 20 } });
  const added = b.response.results.numberReturned - 1;
  expect(added).toBeGreaterThan(0);

  await page.getByTestId('open-field-kit').click();
  await page.getByTestId('cmp-old').fill(String(a.queryId));
  await page.getByTestId('cmp-new').fill(String(b.queryId));
  await page.getByTestId('cmp-run').click();
  await expect(page.getByTestId('cmp-summary')).toContainText(`${added} added · 0 removed · 0 moved · 0 changed · 1 unchanged`);
  await expect(page.getByTestId('cmp-row')).toHaveCount(added);
  await page.getByTestId('cmp-export-geojson').click();
  await expect(page.getByTestId('cmp-exported')).toContainText('.geojson');
  await page.getByTestId('run-compare').scrollIntoViewIfNeeded();
  await page.screenshot({ path: 'test-results/fieldkit-compare.png' });

  await page.getByTestId('cmp-new').fill(String(b.queryId + 1000));
  await page.getByTestId('cmp-run').click();
  await expect(page.getByTestId('run-compare').getByTestId('error-note')).toHaveAttribute('data-code', 'NOT_FOUND');
});
