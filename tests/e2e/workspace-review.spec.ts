import { execFileSync } from 'node:child_process';
import { expect, test } from './fixtures';
import { ask, backToLocal, openApp, shot, startOwnService, useService } from './workspace-helpers';

test('stream: cards with image or "media redacted", date and source, in step with the map', async ({ page, host }) => {
  await openApp(page, host.launchUrl);
  await page.getByTestId('tab-street').click();
  await page.getByTestId('street-query').fill('street');
  await page.getByTestId('street-limit').fill('8');
  await page.getByTestId('street-run').click();
  const cards = page.getByTestId('street-panel').getByTestId('result-row');
  await expect(cards.first()).toBeVisible({ timeout: 30_000 });
  const n = await cards.count();
  expect(n).toBeGreaterThan(0);
  expect(n).toBeLessThanOrEqual(8);
  await expect(page.getByTestId('map')).toHaveAttribute('data-features', String(n));
  for (let i = 0; i < n; i++) {
    const card = cards.nth(i);
    // Every card shows its image, or says plainly that the media was withheld.
    await expect(card.getByTestId('media-image').or(card.getByTestId('media-empty'))).toBeVisible({ timeout: 15_000 });
    if (await card.getByTestId('media-empty').count()) await expect(card.getByTestId('media-empty')).toHaveText('Media redacted');
    await expect(card.getByTestId('result-meta')).toHaveText(/\d{4}/);
  }
  const id = await cards.first().getAttribute('data-id');
  await cards.first().locator('button.pick').click();
  await expect(page.getByTestId('map')).toHaveAttribute('data-selected', id!);
  await expect(cards.first()).toHaveAttribute('aria-selected', 'true');
  await shot(page, 'workspace-stream');
});

