import type { Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { ask, openApp, shot } from './workspace-helpers';

/** Every visible control of the page has a non-empty accessible name. */
async function expectNamedControls(page: Page): Promise<number> {
  const controls = page.locator('button, input:not([type="hidden"]), select, textarea, a[href], [role="tab"], [role="grid"], [tabindex="0"]');
  let checked = 0;
  let gone = 0;
  const all = await controls.all();
  for (const c of all) {
    if (!(await c.isVisible())) continue;
    // A list that redraws while it is walked (the photo detectors' progress in Settings) can end
    // shorter than it began: a control gone since is not waited for, and few may go so.
    const html = await c.evaluate((e) => e.outerHTML.slice(0, 120), undefined, { timeout: 2000 }).catch(() => null);
    if (html === null) {
      gone++;
      continue;
    }
    await expect(c, `control ${html}`).toHaveAccessibleName(/\S/);
    checked++;
  }
  expect(gone, `${gone} of ${all.length} controls went while they were checked`).toBeLessThan(Math.max(3, all.length / 10));
  return checked;
}

/** The element focused now: its test id, else its id. */
const focused = (page: Page) =>
  page.evaluate(() => {
    const el = document.activeElement as HTMLElement | null;
    return el?.dataset['testid'] ?? el?.id ?? el?.tagName ?? '';
  });

test('every button, field and tab has an accessible name, in the composer, results, history and settings', async ({ page, host }) => {
  await openApp(page, host.launchUrl);
  await ask(page, 'airports within 60 km of Lyon');
  await page.getByTestId('ask-more').click();
  await page.getByTestId('result-row').first().locator('button.pick').click();
  expect(await expectNamedControls(page)).toBeGreaterThan(30);
  await page.getByTestId('tab-history').click();
  await expect(page.getByTestId('history-entry').first()).toBeVisible();
  await page.getByTestId('history-check').first().check();
  await expectNamedControls(page);
  await page.getByTestId('open-settings').click();
  await expect(page.getByTestId('cache-size')).toBeVisible();
  await expectNamedControls(page);
  await shot(page, 'workspace-settings');
});

test('Tab reaches the main controls, each with a visible focus ring', async ({ page, host }) => {
  await openApp(page, host.launchUrl);
  await ask(page, 'airports within 60 km of Lyon');
  await page.locator('body').click({ position: { x: 5, y: 790 } });
  const wanted = ['connection-switcher', 'connectivity', 'theme-toggle', 'open-settings', 'tab-ask', 'ask-query', 'ask-limit', 'ask-answer', 'ask-more', 'ask-attach', 'ask-run', 'ask-follow-up-start', 'zoom-results', 'result-table-body'];
  const reached = new Set<string>();
  const noRing: string[] = [];
  for (let i = 0; i < 80 && reached.size < wanted.length; i++) {
    await page.keyboard.press('Tab');
    const id = await focused(page);
    if (!wanted.includes(id) || reached.has(id)) continue;
    reached.add(id);
    const ring = await page.evaluate(() => {
      const s = getComputedStyle(document.activeElement!);
      return s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) >= 1;
    });
    if (!ring) noRing.push(id);
  }
  expect([...reached].sort()).toEqual([...wanted].sort());
  expect(noRing).toEqual([]);
  await page.getByTestId('result-table-body').focus();
  await shot(page, 'workspace-focus-table');
});

test('the results table is usable without the map: arrows move, Enter selects, the map follows', async ({ page, host }) => {
  await openApp(page, host.launchUrl);
  await ask(page, 'airports within 100 km of Geneva');
  const rows = page.getByTestId('result-row');
  expect(await rows.count()).toBeGreaterThan(2);
  // Name order, by keyboard: focus the Name header's sort button and press Enter.
  await page.getByTestId('sort-name').focus();
  await page.keyboard.press('Enter');
  const names = await page.getByTestId('result-name').allTextContents();
  expect(names).toEqual([...names].sort((a, b) => a.localeCompare(b, undefined, { numeric: true, sensitivity: 'base' })));

  await page.getByTestId('result-table-body').focus();
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Enter');
  const third = rows.nth(2);
  await expect(third).toHaveAttribute('aria-selected', 'true');
  await expect(page.getByTestId('map')).toHaveAttribute('data-selected', (await third.getAttribute('data-id'))!);
  await expect(page.getByTestId('feature-details-title')).toHaveText(names[2]!);
  // The active row is announced: the grid points at it.
  await expect(page.getByTestId('result-table-body')).toHaveAttribute('aria-activedescendant', 'ask-row-2');
  // Enter again keeps it (it selects, never unselects); Space toggles it off.
  await page.keyboard.press('Enter');
  await expect(third).toHaveAttribute('aria-selected', 'true');
  await page.keyboard.press('Space');
  await expect(third).toHaveAttribute('aria-selected', 'false');
});

test('dark theme and results below the map: chosen, remembered after a reload, and "as the system" follows it', async ({ page, host }) => {
  await openApp(page, host.launchUrl);
  const bg = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  const luminance = (rgb: string) => {
    const [r, g, b] = rgb.match(/\d+/g)!.map(Number) as [number, number, number];
    return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255;
  };
  await page.emulateMedia({ colorScheme: 'light' });
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'light');
  expect(luminance(await bg())).toBeGreaterThan(0.8);

  await page.getByTestId('theme-toggle').click();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  expect(luminance(await bg())).toBeLessThan(0.2);
  await page.getByTestId('placement-toggle').click();
  await ask(page, 'airports within 60 km of Lyon');
  await page.getByTestId('result-row').first().locator('button.pick').click();
  await expect(page.locator('[data-placement]')).toHaveAttribute('data-placement', 'below');
  const map = (await page.getByTestId('map').boundingBox())!;
  const dock = (await page.getByTestId('results-dock').boundingBox())!;
  expect(dock.y).toBeGreaterThanOrEqual(map.y + map.height - 1);
  await shot(page, 'workspace-dark-below');

  await page.reload();
  await expect(page.getByTestId('map')).toHaveAttribute('data-basemap', 'drawn', { timeout: 30_000 });
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  await expect(page.locator('[data-placement]')).toHaveAttribute('data-placement', 'below');

  // "As the system" follows the system's scheme as it changes.
  await page.getByTestId('open-settings').click();
  await page.getByTestId('theme-system').check();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'light');
  await page.emulateMedia({ colorScheme: 'dark' });
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  await shot(page, 'workspace-dark-settings');
  await page.emulateMedia({ colorScheme: 'light' });
  await page.getByTestId('placement-toggle').click();
});
