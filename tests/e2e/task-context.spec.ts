import { readFileSync } from 'node:fs';
import { unzipSync } from 'fflate';
import { expect, test } from './fixtures';
import { shot } from './workspace-helpers';

const LYON = 'airports within 41 km of Lyon';
const PARIS = 'airports within 31 km of Paris, France';

test('evidence, export and download belong to the answer on screen, not to an entry opened earlier', async ({ page, host }) => {
  await page.goto(host.launchUrl);
  await expect(page.getByTestId('map')).toHaveAttribute('data-basemap', 'drawn', { timeout: 30_000 });
  const ask = async (q: string) => {
    await page.getByTestId('tab-ask').click();
    await page.getByTestId('ask-query').fill(q);
    await page.getByTestId('ask-run').click();
    await expect(page.getByTestId('ask-count')).toBeVisible({ timeout: 30_000 });
  };
  await ask(LYON);

  // The Lyon answer exported: its download is its own.
  await page.getByTestId('results-dock').getByTestId('export-format').selectOption('geojson');
  await page.getByTestId('results-dock').getByTestId('export-start').click();
  await expect(page.getByTestId('results-dock').getByTestId('export-progress')).toHaveAttribute('data-state', 'done', { timeout: 30_000 });

  // Opened from History, then left for a new question in Compute.
  await page.getByTestId('tab-history').click();
  await page.getByTestId('history-entry').filter({ hasText: LYON }).getByTestId('history-open').click();
  await expect(page.getByTestId('tab-history')).toHaveAttribute('aria-selected', 'true');
  await ask(PARIS);
  // The Paris answer shows no download of the Lyon one.
  await expect(page.getByTestId('results-dock').getByTestId('export-progress')).toHaveCount(0);

  await page.getByTestId('open-field-kit').click();
  const maker = page.getByTestId('evidence-maker');
  await expect(maker).toContainText(PARIS);
  await expect(maker).not.toContainText(LYON);
  await maker.getByTestId('evidence-create').click();
  await expect(page.getByTestId('evidence-made')).toContainText('request.json');
  await shot(page, 'task-evidence-on-screen');
  const path = (await page.getByTestId('evidence-path').textContent())!.trim();
  const request = JSON.parse(new TextDecoder().decode(unzipSync(readFileSync(path))['request.json'])) as { query: string };
  expect(request.query).toBe(PARIS);

  // With the History entry in front, it is the subject again.
  await page.getByTestId('open-field-kit').click();
  await page.getByTestId('tab-history').click();
  await page.getByTestId('open-field-kit').click();
  await expect(page.getByTestId('evidence-maker')).toContainText(LYON);
});
