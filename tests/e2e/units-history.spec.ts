/**
 * One units setting speaks everywhere: the answer, table, chips, notes and scale bar of the Compute
 * tab, and an entry reopened from History, asked before the units were changed. Every expected
 * figure is worked out here from the raw metres (1 mi = 1609.344 m; lengths under a tenth of a mile
 * read in the short unit; one decimal under 100).
 */
import type { Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { storeState } from './map-helpers';
import { ask, openApp, shot } from './workspace-helpers';

const MI = 1609.344;
const miles = (m: number) => (m < MI / 10 ? `${Math.round(m).toLocaleString('en-US')} m` : `${m / MI < 100 ? Math.round((m / MI) * 10) / 10 : Math.round(m / MI).toLocaleString('en-US')} mi`);

interface Feature {
  properties: { name: string; distance_meters?: number };
}

async function shownResponse(page: Page) {
  return storeState<{ answer: { content: string }; results: { features: Feature[] } }>(page, 'ask', 'response');
}

/** The first metric length of the service's prose, in metres. */
function firstLength(text: string): { said: string; metres: number } {
  const m = /(\d[\d,]*(?:\.\d+)?) ?(km|m)\b/.exec(text)!;
  return { said: m[0], metres: Number(m[1]!.replace(/,/g, '')) * (m[2] === 'km' ? 1000 : 1) };
}

test('miles with metres: a History entry asked in kilometres reopens in miles, like the answer, table, chips, notes and scale bar', async ({ page, host }) => {
  await openApp(page, host.launchUrl);
  const question = 'airports within 100 km of Geneva';
  await ask(page, question);
  const res = await shownResponse(page);
  const metresOf = new Map(res.results.features.map((f) => [f.properties.name, f.properties.distance_meters!]));
  const first = firstLength(res.answer.content);
  expect(first.metres).toBeGreaterThan(MI / 10);

  await page.getByTestId('open-settings').click();
  await page.getByTestId('units-mi').check();
  await page.getByTestId('units-m').check();
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('settings')).toHaveCount(0);

  // The Compute tab: answer, table, chip, notes.
  const answer = page.getByTestId('ask-answer-text');
  await expect(answer).toContainText(miles(first.metres));
  await expect(answer).not.toContainText(/\d km\b/);
  const names = await page.getByTestId('result-name').allTextContents();
  const cells = await page.getByTestId('result-distance').allTextContents();
  expect(cells.length).toBe(names.length);
  names.forEach((n, i) => expect(cells[i], n).toBe(miles(metresOf.get(n)!)));
  const relation = page.locator('[data-testid="reading-chip"][data-part="relation"]');
  await expect(relation.getByTestId('reading-units')).toHaveText(`(${miles(100_000)})`);
  const notes = page.getByTestId('warning-text');
  await expect(notes.filter({ hasText: /^read as:/ })).toContainText(`within ${miles(100_000)} of Genève`);
  for (const t of await notes.allTextContents()) expect(t).not.toMatch(/\d (km|ft)\b/);
  await expect(page.locator('.ol-scale-line-inner')).toHaveText(/^[\d.,]+ mi$/);
  await shot(page, 'units-history-compute');

  // Zoomed in to a few hundred metres: the scale bar reads metres (not feet).
  // One zoom at a time: a click during the last one's animation cancels it (OpenLayers' Zoom control).
  for (let i = 0; i < 7; i++) {
    await page.locator('.ol-zoom-in').click();
    await page.waitForTimeout(400);
  }
  await expect(page.locator('.ol-scale-line-inner')).toHaveText(/^[\d.,]+ m$/, { timeout: 10_000 });
  await shot(page, 'units-history-scale-metres');

  // The entry, reopened from History.
  await page.getByTestId('tab-history').click();
  await page.getByTestId('history-entry').filter({ hasText: question }).first().getByTestId('history-open').click();
  const reopened = page.getByTestId('history-answer-text');
  await expect(reopened).toContainText(miles(first.metres));
  await expect(reopened).not.toContainText(/\d km\b/);
  await expect(page.getByTestId('history-title')).toHaveText(question);
  const histNames = await page.locator('[data-testid="result-list"] [data-testid="result-name"]').allTextContents();
  const histCells = await page.locator('[data-testid="result-list"] [data-testid="result-distance"]').allTextContents();
  expect(histNames.length).toBe(metresOf.size);
  histNames.forEach((n, i) => expect(histCells[i]!.trim(), n).toBe(miles(metresOf.get(n.trim())!)));
  const histNotes = page.getByTestId('side-panel').getByTestId('warning-text');
  await expect(histNotes.filter({ hasText: /^read as:/ })).toContainText(`within ${miles(100_000)} of Genève`);
  await shot(page, 'units-history-reopened');
});
