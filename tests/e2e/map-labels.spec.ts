import type { Page } from '@playwright/test';
import type { Position } from 'geojson';
import { expect, test } from './fixtures';
import { pageMapping, storeCall, storeState } from './map-helpers';
import { ask, openApp, shot } from './workspace-helpers';

/** The label text colour of results (renderer/src/map/resultStyles.ts), written out here. */
const LABEL = { r: 0x3d, g: 0x4a, b: 0x58 };
type Box = { x: number; y: number; width: number; height: number };

/** Label-coloured pixels of the map's canvases inside each box (page coordinates). */
async function labelPixelsIn(page: Page, boxes: Box[]): Promise<number[]> {
  return page.evaluate(
    ({ boxes, c }) => {
      const counts = boxes.map(() => 0);
      for (const canvas of Array.from(document.querySelectorAll<HTMLCanvasElement>('[data-testid="map"] canvas'))) {
        const ctx = canvas.getContext('2d');
        if (!ctx || canvas.width === 0) continue;
        const rect = canvas.getBoundingClientRect();
        const sx = canvas.width / rect.width;
        const sy = canvas.height / rect.height;
        boxes.forEach((b, k) => {
          const x0 = Math.max(0, Math.floor((b.x - rect.left) * sx));
          const y0 = Math.max(0, Math.floor((b.y - rect.top) * sy));
          const x1 = Math.min(canvas.width, Math.ceil((b.x + b.width - rect.left) * sx));
          const y1 = Math.min(canvas.height, Math.ceil((b.y + b.height - rect.top) * sy));
          if (x1 <= x0 || y1 <= y0) return;
          const { data } = ctx.getImageData(x0, y0, x1 - x0, y1 - y0);
          for (let i = 0; i < data.length; i += 4)
            if (data[i + 3]! > 200 && Math.abs(data[i]! - c.r) <= 6 && Math.abs(data[i + 1]! - c.g) <= 6 && Math.abs(data[i + 2]! - c.b) <= 6) counts[k]!++;
        });
      }
      return counts;
    },
    { boxes, c: LABEL },
  );
}

/** Every control over the map, as the page lays it out. */
async function controlBoxes(page: Page): Promise<Box[]> {
  return page.evaluate(() =>
    Array.from(document.querySelectorAll('.map-wrap .ol-control, .map-wrap .ol-scale-line, .map-wrap [data-map-control]'))
      .map((el) => el.getBoundingClientRect())
      .filter((r) => r.width > 0 && r.height > 0)
      .map((r) => ({ x: r.left, y: r.top, width: r.width, height: r.height })),
  );
}

test('result labels are never drawn under the map controls, even with a result right below one', async ({ page, host }) => {
  await openApp(page, host.launchUrl);
  await ask(page, 'airports within 150 km of Lyon');
  const map = page.getByTestId('map');
  await expect(map).toHaveAttribute('data-settled', 'yes', { timeout: 15_000 });
  const collections = await storeState<Record<string, { features: { properties: { name: string }; geometry: { coordinates: Position } }[] } | null>>(page, 'map', 'collections');
  const features = collections['ask']!.features;
  expect(features.length).toBeGreaterThan(1);
  expect(features.length).toBeLessThanOrEqual(50); // every result is labelled

  // Pan the map with the keyboard (128 px a step) until some result's label would fall on a control:
  // where that happens depends on the window and the docks, so the steps walk until it does.
  await map.focus();
  const widths = await page.evaluate((names) => {
    const ctx = document.createElement('canvas').getContext('2d')!;
    ctx.font = '12px system-ui, sans-serif';
    return names.map((n) => ctx.measureText(n).width);
  }, features.map((f) => f.properties.name));
  let controls: Box[] = [];
  let wouldCover: typeof features = [];
  for (const key of ['ArrowRight', 'ArrowRight', 'ArrowDown', 'ArrowDown', 'ArrowRight', 'ArrowDown', 'ArrowRight', 'ArrowDown', 'ArrowRight', 'ArrowDown']) {
    await map.focus();
    await page.keyboard.press(key);
    await page.waitForTimeout(400);
    await expect(map).toHaveAttribute('data-settled', 'yes', { timeout: 15_000 });
    const toPage = await pageMapping(page);
    controls = await controlBoxes(page);
    // Where each label would be (above its dot, its width as the page measures the text).
    wouldCover = features.filter((f, i) => {
      const p = toPage(f.geometry.coordinates);
      const l = { x: p.x - widths[i]! / 2, y: p.y - 17 - 8, width: widths[i]!, height: 16 };
      return controls.some((c) => l.x < c.x + c.width && c.x < l.x + l.width && l.y < c.y + c.height && c.y < l.y + l.height);
    });
    if (wouldCover.length) break;
  }
  await page.mouse.move(0, 0);
  await page.waitForTimeout(500);
  await shot(page, 'map-labels-clear-of-controls');
  expect(controls.length).toBeGreaterThanOrEqual(3);
  expect(wouldCover.length, 'a label that would fall on a control').toBeGreaterThan(0);

  const mapBox = (await map.boundingBox())!;
  const shown = await labelPixelsIn(page, [...controls, mapBox]);
  await storeCall(page, 'map', 'setOverlay', 'results', false);
  await page.waitForTimeout(500);
  const hidden = await labelPixelsIn(page, [...controls, mapBox]);
  await storeCall(page, 'map', 'setOverlay', 'results', true);

  // Labels are drawn on the map...
  expect(shown.at(-1)! - hidden.at(-1)!).toBeGreaterThan(50);
  // ...and none of their pixels under any control (what the basemap draws there is not counted).
  controls.forEach((c, k) => expect(shown[k]! - hidden[k]!, `control ${k} at ${Math.round(c.x)},${Math.round(c.y)}`).toBeLessThanOrEqual(0));
});
