import type { Locator } from '@playwright/test';
import { expect, test } from './fixtures';
import { ask, openApp, shot } from './workspace-helpers';

const box = async (l: Locator) => (await l.boundingBox())!;
const overlaps = (a: { x: number; y: number; width: number; height: number }, b: typeof a) =>
  a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

test('the image viewer and Details sit apart: caption above the Details header, the Close button free', async ({ page, host }) => {
  await openApp(page, host.launchUrl);
  await page.getByTestId('tab-imagery').click();
  await page.getByTestId('imagery-query').fill('sample');
  await page.getByTestId('imagery-run').click();
  await expect(page.getByTestId('result-row').first()).toBeVisible({ timeout: 30_000 });
  await page.getByTestId('result-row').first().getByRole('button', { name: /View image/ }).click();
  const viewer = page.getByTestId('image-viewer');
  await expect(viewer.getByTestId('media-image')).toHaveAttribute('src', /^data:image\//, { timeout: 15_000 });
  const details = page.getByTestId('feature-details');
  await expect(details).toBeVisible();

  const caption = await box(viewer.locator('figcaption'));
  const close = await box(viewer.getByTestId('image-viewer-close'));
  const detailsBox = await box(details);
  const detailsHead = await box(details.locator('header, h2').first());
  expect(overlaps(caption, detailsHead)).toBe(false);
  expect(overlaps(close, detailsBox)).toBe(false);
  expect(overlaps(await box(viewer), detailsBox)).toBe(false);
  expect(caption.y + caption.height).toBeLessThanOrEqual(detailsBox.y);
  // The button is the element hit at its own centre: nothing covers it.
  const hit = await page.evaluate(({ x, y }) => document.elementFromPoint(x, y)?.closest('[data-testid]')?.getAttribute('data-testid'), {
    x: close.x + close.width / 2,
    y: close.y + close.height / 2,
  });
  expect(hit).toBe('image-viewer-close');
  await shot(page, 'panels-viewer-details');
});

test('with Details open, the results table still shows rows', async ({ page, host }) => {
  await openApp(page, host.launchUrl);
  await ask(page, 'airports within 100 km of Geneva');
  await page.getByTestId('result-row').first().click();
  await expect(page.getByTestId('feature-details')).toBeVisible();
  const body = await box(page.getByTestId('result-table-body'));
  expect(body.height).toBeGreaterThanOrEqual(4 * 30);
  await shot(page, 'panels-table-with-details');
});
