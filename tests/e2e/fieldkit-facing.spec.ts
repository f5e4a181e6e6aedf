import { expect, test } from './fixtures';
import { rpcCall } from './rpc';

test('imagery facing: for a selected result, the Field kit lists the cached imagery looking at it as the service computes it', async ({ page, host }) => {
  await page.goto(host.launchUrl);
  await expect(page.getByTestId('map')).toHaveAttribute('data-basemap', 'drawn', { timeout: 30_000 });
  // Cache the sample imagery of Paris, then ask for Paris itself and select it.
  await rpcCall(page, 'imagery.search', { request: { query: 'Paris' } });
  await page.getByTestId('tab-ask').click();
  await page.getByTestId('ask-query').fill('cities within 1 km of Paris');
  await page.getByTestId('ask-run').click();
  await expect(page.getByTestId('result-row').first()).toBeVisible({ timeout: 30_000 });
  await page.getByTestId('result-row').first().locator('button.pick').click();

  await page.getByTestId('open-field-kit').click();
  await page.getByTestId('facing-radius').fill('10000');
  await page.getByTestId('facing-find').click();
  const section = page.getByTestId('facing-imagery');
  await expect(section.locator('ol, p.muted').last()).toBeVisible();
  await section.scrollIntoViewIfNeeded();
  await page.screenshot({ path: 'test-results/fieldkit-facing.png' });
  // The list is what the service answers for the selected feature's position.
  const again = await rpcCall<{ response: { results: { features: { geometry: { coordinates: [number, number] } }[] } } }>(page, 'compute.run', {
    request: { query: 'cities within 1 km of Paris' },
  });
  const [lon, lat] = again.response.results.features[0]!.geometry.coordinates;
  const want = await rpcCall<{ captures: { distanceMetres: number }[] }>(page, 'imagery.facing', { lon, lat, radiusMetres: 10000 });
  expect(want.captures.length).toBeGreaterThan(0);
  const rows = section.locator('[data-testid="facing-list"] li');
  await expect(rows).toHaveCount(want.captures.length);
  await expect(rows.first()).toContainText(`${Math.round(want.captures[0]!.distanceMetres)} m`);
});
