import { readFileSync } from 'node:fs';
import { expect, test } from './fixtures';
import { rpcCall } from './rpc';
import { ask, backToLocal, dropFiles, openApp, shot, startOwnService, useService } from './workspace-helpers';

/** Reads "1.2 km" / "850 m" back into metres. */
const metres = (t: string) => {
  const m = /([\d.,]+) (k?m)/.exec(t)!;
  return Number(m[1]!.replace(/,/g, '')) * (m[2] === 'km' ? 1000 : 1);
};

test('compute with a written answer: answer, usage meters, a sortable table synced with the map', async ({ page, host }) => {
  const csp = await openApp(page, host.launchUrl);
  await ask(page, 'airports within 80 km of Lyon');
  const results = page.getByTestId('results-panel');
  await expect(results.getByTestId('ask-answer-text')).toContainText('Lyon');
  await expect(results.getByTestId('usage-meters')).toHaveText(/^Usage [\d.]+$/);
  const rows = page.getByTestId('result-row');
  const n = await rows.count();
  expect(n).toBeGreaterThan(2);
  await expect(page.getByTestId('result-table')).toHaveAttribute('aria-rowcount', String(n + 1));
  await shot(page, 'workspace-compute-answer');

  // Sorted by distance, farthest first: the order of the distances as shown.
  await page.getByTestId('sort-distance').click();
  await page.getByTestId('sort-distance').click();
  await expect(page.locator('[role="columnheader"][aria-sort="descending"]')).toContainText('Distance');
  const shown = (await rows.getByTestId('result-distance').allTextContents()).map(metres);
  expect(shown).toEqual([...shown].sort((a, b) => b - a));

  // Select in the table: the map marks it; a second row replaces it; Zoom to results keeps it.
  const second = rows.nth(1);
  const id = await second.getAttribute('data-id');
  await second.locator('button.pick').click();
  await expect(page.getByTestId('map')).toHaveAttribute('data-selected', id!);
  await expect(second).toHaveAttribute('aria-selected', 'true');
  await expect(page.getByTestId('feature-details')).toBeVisible();
  await page.getByTestId('zoom-results').click();
  await expect(page.getByTestId('map')).toHaveAttribute('data-selected', id!);
  await shot(page, 'workspace-compute-selected');

  // The result exports from where it is shown: every row in the downloaded CSV.
  await results.getByTestId('export-format').selectOption('csv');
  const downloading = page.waitForEvent('download');
  await results.getByTestId('export-start').click();
  const download = await downloading;
  expect(download.suggestedFilename()).toMatch(/\.csv$/);
  const path = `test-results/workspace-result-${Date.now()}.csv`;
  await download.saveAs(path);
  const lines = readFileSync(path, 'utf8').trim().split(/\r?\n/);
  expect(lines.length - 1).toBe(n);
  expect(csp).toEqual([]);
});

test('answer off: the answer panel says so quietly and the results are listed', async ({ page, host }) => {
  await openApp(page, host.launchUrl);
  await page.getByTestId('ask-answer').uncheck();
  await ask(page, 'airports within 40 km of Geneva');
  await expect(page.getByTestId('ask-answer-skipped')).toHaveText(/No written answer was asked for/);
  await expect(page.getByTestId('ask-answer-text')).toHaveCount(0);
  await expect(page.getByTestId('result-row').first()).toBeVisible();
  await shot(page, 'workspace-compute-skipped');
  await page.getByTestId('ask-answer').check();
});

test('the fault switch: the answer failed, its error shown, the results still listed', async ({ page, host }) => {
  // A service of its own loads its catalog first (several seconds on a busy machine).
  test.setTimeout(120_000);
  await openApp(page, host.launchUrl);
  const keys = { bearer: `b-${Date.now()}-fault`, search: `s-${Date.now()}-fault` };
  const svc = await startOwnService(['--answer-fault', '--no-sample'], keys);
  let id = '';
  try {
    id = await useService(page, 'Faulty answers', svc, keys);
    await ask(page, 'airports within 50 km of Lyon');
    const failed = page.getByTestId('ask-answer-failed');
    await expect(failed).toBeVisible();
    await expect(failed).toHaveAttribute('role', 'alert');
    await expect(page.getByTestId('ask-answer-error')).toContainText('answer_generation_failed');
    await expect(page.getByTestId('ask-answer-text')).toHaveCount(0);
    const n = await page.getByTestId('result-row').count();
    expect(n).toBeGreaterThan(0);
    await expect(page.getByTestId('map')).toHaveAttribute('data-features', String(n));
    await shot(page, 'workspace-compute-failed');
  } finally {
    if (id) await backToLocal(page, id);
    await svc.stop();
  }
});

test('Ask a follow-up continues the result: its thread in the panel and as a tree in History', async ({ page, host }) => {
  await openApp(page, host.launchUrl);
  const first = 'airports within 150 km of Geneva';
  await ask(page, first);
  expect(await page.getByTestId('result-row').count()).toBeGreaterThan(2);
  await page.getByTestId('ask-follow-up-start').click();
  await expect(page.getByTestId('ask-following')).toContainText(first);
  await expect(page.getByTestId('ask-query')).toBeFocused();
  await page.keyboard.type('top 2');
  await page.keyboard.press('Control+Enter');
  const thread = page.getByTestId('ask-thread').locator('li');
  await expect(thread).toHaveCount(2, { timeout: 30_000 });
  await expect(thread.last()).toContainText('top 2');
  await expect(page.getByTestId('result-row')).toHaveCount(2);
  await expect(page.getByTestId('ask-following')).toHaveCount(0);
  await shot(page, 'workspace-compute-thread');

  await page.keyboard.press('Control+h');
  await expect(page.getByTestId('tab-history')).toHaveAttribute('aria-selected', 'true');
  const today = page.getByTestId('history-day').first();
  await expect(today.locator('h3')).toHaveText('Today');
  const parent = today.getByTestId('history-entry').filter({ hasText: first }).first();
  const child = parent.locator('xpath=following-sibling::li[1]');
  await expect(child).toContainText('top 2');
  await expect(child).toHaveAttribute('data-depth', '1');
  await expect(parent).toHaveAttribute('data-depth', '0');
  await shot(page, 'workspace-history-tree');
});

