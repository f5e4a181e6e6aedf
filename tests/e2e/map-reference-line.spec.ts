/**
 * A line an answer was measured from ("along the Lenne") is drawn on the map like a place or an
 * area is: the river itself, named along it, under the results.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeTownFiles, type TownFiles } from '../support/town/files';
import { expect, test } from './fixtures';
import { openApp, shot } from './workspace-helpers';

let dir: string;
let town: TownFiles;
test.beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'fl-e2e-refline-'));
  town = writeTownFiles(dir);
});
test.afterAll(() => rmSync(dir, { recursive: true, force: true }));

test('"pharmacies within 300 m of the Lenne" draws the Lenne as the answer\'s reference', async ({ page, host }) => {
  await openApp(page, host.launchUrl);
  await page.getByTestId('open-settings').click();
  const section = page.getByTestId('data-layers');
  await expect(section.getByTestId('layer-none')).toHaveText('No data layers yet.', { timeout: 30_000 });
  await section.getByTestId('layer-file').setInputFiles(town.pbf);
  await expect(section.getByTestId('layer-added')).toContainText('Added “town”', { timeout: 30_000 });
  await page.keyboard.press('Escape');

  await page.getByTestId('tab-ask').click();
  await page.getByTestId('ask-query').fill('pharmacies within 300 m of the Lenne');
  await page.getByTestId('ask-run').click();
  await expect(page.getByTestId('ask-count')).toBeVisible({ timeout: 30_000 });
  const map = page.getByTestId('map');
  // One reference, drawn as a line (no mark, and no circle around a point of it).
  await expect(map).toHaveAttribute('data-references', 'Lenne|||line', { timeout: 15_000 });
  await expect(map).toHaveAttribute('data-settled', 'yes', { timeout: 15_000 });
  await shot(page, 'map-reference-line');

  // The host is shared by the worker's specs: the layer goes, as a person would remove it.
  await page.getByTestId('open-settings').click();
  const row = section.getByTestId('layer-row');
  await row.getByTestId('layer-remove').click();
  await row.getByTestId('layer-remove-confirm').click();
  await expect(section.getByTestId('layer-none')).toHaveText('No data layers yet.');
  await page.keyboard.press('Escape');
});
