import type { Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { rpcCall } from './rpc';
import { openApp } from './workspace-helpers';

const QUESTION = 'which of my sites are within 80 km of an airport';
const TOLERANCE_M = 25;

type Row = Record<string, string>;
const csv = (rows: Row[]) => [Object.keys(rows[0]!).join(','), ...rows.map((r) => Object.values(r).join(','))].join('\n');

// Four sites near airports, then the file updated: one moved 10 km, one dropped, one added, sent under another name.
const FIRST: Row[] = [
  { site_id: 'S1', name: 'Lyon depot', lat: '45.7485', lon: '4.8467' },
  { site_id: 'S2', name: 'Annecy store', lat: '45.8992', lon: '6.1294' },
  { site_id: 'S3', name: 'Grenoble yard', lat: '45.1885', lon: '5.7245' },
  { site_id: 'S4', name: 'Chambery shop', lat: '45.5646', lon: '5.9178' },
];
const SECOND: Row[] = [
  { site_id: 'S1', name: 'Lyon depot', lat: '45.7485', lon: '4.8467' },
  { site_id: 'S2', name: 'Annecy store', lat: '45.9892', lon: '6.1294' },
  { site_id: 'S4', name: 'Chambery shop', lat: '45.5646', lon: '5.9178' },
  { site_id: 'S5', name: 'Valence depot', lat: '44.9334', lon: '4.8924' },
];

function metres(a: Row, b: Row): number {
  const r = Math.PI / 180;
  const [la1, lo1, la2, lo2] = [a['lat'], a['lon'], b['lat'], b['lon']].map(Number) as [number, number, number, number];
  const h = Math.sin(((la2 - la1) * r) / 2) ** 2 + Math.cos(la1 * r) * Math.cos(la2 * r) * Math.sin(((lo2 - lo1) * r) / 2) ** 2;
  return 2 * 6_371_008.8 * Math.asin(Math.sqrt(h));
}

/** The counts read from the two files alone, rows paired by `pair`. */
function expected(first: Row[], second: Row[], pair: (a: Row, b: Row) => boolean) {
  const matched = second.map((b) => first.find((a) => pair(a, b)));
  const moved = matched.filter((a, i) => a && metres(a, second[i]!) > TOLERANCE_M).length;
  const added = matched.filter((a) => !a).length;
  const removed = first.filter((a) => !second.some((b) => pair(a, b))).length;
  return `${added} added · ${removed} removed · ${moved} moved · 0 changed · ${second.length - added - moved} unchanged`;
}

async function run(page: Page, rows: Row[], file: string): Promise<number> {
  const r = await rpcCall<{ queryId: number; response: { results: { numberReturned: number } } }>(page, 'compute.run', {
    request: { query: QUESTION, answer: false },
    attachments: [{ field: 'files', name: file, contentType: 'text/csv', dataBase64: Buffer.from(csv(rows)).toString('base64') }],
  });
  // Every site is near an airport: each run answers all of its file.
  expect(r.response.results.numberReturned).toBe(rows.length);
  return r.queryId;
}

async function compare(page: Page, a: number, b: number): Promise<void> {
  const panel = page.getByTestId('run-compare');
  if (!(await panel.isVisible())) await page.getByTestId('open-field-kit').click();
  await page.getByTestId('cmp-old').fill(String(a));
  await page.getByTestId('cmp-new').fill(String(b));
  await page.getByTestId('cmp-tolerance').fill(String(TOLERANCE_M));
  await page.getByTestId('cmp-run').click();
}

test('compare runs pairs an updated upload by its id column, else its names, else position; History shows the entry numbers', async ({ page, host }) => {
  await openApp(page, host.launchUrl);
  const summary = page.getByTestId('cmp-summary');

  // An id column: one moved, one dropped, one added.
  const a = await run(page, FIRST, 'sites.csv');
  const b = await run(page, SECOND, 'sites-updated.csv');
  await compare(page, a, b);
  await expect(summary).toHaveText(expected(FIRST, SECOND, (x, y) => x['site_id'] === y['site_id']));
  await expect(summary).toHaveText('1 added · 1 removed · 1 moved · 0 changed · 2 unchanged');
  await expect(page.getByTestId('cmp-key')).toContainText('id column');
  await page.getByTestId('run-compare').scrollIntoViewIfNeeded();
  await page.screenshot({ path: 'test-results/compare-keys-id.png' });

  // Names only, the rows in another order.
  const strip = (rows: Row[]) => rows.map(({ name, lat, lon }) => ({ name: name!, lat: lat!, lon: lon! }));
  const c = await run(page, strip(FIRST), 'names.csv');
  const d = await run(page, strip(SECOND).reverse(), 'names-2.csv');
  await compare(page, c, d);
  await expect(summary).toHaveText(expected(strip(FIRST), strip(SECOND), (x, y) => x['name'] === y['name']));
  await expect(page.getByTestId('cmp-key')).toContainText('name column');

  // Neither: rows pair by position within the tolerance, so the moved site is one dropped and one added.
  const bare = (rows: Row[]) => rows.map(({ lat, lon, site_id }) => ({ lat: lat!, lon: lon!, capacity: String(site_id!.charCodeAt(1)) }));
  const e = await run(page, bare(FIRST), 'bare.csv');
  const f = await run(page, bare(SECOND), 'bare.csv');
  await compare(page, e, f);
  await expect(summary).toHaveText(expected(bare(FIRST), bare(SECOND), (x, y) => metres(x, y) <= TOLERANCE_M));
  await expect(page.getByTestId('cmp-key')).toContainText('position');
  await page.screenshot({ path: 'test-results/compare-keys-position.png' });

  // History numbers its entries as the comparison asks for them.
  await page.getByTestId('open-field-kit').click();
  await page.getByTestId('tab-history').click();
  for (const id of [a, b])
    await expect(page.locator(`[data-testid="history-entry"][data-id="${id}"]`).getByTestId('history-number')).toHaveText(`#${id}`);
  await page.screenshot({ path: 'test-results/compare-keys-history.png' });
});
