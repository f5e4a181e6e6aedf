import { readFileSync } from 'node:fs';
import type { Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { colourPixels, hex } from './map-pixels';
import { rpcCall } from './rpc';

// The colours of renderer/src/map/layerColours.ts (the e2e project cannot import renderer files).
const LAYER_COLOURS = { ask: '#e8710a', imagery: '#7b3fb5', street: '#0f8b6e', history: '#e8710a' } as const;
const RESULT = hex(LAYER_COLOURS.ask);
const SELECTED = hex('#d7301f');
const QUESTION = 'airports within 50 km of Lyon';

/** Opens the app and collects CSP violations for the test to check at the end. */
async function openApp(page: Page, launchUrl: string): Promise<string[]> {
  const csp: string[] = [];
  page.on('console', (m) => {
    if (/Content Security Policy/i.test(m.text())) csp.push(m.text());
  });
  await page.goto(launchUrl);
  await expect(page.getByTestId('map')).toHaveAttribute('data-basemap', 'drawn', { timeout: 30_000 });
  return csp;
}

async function ask(page: Page, question: string): Promise<void> {
  await page.getByTestId('tab-ask').click();
  await page.getByTestId('ask-query').fill(question);
  await page.getByTestId('ask-run').click();
  await expect(page.getByTestId('ask-count')).toBeVisible({ timeout: 30_000 });
}

test('asking a question lists the results and draws them on the map', async ({ page, host }) => {
  const csp = await openApp(page, host.launchUrl);
  expect((await colourPixels(page, RESULT)).count).toBe(0);

  await ask(page, QUESTION);
  const rows = page.getByTestId('result-row');
  await expect(rows.first()).toBeVisible();
  const n = await rows.count();
  expect(n).toBeGreaterThan(0);
  await expect(page.getByTestId('ask-count')).toHaveText(/\d+ (results?|of [\d,]+ matches shown)/);
  await expect(page.getByTestId('result-name').first()).not.toBeEmpty();
  await expect(page.getByTestId('result-distance').first()).toHaveText(/\d+(\.\d)? k?m/);
  await expect(page.getByTestId('ask-answer-text')).not.toBeEmpty();
  await expect(page.getByTestId('map')).toHaveAttribute('data-features', String(n));
  await expect(page.getByTestId('connectivity')).toHaveAttribute('data-state', 'online');

  // The features are really drawn: pixels of the result colour appear once the zoom settles.
  await expect.poll(async () => (await colourPixels(page, RESULT)).count, { timeout: 10_000 }).toBeGreaterThan(20 * n);
  await page.screenshot({ path: 'test-results/ask-results.png' });
  expect(csp).toEqual([]);
});

test('a result picked in the list is ringed on the map, and a pick on the map selects its row', async ({ page, host }) => {
  const csp = await openApp(page, host.launchUrl);
  await ask(page, QUESTION);
  const rows = page.getByTestId('result-row');
  await expect(rows.first()).toBeVisible();

  const firstId = await rows.first().getAttribute('data-id');
  await rows.first().locator('button.pick').click();
  await expect(rows.first()).toHaveAttribute('aria-selected', 'true');
  await expect(page.getByTestId('map')).toHaveAttribute('data-selected', firstId!);
  await expect.poll(async () => (await colourPixels(page, SELECTED)).count, { timeout: 10_000 }).toBeGreaterThan(30);

  // Clicking the same row again clears the selection and the ring.
  await rows.first().locator('button.pick').click();
  await expect(rows.first()).toHaveAttribute('aria-selected', 'false');
  await expect.poll(async () => (await colourPixels(page, SELECTED)).count, { timeout: 10_000 }).toBe(0);

  // A click on a drawn result on the map selects its row.
  const spot = await expect
    .poll(async () => (await colourPixels(page, RESULT)).inside, { timeout: 10_000 })
    .not.toBeNull()
    .then(async () => (await colourPixels(page, RESULT)).inside!);
  await page.mouse.click(spot.x, spot.y);
  const selectedRow = page.locator('[data-testid="result-row"][aria-selected="true"]');
  await expect(selectedRow).toHaveCount(1);
  const picked = await selectedRow.getAttribute('data-id');
  await expect(page.getByTestId('map')).toHaveAttribute('data-selected', picked!);
  await page.screenshot({ path: 'test-results/ask-selected.png' });
  expect(csp).toEqual([]);
});

test('history keeps the question across a reload and opens it with its results', async ({ page, host }) => {
  const csp = await openApp(page, host.launchUrl);
  const question = 'airports within 30 km of Lyon';
  await ask(page, question);
  const askedCount = await page.getByTestId('result-row').count();

  await page.reload();
  await expect(page.getByTestId('map')).toHaveAttribute('data-basemap', 'drawn', { timeout: 30_000 });
  await page.getByTestId('tab-history').click();
  const entry = page.getByTestId('history-entry').filter({ hasText: question }).first();
  await expect(entry).toBeVisible();
  await expect(entry).toContainText('Question');

  await entry.getByTestId('history-open').click();
  await expect(page.getByTestId('history-title')).toHaveText(question);
  await expect(page.getByTestId('result-row')).toHaveCount(askedCount);
  await expect(page.getByTestId('map')).toHaveAttribute('data-layer', 'history');
  await expect(page.getByTestId('map')).toHaveAttribute('data-features', String(askedCount));
  await expect.poll(async () => (await colourPixels(page, hex(LAYER_COLOURS.history))).count, { timeout: 10_000 }).toBeGreaterThan(0);
  await page.screenshot({ path: 'test-results/history-open.png' });

  // Filtering by words keeps the entry; a filter that matches nothing empties the list.
  await page.getByTestId('history-back').click();
  await page.getByTestId('history-text').fill('Lyon');
  await page.getByTestId('history-text').press('Enter');
  await expect(page.getByTestId('history-entry').filter({ hasText: question })).toHaveCount(1);
  await page.getByTestId('history-text').fill('zzqxnotaword');
  await page.getByTestId('history-text').press('Enter');
  await expect(page.getByTestId('history-entry')).toHaveCount(0);
  expect(csp).toEqual([]);
});

test('exporting a history entry to GeoJSON downloads a valid FeatureCollection', async ({ page, host }) => {
  const csp = await openApp(page, host.launchUrl);
  const question = 'airports within 40 km of Lyon';
  await ask(page, question);
  const ids = await page.getByTestId('result-row').evaluateAll((els) => els.map((e) => e.getAttribute('data-id')));

  await page.getByTestId('tab-history').click();
  const entry = page.getByTestId('history-entry').filter({ hasText: question }).first();
  await entry.getByTestId('history-check').check();
  await page.getByTestId('export-format').selectOption('geojson');
  const downloading = page.waitForEvent('download');
  await page.getByTestId('export-start').click();
  const download = await downloading;
  expect(download.suggestedFilename()).toMatch(/\.geojson$/);
  const path = `test-results/export-${Date.now()}.geojson`;
  await download.saveAs(path);
  await expect(page.getByTestId('export-progress')).toHaveAttribute('data-state', 'done');

  const fc = JSON.parse(readFileSync(path, 'utf8')) as {
    type: string;
    features: Array<{ type: string; id?: unknown; geometry: { type: string; coordinates: number[] }; properties: Record<string, unknown> }>;
  };
  expect(fc.type).toBe('FeatureCollection');
  expect(fc.features).toHaveLength(ids.length);
  for (const f of fc.features) {
    expect(f.type).toBe('Feature');
    expect(f.geometry.type).toBe('Point');
    const [lon, lat] = f.geometry.coordinates;
    // Near Lyon (4.84 E, 45.76 N), in [lon, lat] order.
    expect(Math.abs(lon! - 4.84)).toBeLessThan(1.5);
    expect(Math.abs(lat! - 45.76)).toBeLessThan(1);
  }
  await page.screenshot({ path: 'test-results/export-done.png' });
  expect(csp).toEqual([]);
});

test('an imagery search shows thumbnails of the sample photos and a larger view', async ({ page, host }) => {
  const csp = await openApp(page, host.launchUrl);
  await page.getByTestId('tab-imagery').click();
  await page.getByTestId('imagery-query').fill('Paris');
  await page.getByTestId('imagery-run').click();
  const rows = page.getByTestId('result-row');
  await expect(rows.first()).toBeVisible({ timeout: 30_000 });
  await expect(rows.first()).toContainText('Paris');
  await expect(page.getByTestId('result-meta').first()).toHaveText(/[A-Z][a-z]+ \d{1,2}, \d{4} · [A-Za-z-]+ \([NESW]{1,3}\)/);

  // Thumbnails are real decoded images served through media.get as data: URLs.
  const thumb = rows.first().getByTestId('media-image');
  await expect(thumb).toBeVisible({ timeout: 15_000 });
  await expect(thumb).toHaveAttribute('src', /^data:image\//);
  expect(await thumb.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBeGreaterThan(16);
  await expect.poll(async () => (await colourPixels(page, hex(LAYER_COLOURS.imagery))).count, { timeout: 10_000 }).toBeGreaterThan(0);
  await page.screenshot({ path: 'test-results/imagery-results.png' });

  await rows.first().getByRole('button', { name: /View image/ }).click();
  const viewer = page.getByTestId('image-viewer');
  await expect(viewer.getByTestId('media-image')).toBeVisible();
  await page.screenshot({ path: 'test-results/imagery-viewer.png' });
  await page.keyboard.press('Escape');
  await expect(viewer).toHaveCount(0);
  expect(csp).toEqual([]);
});

test('a refused question shows its error code in the panel and the status bar', async ({ page, host }) => {
  const csp = await openApp(page, host.launchUrl);
  await page.getByTestId('ask-query').fill(QUESTION);
  await page.getByTestId('ask-limit').fill('5000');
  // Enter in the question box runs it without the form's own range check, so the contract's check answers.
  await page.getByTestId('ask-query').press('Enter');
  const note = page.getByTestId('ask-panel').getByTestId('error-note');
  await expect(note).toHaveAttribute('data-code', 'VALIDATION');
  // The sentence that matters first; the code is one click away.
  await expect(note.getByTestId('error-sentence')).toHaveText(/^limit: .*2000/);
  await expect(note.getByTestId('error-code')).not.toBeVisible();
  await note.getByText('Details').click();
  await expect(note.getByTestId('error-code')).toHaveText('VALIDATION');
  await expect(page.getByTestId('status-error')).toContainText(/Ask failed — limit: .*2000/);
  await expect(page.getByTestId('ask-busy')).toHaveCount(0);
  expect(csp).toEqual([]);
});

test('a follow-up continues the last result and both show as one thread', async ({ page, host }) => {
  const csp = await openApp(page, host.launchUrl);
  await ask(page, 'airports within 150 km of Lyon');
  const firstCount = await page.getByTestId('result-row').count();
  expect(firstCount).toBeGreaterThan(1);

  await page.getByTestId('ask-query').fill('top 2');
  await page.getByTestId('ask-follow-up').click();
  const thread = page.getByTestId('ask-thread');
  await expect(thread.locator('li')).toHaveCount(2, { timeout: 30_000 });
  await expect(thread.locator('li').first()).toContainText('airports within 150 km of Lyon');
  await expect(thread.locator('li').last()).toContainText('top 2');
  await page.screenshot({ path: 'test-results/ask-thread.png' });

  // History shows the continuation under its parent.
  await page.getByTestId('tab-history').click();
  await page.getByTestId('history-entry').filter({ hasText: 'top 2' }).first().getByTestId('history-open').click();
  const nodes = page.getByTestId('history-thread').locator('li');
  await expect(nodes).toHaveCount(2);
  await expect(nodes.first()).toContainText('airports within 150 km of Lyon');
  expect(csp).toEqual([]);
});

test('an attached CSV is sent with the question and its rows can be the answer', async ({ page, host }) => {
  const csp = await openApp(page, host.launchUrl);
  const csv = 'name,lat,lon\nLyon depot,45.7485,4.8467\nAtlantic buoy,40.0,-40.0\n';
  await page.getByTestId('ask-files').setInputFiles({ name: 'my-sites.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
  await expect(page.getByTestId('ask-attachments')).toContainText('my-sites.csv');
  await ask(page, 'which of my sites are within 50 km of an airport');
  await expect(page.getByTestId('result-name')).toHaveText(['Lyon depot']);
  expect(csp).toEqual([]);
});

test('a history entry can be run again with a comparison, and deleted', async ({ page, host }) => {
  const csp = await openApp(page, host.launchUrl);
  const question = 'airports within 20 km of Lyon';
  await ask(page, question);
  await page.getByTestId('tab-history').click();
  await page.getByTestId('history-entry').filter({ hasText: question }).first().getByTestId('history-open').click();
  await page.getByTestId('history-rerun').click();
  // The same question over the same data: nothing added, removed or changed.
  await expect(page.getByTestId('history-diff')).toHaveText(/0 added, 0 removed, 0 changed, \d+ unchanged/, { timeout: 30_000 });

  await page.getByTestId('history-back').click();
  const before = await page.getByTestId('history-entry').filter({ hasText: question }).count();
  expect(before).toBe(2);
  page.once('dialog', (d) => void d.accept());
  await page.getByTestId('history-entry').filter({ hasText: question }).first().getByTestId('history-open').click();
  await page.getByTestId('history-delete').click();
  await expect(page.getByTestId('history-list')).toBeVisible();
  await expect(page.getByTestId('history-entry').filter({ hasText: question })).toHaveCount(1);
  expect(csp).toEqual([]);
});

test('imagery results page through the whole catalog once', async ({ page, host }) => {
  const csp = await openApp(page, host.launchUrl);
  await page.getByTestId('tab-imagery').click();
  await page.getByTestId('imagery-page-size').selectOption('6');
  // Every sample photo carries the keyword "sample".
  await page.getByTestId('imagery-query').fill('sample');
  await page.getByTestId('imagery-run').click();
  await expect(page.getByTestId('imagery-page')).toHaveText(/^Page 1 of (\d+)$/, { timeout: 30_000 });
  const total = Number((await page.getByTestId('imagery-page').textContent())!.match(/of (\d+)/)![1]);
  expect(total).toBeGreaterThan(1);
  await expect(page.getByTestId('imagery-prev')).toBeDisabled();

  const seen: string[] = [];
  for (let p = 1; p <= total; p++) {
    await expect(page.getByTestId('imagery-page')).toHaveText(`Page ${p} of ${total}`);
    const ids = await page.getByTestId('result-row').evaluateAll((els) => els.map((e) => e.getAttribute('data-id')!));
    expect(ids.length).toBeLessThanOrEqual(6);
    await expect(page.getByTestId('map')).toHaveAttribute('data-features', String(ids.length));
    seen.push(...ids);
    if (p < total) await page.getByTestId('imagery-next').click();
  }
  await expect(page.getByTestId('imagery-next')).toBeDisabled();
  expect(new Set(seen).size).toBe(seen.length);
  expect(seen.length).toBeGreaterThanOrEqual(10);
  expect(csp).toEqual([]);
});

test('a street-level search finds observations of a year near the map centre, with images', async ({ page, host }) => {
  const csp = await openApp(page, host.launchUrl);
  // Bring the map to Paris (where a sample capture of 2024 is): the search lists only what is near.
  await ask(page, 'airports within 20 km of Paris');
  await page.getByTestId('tab-street').click();
  await page.getByTestId('street-query').fill('street');
  await page.getByTestId('street-year').fill('2024');
  await page.getByTestId('street-centre').check();
  await page.getByTestId('street-run').click();
  const rows = page.getByTestId('result-row');
  await expect(rows.first()).toBeVisible({ timeout: 30_000 });
  await expect(page.getByTestId('street-count')).toContainText('within 50 km of');
  for (const d of await rows.getByTestId('result-distance').allTextContents()) {
    const m = /([\d.,]+) (k?m)/.exec(d)!;
    expect(Number(m[1]!.replace(/,/g, '')) * (m[2] === 'km' ? 1000 : 1)).toBeLessThanOrEqual(50_000);
  }
  for (const meta of await page.getByTestId('result-meta').allTextContents()) expect(meta).toContain('2024');
  const thumb = rows.first().getByTestId('media-image');
  await expect(thumb).toHaveAttribute('src', /^data:image\//, { timeout: 15_000 });
  await expect.poll(async () => (await colourPixels(page, hex(LAYER_COLOURS.street))).count, { timeout: 10_000 }).toBeGreaterThan(0);
  await page.screenshot({ path: 'test-results/street-results.png' });
  expect(csp).toEqual([]);
});

test('with the service unreachable, a new question fails plainly and history still opens from the cache', async ({ page, host }) => {
  const csp = await openApp(page, host.launchUrl);
  const question = 'airports within 60 km of Lyon';
  await ask(page, question);
  const names = await page.getByTestId('result-name').allTextContents();
  expect(names.length).toBeGreaterThan(0);

  // A remote connection on a port nobody listens on stands for a lost network.
  const dead = await rpcCall<{ id: string }>(page, 'profiles.save', {
    label: 'Field office',
    baseUrl: 'http://127.0.0.1:9',
    searchBaseUrl: 'http://127.0.0.1:9',
  });
  await rpcCall(page, 'profiles.select', { id: dead.id });
  try {
    await expect(page.getByTestId('connection')).toContainText('Field office');
    await page.getByTestId('ask-query').fill('airports within 10 km of Paris');
    await page.getByTestId('ask-run').click();
    // OFFLINE where a keychain is available; without one, reading the remote key fails first.
    const note = page.getByTestId('ask-panel').getByTestId('error-note');
    await expect(note).toHaveAttribute('data-code', /^(OFFLINE|KEYCHAIN)$/, { timeout: 30_000 });
    await expect(page.getByTestId('status-error')).toContainText(/Offline|keychain/);

    await page.getByTestId('tab-history').click();
    await page.getByTestId('history-entry').filter({ hasText: question }).first().getByTestId('history-open').click();
    await expect(page.getByTestId('result-name')).toHaveText(names);
    await page.screenshot({ path: 'test-results/offline-history.png' });
  } finally {
    await rpcCall(page, 'profiles.select', { id: 'local' });
    // Deleting a profile also deletes its keys, which needs a keychain; without one it stays, inactive.
    await rpcCall(page, 'profiles.delete', { id: dead.id }).catch(() => undefined);
  }
  expect(csp).toEqual([]);
});
