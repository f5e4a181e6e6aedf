import { expect, test } from './fixtures';
import { readoutAt, screenPixels } from './map-helpers';
import { hex } from './map-pixels';
import { ask, openApp, shot } from './workspace-helpers';

// OVERLAY_COLOURS.uploads and LAYER_COLOURS.ask of renderer/src/map/layerColours.ts (the e2e project cannot import renderer files).
const UPLOADS = hex('#8c564b');
const RESULT = hex('#e8710a');

const SITES: Array<[string, number, number]> = [
  ['Lyon depot', 45.7485, 4.8467],
  ['Annecy store', 45.8992, 6.1294],
  ['Grenoble yard', 45.1885, 5.7245],
];

test('an uploaded file is its own map layer, in the layer switcher, before and after the question runs', async ({ page, host }) => {
  const csp = await openApp(page, host.launchUrl);
  const csv = ['name,lat,lon', ...SITES.map((s) => s.join(',')), 'Broken,north,4.8'].join('\n');
  await page.getByTestId('ask-files').setInputFiles({ name: 'sites.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
  const map = page.getByTestId('map');
  // The bad row is not drawn: three points, as the preview counts.
  await expect(map).toHaveAttribute('data-upload-features', '3', { timeout: 30_000 });

  await page.getByTestId('map-layers').click();
  const listed = page.getByTestId('layer-uploads').locator('li[data-name="sites.csv"]');
  await expect(listed).toContainText('3 points');
  await listed.getByRole('button', { name: 'sites.csv' }).click();
  // The zoom animates for 250 ms; pictures are taken once it has settled.
  await page.waitForTimeout(400);
  await shot(page, 'map-uploads-switcher');
  await page.getByTestId('map-layers').click();
  await shot(page, 'map-uploads-before');
  const before = await screenPixels(page, UPLOADS);
  expect(before.count).toBeGreaterThan(30);
  // The drawing sits where the file says: the middle of the three dots reads as their mean position.
  const [lat, lon] = await readoutAt(page, before.centroid!.x, before.centroid!.y);
  const mean = (k: 1 | 2) => SITES.reduce((s, r) => s + r[k], 0) / SITES.length;
  expect(Math.abs(lat - mean(1))).toBeLessThan(0.08);
  expect(Math.abs(lon - mean(2))).toBeLessThan(0.08);

  await page.getByTestId('map-layers').click();
  await page.getByTestId('overlay-uploads').uncheck();
  await page.getByTestId('map-layers').click();
  await expect(map).toHaveAttribute('data-settled', 'yes');
  expect((await screenPixels(page, UPLOADS)).count).toBeLessThan(before.count / 20);
  await page.getByTestId('map-layers').click();
  await page.getByTestId('overlay-uploads').check();
  await page.getByTestId('map-layers').click();

  await ask(page, 'which of my sites are within 50 km of an airport');
  await page.getByTestId('map-layers').click();
  await listed.getByRole('button', { name: 'sites.csv' }).click();
  // The zoom animates for 250 ms; pictures are taken once it has settled.
  await page.waitForTimeout(400);
  await page.getByTestId('map-layers').click();
  await expect(map).toHaveAttribute('data-upload-features', '3');
  await shot(page, 'map-uploads-after');
  // The results, drawn from the file's rows, lie over them; with results hidden the file shows whole.
  expect((await screenPixels(page, RESULT)).count).toBeGreaterThan(30);
  await page.getByTestId('map-layers').click();
  await page.getByTestId('overlay-results').uncheck();
  await page.getByTestId('map-layers').click();
  await expect(map).toHaveAttribute('data-settled', 'yes');
  expect((await screenPixels(page, UPLOADS)).count).toBeGreaterThan(before.count / 2);
  expect((await screenPixels(page, RESULT)).count).toBeLessThan(10);

  await page.getByTestId('file-preview').getByRole('button', { name: 'Remove sites.csv' }).click();
  await expect(map).toHaveAttribute('data-upload-features', '0');
  await page.getByTestId('map-layers').click();
  await expect(page.getByTestId('layer-switcher')).toBeVisible();
  await expect(page.getByTestId('layer-uploads')).toHaveCount(0);
  expect(csp).toEqual([]);
});