test('a dropped CSV is previewed before sending, and its attributes show in the details', async ({ page, host }) => {
  await openApp(page, host.launchUrl);
  const lines = ['name,lat,lon,site_code,capacity_t', 'Lyon depot,45.7485,4.8467,LY-07,1250', 'Broken,north,4.8,LY-08,3', 'Annecy store,45.8992,6.1294,AN-01,40', 'Atlantic buoy,40.0,-40.0,SEA-1,0'];
  const badLine = lines.findIndex((l) => l.startsWith('Broken')) + 1;
  await page.getByTestId('tab-history').click();
  await dropFiles(page, [{ name: 'depots.csv', type: 'text/csv', text: lines.join('\n') }], 'workspace-drop-hint');
  // The drop brings Compute forward with the file read by the service's own reader.
  await expect(page.getByTestId('tab-ask')).toHaveAttribute('aria-selected', 'true');
  const preview = page.getByTestId('file-preview').filter({ hasText: 'depots.csv' });
  // A fresh host may still be loading the bundled service's catalog: give the first read time.
  await expect(preview.getByTestId('file-preview-summary')).toHaveText(/^3 features · coordinates from “lat”, “lon”$/, { timeout: 30_000 });
  await expect(preview.getByTestId('file-preview-bad')).toContainText('1 row will be left out');
  await expect(preview.getByTestId('file-preview-bad')).toContainText(`Line ${badLine}: latitude "north" is not a number`);
  await expect(preview.locator('table tbody tr')).toHaveCount(3);
  await shot(page, 'workspace-upload-preview');

  await ask(page, 'which of my sites are within 50 km of an airport');
  await expect(page.getByTestId('result-name')).toHaveCount(2);
  // The buoy far out at sea is left out; the order is the service's (nearest to an airport first).
  expect((await page.getByTestId('result-name').allTextContents()).sort()).toEqual(['Annecy store', 'Lyon depot']);
  await page.getByTestId('result-row').filter({ hasText: 'Lyon depot' }).locator('button.pick').click();
  const attrs = page.getByTestId('feature-details').getByTestId('feature-attributes');
  await expect(attrs).toContainText('site_code');
  await expect(attrs).toContainText('LY-07');
  await expect(attrs).toContainText('1250');
  await shot(page, 'workspace-upload-details');
  await page.getByTestId('file-preview').getByRole('button', { name: 'Remove depots.csv' }).click();
});

test('"showing N of M" asks again for every match', async ({ page, host }) => {
  await openApp(page, host.launchUrl);
  await page.getByTestId('ask-limit').fill('5');
  await ask(page, 'airports in Switzerland');
  const more = page.getByTestId('ask-showing');
  await expect(more).toHaveText(/^Showing 5 of [\d,]+\.$/);
  const matched = Number((await more.textContent())!.match(/of ([\d,]+)/)![1]!.replace(/,/g, ''));
  const expected = Math.min(matched, 2000);
  await page.getByTestId('ask-raise-limit').click();
  await expect(page.getByTestId('result-table')).toHaveAttribute('aria-rowcount', String(expected + 1), { timeout: 30_000 });
  await expect(page.getByTestId('ask-limit')).toHaveValue(String(expected));
  await expect(page.getByTestId('ask-count')).toHaveText(expected === matched ? `${expected.toLocaleString('en-US')} results` : /of/);
  await shot(page, 'workspace-compute-raised');
  await page.getByTestId('ask-limit').fill('100');
});

test('a named coordinate added under More travels with the question, and can be deleted', async ({ page, host }) => {
  await openApp(page, host.launchUrl);
  await page.getByTestId('ask-more').click();
  const more = page.getByTestId('named-coordinates');
  await page.getByTestId('named-coordinate-new').fill('Depot');
  await more.getByLabel('New point latitude').fill('45.7485');
  await more.getByLabel('New point longitude').fill('4.8467');
  await more.getByRole('button', { name: 'Add', exact: true }).click();
  await expect(page.getByTestId('named-coordinate-name')).toHaveValue('Depot');
  await expect(page.getByTestId('ask-more')).toContainText('1 set');
  await ask(page, 'airports within 20 km of Depot');
  // The request as the cache kept it: the point under its name, latitude and longitude in place.
  const last = await rpcCall<{ items: Array<{ id: number; queryText: string }> }>(page, 'history.list', { limit: 1 });
  expect(last.items[0]!.queryText).toBe('airports within 20 km of Depot');
  const rec = await rpcCall<{ request: { coordinates?: unknown } }>(page, 'history.get', { id: last.items[0]!.id });
  expect(rec.request.coordinates).toEqual([{ name: 'Depot', latitude: 45.7485, longitude: 4.8467 }]);
  await shot(page, 'workspace-compute-named-point');
  await page.getByRole('button', { name: 'Delete Depot' }).click();
  await expect(page.getByTestId('named-coordinate')).toHaveCount(0);
  await expect(page.getByTestId('ask-more')).not.toContainText('set');
});