test('imagery search pages "page x of y", and the viewer shows the image with its position and facing', async ({ page, host }) => {
  await openApp(page, host.launchUrl);
  await page.getByTestId('tab-imagery').click();
  await page.getByTestId('imagery-page-size').selectOption('6');
  await page.getByTestId('imagery-query').fill('sample');
  await page.getByTestId('imagery-run').click();
  const label = page.getByTestId('imagery-page');
  await expect(label).toHaveText(/^Page 1 of \d+$/, { timeout: 30_000 });
  const total = Number((await label.textContent())!.match(/of (\d+)/)![1]);
  expect(total).toBeGreaterThan(1);
  const firstPage = await page.getByTestId('result-row').evaluateAll((els) => els.map((e) => e.getAttribute('data-id')));
  await page.getByTestId('imagery-next').click();
  await expect(label).toHaveText(`Page 2 of ${total}`);
  const secondPage = await page.getByTestId('result-row').evaluateAll((els) => els.map((e) => e.getAttribute('data-id')));
  expect(secondPage.filter((id) => firstPage.includes(id))).toEqual([]);

  const row = page.getByTestId('result-row').first();
  const id = await row.getAttribute('data-id');
  const meta = (await row.getByTestId('result-meta').textContent())!;
  await row.getByRole('button', { name: /View image/ }).click();
  const viewer = page.getByTestId('image-viewer');
  await expect(viewer.getByTestId('media-image')).toHaveAttribute('src', /^data:image\//, { timeout: 15_000 });
  await expect(viewer.getByTestId('image-viewer-position')).toHaveText(/^at \d+\.\d+° [NS], \d+\.\d+° [EW]$/);
  await expect(viewer.getByTestId('image-viewer-facing')).toHaveText(/facing \d+°/);
  // The facing's compass point, as the card writes it, is in the viewer's caption too.
  await expect(viewer).toContainText(meta.split(' · ')[1]!.trim());
  await expect(page.getByTestId('map')).toHaveAttribute('data-selected', id!);
  await shot(page, 'workspace-imagery-viewer');
  await page.keyboard.press('Escape');
  await expect(viewer).toHaveCount(0);
  await page.getByTestId('imagery-prev').click();
  await expect(label).toHaveText(`Page 1 of ${total}`);
});

test('history: Ctrl+K searches by words, "in the map view" by place, entries grouped by day', async ({ page, host }) => {
  await openApp(page, host.launchUrl);
  await ask(page, 'airports within 30 km of Lyon');
  // Oslo's airports lie 20–50 km out: the map zooms there.
  await ask(page, 'airports within 60 km of Oslo');
  await expect(page.getByTestId('map')).toHaveAttribute('data-settled', 'yes', { timeout: 10_000 });

  await page.getByTestId('ask-query').focus();
  await page.keyboard.press('Control+k');
  const search = page.getByTestId('history-text');
  await expect(search).toBeFocused();
  await expect(page.getByTestId('history-day').first().locator('h3')).toHaveText('Today');
  await page.keyboard.type('Oslo');
  await page.keyboard.press('Enter');
  const entries = page.getByTestId('history-entry');
  await expect(entries.filter({ hasText: 'Oslo' }).first()).toBeVisible();
  await expect(entries.filter({ hasText: 'Lyon' })).toHaveCount(0);
  await shot(page, 'workspace-history-search');

  // By place: the map still shows Oslo's airports, so only entries with results there remain.
  await search.fill('');
  await page.getByTestId('history-extent').check();
  await expect(entries.filter({ hasText: 'airports within 60 km of Oslo' }).first()).toBeVisible();
  await expect(entries.filter({ hasText: 'Lyon' })).toHaveCount(0);
  await page.getByTestId('history-extent').uncheck();
  await expect(entries.filter({ hasText: 'airports within 30 km of Lyon' }).first()).toBeVisible();
});

test('offline reopen: with its service stopped the app reopens, says offline, and History opens from the cache', async ({ page, host }) => {
  // A service of its own loads its catalog first (several seconds on a busy machine).
  test.setTimeout(120_000);
  await openApp(page, host.launchUrl);
  const keys = { bearer: `b-${Date.now()}-off`, search: `s-${Date.now()}-off` };
  const svc = await startOwnService(['--no-sample'], keys);
  let id = '';
  try {
    id = await useService(page, 'Field laptop service', svc, keys);
    const question = 'airports within 70 km of Marseille';
    await ask(page, question);
    const names = await page.getByTestId('result-name').allTextContents();
    expect(names.length).toBeGreaterThan(0);

    await svc.stop();
    await page.reload();
    await expect(page.getByTestId('map')).toHaveAttribute('data-basemap', 'drawn', { timeout: 30_000 });
    await expect(page.getByTestId('connectivity')).toHaveAttribute('data-state', 'offline', { timeout: 20_000 });
    await expect(page.getByTestId('connection-switcher')).toHaveValue(id);

    await page.keyboard.press('Control+k');
    await page.keyboard.type('Marseille');
    await page.keyboard.press('Enter');
    await page.getByTestId('history-entry').filter({ hasText: question }).first().getByTestId('history-open').click();
    await expect(page.getByTestId('history-title')).toHaveText(question);
    // The same results, in the same order, read from the cache.
    await expect(page.getByTestId('result-name')).toHaveText(names);
    await expect(page.getByTestId('map')).toHaveAttribute('data-features', String(names.length));
    await shot(page, 'workspace-offline-reopen');
  } finally {
    await svc.stop();
    if (id) await backToLocal(page, id);
  }
});

test('an export to GeoPackage shows its progress, downloads, and GDAL opens it with every feature', async ({ page, host }) => {
  await openApp(page, host.launchUrl);
  const question = 'airports within 90 km of Zurich';
  await ask(page, question);
  const n = await page.getByTestId('result-row').count();
  expect(n).toBeGreaterThan(0);

  await page.keyboard.press('Control+h');
  await page.getByTestId('history-entry').filter({ hasText: question }).first().getByTestId('history-check').check();
  await page.getByTestId('export-format').selectOption('gpkg');
  const downloading = page.waitForEvent('download');
  await page.getByTestId('export-start').click();
  const download = await downloading;
  expect(download.suggestedFilename()).toMatch(/\.gpkg$/);
  const path = `test-results/workspace-export-${Date.now()}.gpkg`;
  await download.saveAs(path);
  await expect(page.getByTestId('export-progress')).toHaveAttribute('data-state', 'done');
  await shot(page, 'workspace-export-done');

  // GDAL's own summary: the point layer holds every result (beside the style and provenance tables).
  const info = execFileSync('ogrinfo', ['-ro', '-so', '-al', path], { encoding: 'utf8' });
  const layers = info.split(/\nLayer name: /).slice(1).map((b) => ({
    name: b.split('\n')[0]!.trim(),
    geometry: /Geometry: (\w+)/.exec(b)?.[1],
    count: Number(/Feature Count: (\d+)/.exec(b)?.[1]),
  }));
  const points = layers.filter((l) => l.geometry === 'Point');
  expect(points).toHaveLength(1);
  expect(points[0]!.name).toContain('Zurich');
  expect(points[0]!.count).toBe(n);
});
