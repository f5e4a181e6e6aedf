import type { Page } from '@playwright/test';
import type { Position } from 'geojson';
import { expect, test } from './fixtures';
import { readoutAt, storeState } from './map-helpers';
import { ask, openApp, shot } from './workspace-helpers';

// Web Mercator written out here: a position in world units (0..1 across the world).
const merc = ([lon, lat]: Position) => {
  const r = (lat! * Math.PI) / 180;
  return [(lon! + 180) / 360, (1 - Math.log(Math.tan(r) + 1 / Math.cos(r)) / Math.PI) / 2] as const;
};

/**
 * Where positions are on the page, from the pointer readout at two points of the map (its
 * centre and near its right edge): the scale and the centre of the view as the screen shows it.
 */
async function pageMapping(page: Page): Promise<(p: Position) => { x: number; y: number }> {
  const box = (await page.getByTestId('map').boundingBox())!;
  const c = { x: box.x + box.width / 2, y: box.y + box.height / 2 };
  const [latC, lonC] = await readoutAt(page, c.x, c.y);
  // As far right as the map reaches (a dock may narrow it), for the finest scale.
  const dx = Math.floor(box.width / 2) - 20;
  const [, lonR] = await readoutAt(page, c.x + dx, c.y);
  const [mx, my] = merc([lonC, latC]);
  const scale = dx / (merc([lonR, latC])[0] - mx);
  return (p) => {
    const [x, y] = merc(p);
    return { x: c.x + (x - mx) * scale, y: c.y + (y - my) * scale };
  };
}

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
