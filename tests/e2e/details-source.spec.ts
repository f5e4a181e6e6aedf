/**
 * What the results say about themselves: the Score column explains what a score is, and the
 * Details of a data-layer feature name the layer its attributes come from.
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
  dir = mkdtempSync(join(tmpdir(), 'fl-e2e-details-'));
  town = writeTownFiles(dir);
});
test.afterAll(() => rmSync(dir, { recursive: true, force: true }));

test('a data-layer feature’s Details name the layer; the Score header says what a score is', async ({ page, host }) => {
  await openApp(page, host.launchUrl);
  await page.getByTestId('open-settings').click();
  const section = page.getByTestId('data-layers');
  await expect(section.getByTestId('layer-none')).toHaveText('No data layers yet.', { timeout: 30_000 });
  await section.getByTestId('layer-file').setInputFiles(town.pbf);
  await expect(section.getByTestId('layer-added')).toContainText('Added “town”', { timeout: 30_000 });
  await page.keyboard.press('Escape');

  await page.getByTestId('tab-ask').click();
  await page.getByTestId('ask-query').fill('pharmacies within 500 m of Lennbrück Hauptbahnhof');
  await page.getByTestId('ask-run').click();
  await expect(page.getByTestId('ask-count')).toBeVisible({ timeout: 30_000 });
  await page.getByTestId('result-row').first().click();
  const details = page.getByTestId('feature-details');
  await expect(details.getByTestId('feature-attributes')).toBeVisible();
  await expect(details.getByTestId('feature-attributes-from')).toHaveText('(from the data layer “town”)');
  await expect(details).not.toContainText('uploaded file');

  const score = page.getByTestId('sort-score');
  await expect(score).toHaveAttribute('title', /^Score: how well the feature matches the question/);
  await expect(score).toHaveAccessibleDescription(/higher is better/);
  await expect(score).toHaveAccessibleName('Score');
  await score.hover();
  await shot(page, 'details-layer-source');

  // The host is shared by the worker's specs: the layer goes, as a person would remove it.
  await page.getByTestId('open-settings').click();
  const row = section.getByTestId('layer-row');
  await row.getByTestId('layer-remove').click();
  await row.getByTestId('layer-remove-confirm').click();
  await expect(section.getByTestId('layer-none')).toHaveText('No data layers yet.');
  await page.keyboard.press('Escape');
});
