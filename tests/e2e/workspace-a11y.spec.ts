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

/** Tab presses from the focused element until `testid` has the focus (at most `max`). */
async function tabsTo(page: Page, testid: string, max = 60): Promise<number> {
  for (let i = 1; i <= max; i++) {
    await page.keyboard.press('Tab');
    if ((await focused(page)) === testid) return i;
  }
  return Infinity;
}

test('from the question, one Tab reaches a visible skip link to the results table; Alt+R goes there too', async ({ page, host }) => {
  await openApp(page, host.launchUrl);
  await ask(page, 'airports within 60 km of Lyon');
  const rows = await page.getByTestId('result-row').count();

  // The long way, counted, for comparison: every control between the question and the table.
  await page.getByTestId('ask-query').focus();
  const longWay = await tabsTo(page, 'result-table-body');
  expect(longWay).toBeGreaterThan(5);

  await page.getByTestId('ask-query').focus();
  const skip = page.getByTestId('skip-to-results');
  // Out of sight until focused, then shown and named for what it does.
  expect((await skip.boundingBox())?.width ?? 0).toBeLessThanOrEqual(1);
  expect(await tabsTo(page, 'skip-to-results', 1)).toBe(1);
  await expect(skip).toHaveAccessibleName(`Skip to the results table (${rows} rows, Alt+R)`);
  expect((await skip.boundingBox())!.width).toBeGreaterThan(100);
  await shot(page, 'a11y-skip-link');
  await page.keyboard.press('Enter');
  expect(await focused(page)).toBe('result-table-body');
  await expect(page.getByTestId('result-table-body')).toHaveAccessibleName(/^Compute results: arrow keys move/);
  await page.keyboard.press('ArrowDown');
  await expect(page.getByTestId('result-table-body')).toHaveAttribute('aria-activedescendant', 'ask-row-1');
  await shot(page, 'a11y-skip-link-table');

  await page.getByTestId('ask-query').focus();
  await page.keyboard.press('Alt+r');
  expect(await focused(page)).toBe('result-table-body');
  // Alt+R typed nothing into the question.
  await expect(page.getByTestId('ask-query')).toHaveValue('airports within 60 km of Lyon');
  console.log(`Tab stops from the question to the results table: ${longWay} without the skip link, 1 + Enter with it`);
});

test('Settings is a labelled modal dialog: takes focus, keeps Tab inside, closes on Esc, gives focus back', async ({ page, host }) => {
  await openApp(page, host.launchUrl);
  await page.getByTestId('open-settings').focus();
  await page.keyboard.press('Enter');
  const dialog = page.getByRole('dialog', { name: 'Settings' });
  await expect(dialog).toBeVisible();
  await expect(dialog).toHaveAttribute('aria-modal', 'true');
  await expect(page.getByTestId('cache-size')).toBeVisible();
  expect(await page.evaluate(() => document.activeElement?.getAttribute('role'))).toBe('dialog');
  // The close button is the first stop.
  await page.keyboard.press('Tab');
  expect(await focused(page)).toBe('settings-close');
  await shot(page, 'a11y-settings-dialog');

  // Around the whole dialog and past its end: the focus never leaves it.
  const stops = await dialog.evaluate((d) =>
    [...d.querySelectorAll<HTMLElement>('a[href], button, input:not([type="hidden"]), select, textarea, summary, [tabindex]')].filter(
      (e) => e.tabIndex >= 0 && !(e as HTMLButtonElement).disabled && e.getClientRects().length > 0,
    ).length,
  );
  expect(stops).toBeGreaterThan(10);
  const inside = () => page.evaluate(() => !!document.activeElement?.closest('[role="dialog"]'));
  for (let i = 0; i < stops + 3; i++) {
    await page.keyboard.press('Tab');
    expect(await inside(), `Tab ${i + 2}`).toBe(true);
  }
  // After a full round the close button comes again, Shift+Tab from it goes to the last control.
  await page.getByTestId('settings-close').focus();
  await page.keyboard.press('Shift+Tab');
  expect(await inside()).toBe(true);
  expect(await focused(page)).not.toBe('settings-close');
  await page.keyboard.press('Tab');
  expect(await focused(page)).toBe('settings-close');

  await page.keyboard.press('Escape');
  await expect(page.getByTestId('settings')).toHaveCount(0);
  expect(await focused(page)).toBe('open-settings');
  await shot(page, 'a11y-settings-closed');
});
