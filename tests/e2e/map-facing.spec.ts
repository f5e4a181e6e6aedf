import { expect, test } from './fixtures';
import { screenPixels } from './map-helpers';
import { hex } from './map-pixels';
import { rpcCall } from './rpc';
import { openApp, shot } from './workspace-helpers';

// FACING_COLOUR of renderer/src/map/FacingLayer.ts (the e2e project cannot import renderer files).
const ARROW = hex('#7b3fb5');

test('imagery facing a selected result is drawn on the map as arrows from each capture to it, until the selection changes', async ({ page, host }) => {
  await openApp(page, host.launchUrl);
  await rpcCall(page, 'imagery.search', { request: { query: 'Paris' } });
  await page.getByTestId('tab-ask').click();
  await page.getByTestId('ask-query').fill('cities within 1 km of Paris');
  await page.getByTestId('ask-run').click();
  await expect(page.getByTestId('result-row').first()).toBeVisible({ timeout: 30_000 });
  await page.getByTestId('result-row').first().locator('button.pick').click();

  const map = page.getByTestId('map');
  await page.getByTestId('open-field-kit').click();
  await page.getByTestId('facing-radius').fill('10000');
  await page.getByTestId('facing-find').click();
  const rows = page.getByTestId('facing-imagery').locator('[data-testid="facing-list"] li');
  await expect(rows.first()).toBeVisible();
  const n = await rows.count();
  // One arrow per capture listed; they stay when the Field kit (which covers the map) is closed.
  await expect(map).toHaveAttribute('data-facing-arrows', String(n));
  await page.getByTestId('open-field-kit').click();
  await expect(page.getByTestId('facing-legend-text')).toHaveText(`${n} ${n === 1 ? 'capture faces' : 'captures face'} Paris`);
  await page.waitForTimeout(400);
  await expect(map).toHaveAttribute('data-settled', 'yes');
  await shot(page, 'map-facing');
  expect((await screenPixels(page, ARROW, 10)).count).toBeGreaterThan(60 * n);

  // Another selection takes the arrows away (they belong to the feature they point at).
  await page.getByTestId('result-row').first().locator('button.pick').click();
  await page.getByTestId('result-row').first().locator('button.pick').click();
  await expect(map).toHaveAttribute('data-facing-arrows', '0');
  await expect(page.getByTestId('facing-legend')).toHaveCount(0);
});
