import type { Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { readoutAt, screenPixels } from './map-helpers';
import { hex } from './map-pixels';
import { rpcCall } from './rpc';
import { openApp, shot } from './workspace-helpers';

// DIFF_COLOURS of renderer/src/map/diffStyles.ts (the e2e project cannot import renderer files).
const ADDED = hex('#1a9850');
const REMOVED = hex('#c51b7d');
const MOVED = hex('#2c7bb6');

type Site = [id: string, name: string, lat: number, lon: number];
const LYON: Site = ['a', 'Lyon depot', 45.7485, 4.8467];
const ANNECY: Site = ['b', 'Annecy store', 45.8992, 6.1294];
const ANNECY_MOVED: Site = ['b', 'Annecy store', 45.99, 6.1294];
const GRENOBLE: Site = ['c', 'Grenoble yard', 45.1885, 5.7245];
const CHAMBERY: Site = ['d', 'Chambery shop', 45.5646, 5.9178];
const QUESTION = 'which of my sites are within 80 km of an airport';

async function run(page: Page, sites: Site[]): Promise<{ queryId: number; ids: string[] }> {
  const csv = ['id,name,lat,lon', ...sites.map((s) => s.join(','))].join('\n');
  const r = await rpcCall<{ queryId: number; response: { results: { features: { id: string }[] } } }>(page, 'compute.run', {
    request: { query: QUESTION, answer: false },
    attachments: [{ field: 'files', name: 'sites.csv', contentType: 'text/csv', dataBase64: Buffer.from(csv).toString('base64') }],
  });
  return { queryId: r.queryId, ids: r.response.results.features.map((f) => f.id) };
}

test('a re-run diff is drawn on the map: added, removed and moved in their own styles, moves as lines, with a legend', async ({ page, host }) => {
  await openApp(page, host.launchUrl);
  const before = await run(page, [LYON, ANNECY, GRENOBLE]);
  const after = await run(page, [LYON, ANNECY_MOVED, CHAMBERY]);
  // Every site is near an airport, so each run answers all of its file.
  expect(before.ids).toHaveLength(3);
  expect(after.ids).toHaveLength(3);

  await page.getByTestId('open-field-kit').click();
  await page.getByTestId('cmp-old').fill(String(before.queryId));
  await page.getByTestId('cmp-new').fill(String(after.queryId));
  await page.getByTestId('cmp-run').click();
  await expect(page.getByTestId('cmp-summary')).toContainText('1 added · 1 removed · 1 moved');
  await page.getByTestId('open-field-kit').click();

  const legend = page.getByTestId('diff-legend');
  await expect(legend).toContainText(`#${before.queryId} → #${after.queryId}`);
  for (const [change, n] of [['added', '1'], ['removed', '1'], ['moved', '1']] as const)
    await expect(legend.locator(`li[data-change="${change}"]`).getByTestId('diff-count')).toHaveText(n);
  const map = page.getByTestId('map');
  // Added 1 + removed 1 + a move's three parts (new place, old place, line) + anything changed in place.
  const changed = Number(await legend.locator('li[data-change="changed"]').getByTestId('diff-count').textContent());
  await expect(map).toHaveAttribute('data-diff-features', String(5 + changed));
  await page.waitForTimeout(400);
  await expect(map).toHaveAttribute('data-settled', 'yes');
  await shot(page, 'map-diff');

  // Each symbol sits where its site is (the readout gives lat, lon). The legend's swatches share
  // the colours, so it is set aside while the map's pixels are counted.
  await legend.evaluate((el: HTMLElement) => (el.style.visibility = 'hidden'));
  const near = async (colour: typeof ADDED, site: Site, tol = 0.04) => {
    const px = await screenPixels(page, colour, 12);
    expect(px.count).toBeGreaterThan(40);
    const [lat, lon] = await readoutAt(page, px.centroid!.x, px.centroid!.y);
    expect(Math.abs(lat - site[2])).toBeLessThan(tol);
    expect(Math.abs(lon - site[3])).toBeLessThan(tol);
  };
  await near(ADDED, CHAMBERY);
  await near(REMOVED, GRENOBLE);
  // The move's colour runs from the old place to the new: its middle lies between them.
  const moved = await screenPixels(page, MOVED, 12);
  const [lat, lon] = await readoutAt(page, moved.centroid!.x, moved.centroid!.y);
  expect(lat).toBeGreaterThan(ANNECY[2]);
  expect(lat).toBeLessThan(ANNECY_MOVED[2]);
  expect(Math.abs(lon - ANNECY[3])).toBeLessThan(0.03);

  await legend.evaluate((el: HTMLElement) => (el.style.visibility = ''));
  // Hidden from the layer switcher, and gone when closed.
  await page.getByTestId('map-layers').click();
  await page.getByTestId('overlay-diff').uncheck();
  await page.getByTestId('map-layers').click();
  await expect(legend).toHaveCount(0);
  await expect(map).toHaveAttribute('data-settled', 'yes');
  expect((await screenPixels(page, ADDED, 12)).count).toBeLessThan(5);
  await page.getByTestId('map-layers').click();
  await page.getByTestId('overlay-diff').check();
  await page.getByTestId('map-layers').click();
  await page.getByTestId('diff-close').click();
  await expect(map).toHaveAttribute('data-diff-features', '0');
});
