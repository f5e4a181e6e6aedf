import type { Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { ask, openApp, shot } from './workspace-helpers';

type Low = { text: string; ratio: number; fg: string; bg: string; where: string };

/**
 * Every visible text of the page against what is behind it, by WCAG 2 relative luminance:
 * colours from computed styles, backgrounds composited up the ancestor chain (the map's own
 * colour stands in for the canvas under its controls). Disabled controls are exempt (WCAG 1.4.3).
 */
function lowContrast(page: Page): Promise<Low[]> {
  return page.evaluate(() => {
    const parse = (c: string): [number, number, number, number] => {
      const m = c.match(/rgba?\(([^)]+)\)/);
      if (!m) return [0, 0, 0, 0];
      const p = m[1]!.split(/[ ,/]+/).filter(Boolean).map(Number);
      return [p[0]!, p[1]!, p[2]!, p[3] ?? 1];
    };
    const over = (top: number[], under: number[]) => {
      const a = top[3]!;
      return [0, 1, 2].map((i) => top[i]! * a + under[i]! * (1 - a)).concat(1);
    };
    const lum = (c: number[]) => {
      const f = (v: number) => {
        const s = v / 255;
        return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
      };
      return 0.2126 * f(c[0]!) + 0.7152 * f(c[1]!) + 0.0722 * f(c[2]!);
    };
    const mapBg = parse(getComputedStyle(document.documentElement).getPropertyValue('--fl-map-bg').trim().replace(/^#(..)(..)(..)$/, (_, r, g, b) => `rgb(${parseInt(r, 16)}, ${parseInt(g, 16)}, ${parseInt(b, 16)})`));
    const background = (el: Element): number[] => {
      const chain: number[][] = [];
      for (let e: Element | null = el; e; e = e.parentElement) {
        const s = getComputedStyle(e);
        const bg = parse(s.backgroundColor);
        if (bg[3] > 0) chain.push(bg);
        if (bg[3] >= 1) break;
        if (e.classList.contains('map-view')) {
          chain.push(mapBg);
          break;
        }
      }
      let out = [255, 255, 255, 1];
      for (const c of chain.reverse()) out = over(c, out);
      return out;
    };
    const low: Low[] = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const text = n.textContent!.trim();
      const el = n.parentElement;
      if (!text || !el || el.closest('svg, canvas, option, [aria-hidden="true"], .sr-only')) continue;
      if ((el.closest('button, input, select, textarea') as HTMLButtonElement | null)?.disabled) continue;
      const r = el.getBoundingClientRect();
      const s = getComputedStyle(el);
      if (r.width === 0 || r.height === 0 || s.visibility !== 'visible' || Number(s.opacity) === 0) continue;
      const bg = background(el);
      const fg = over(parse(s.color), bg);
      const [a, b] = [lum(fg), lum(bg)].sort((x, y) => y - x) as [number, number];
      const ratio = (a + 0.05) / (b + 0.05);
      if (ratio < 4.5) low.push({ text: text.slice(0, 40), ratio: Math.round(ratio * 100) / 100, fg: s.color, bg: `rgb(${bg.slice(0, 3).map(Math.round).join(', ')})`, where: el.className || el.tagName });
    }
    return low;
  });
}

for (const theme of ['light', 'dark'] as const) {
  test(`every text reads at 4.5:1 or more in the ${theme} theme`, async ({ page, host }) => {
    await page.emulateMedia({ colorScheme: theme });
    await openApp(page, host.launchUrl);
    await expect(page.locator('html')).toHaveAttribute('data-theme', theme);
    await ask(page, 'airports within 100 km of Geneva');
    await page.getByTestId('result-row').first().click();
    const workspace = await lowContrast(page);

    await page.getByTestId('open-field-kit').click();
    await page.getByTestId('evidence-create').click();
    await expect(page.getByTestId('evidence-made')).toBeVisible();
    const path = (await page.getByTestId('evidence-path').textContent())!.trim();
    const fieldKit = await lowContrast(page);
    await page.getByTestId('open-settings').click();
    await page.getByTestId('evidence-path-input').fill(path);
    await page.getByTestId('evidence-verify').click();
    await expect(page.getByTestId('evidence-report')).toContainText('Intact');
    await page.getByTestId('evidence-report').scrollIntoViewIfNeeded();
    const settings = await lowContrast(page);
    await shot(page, `contrast-${theme}`);
    expect({ workspace, fieldKit, settings }).toEqual({ workspace: [], fieldKit: [], settings: [] });
  });
}
