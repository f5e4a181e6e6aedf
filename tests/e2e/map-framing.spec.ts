import type { Page } from '@playwright/test';
import type { Position } from 'geojson';
import { expect, test } from './fixtures';
import { pageMapping, storeState } from './map-helpers';
import { ask, openApp, shot } from './workspace-helpers';

/** Each result's position on the page and what the page shows there (a map canvas, or what covers it). */
async function whereResultsAre(page: Page) {
  const collections = await storeState<Record<string, { features: { geometry: { coordinates: Position } }[] } | null>>(page, 'map', 'collections');
  const points = collections['ask']!.features.map((f) => f.geometry.coordinates);
  const toPage = await pageMapping(page);
  const at = points.map(toPage);
  const hits = await page.evaluate(
    (at) =>
      at.map(({ x, y }) => {
        const el = document.elementFromPoint(x, y);
        const map = document.querySelector('[data-testid="map"]');
        return el instanceof HTMLCanvasElement && !!map?.contains(el) ? 'map' : (el?.getAttribute('data-testid') ?? el?.className ?? el?.tagName ?? 'nothing');
      }),
    at,
  );
  return { points, at, hits };
}

test('the first answer is framed: every result inside the view, none under the map controls or a dock', async ({ page, host }) => {
  await openApp(page, host.launchUrl);
  await ask(page, 'airports within 50 km of Lyon');
  const map = page.getByTestId('map');
  await page.waitForTimeout(600);
  await expect(map).toHaveAttribute('data-settled', 'yes', { timeout: 15_000 });
  await page.mouse.move(0, 0);
  await shot(page, 'map-first-answer-framed');
  const { points, at, hits } = await whereResultsAre(page);
  expect(points.length).toBeGreaterThan(1);
  const box = (await map.boundingBox())!;
  at.forEach((p, i) => {
    expect(p.x, `result ${i} x`).toBeGreaterThan(box.x);
    expect(p.x, `result ${i} x`).toBeLessThan(box.x + box.width);
    expect(p.y, `result ${i} y`).toBeGreaterThan(box.y);
    expect(p.y, `result ${i} y`).toBeLessThan(box.y + box.height);
  });
  expect(hits).toEqual(points.map(() => 'map'));
});
