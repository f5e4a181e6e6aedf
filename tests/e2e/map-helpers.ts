import type { Page } from '@playwright/test';
import type { Position } from 'geojson';
import type { Rgb } from './map-pixels';

/**
 * Pixels of a colour on the map as the screen shows it (a screenshot of the map's box, decoded
 * in the page): works for WebGL layers too, whose canvases cannot be read back with 2D calls.
 * Returns their count, their centroid and one interior pixel (page coordinates).
 */
export async function screenPixels(
  page: Page,
  colour: Rgb,
  tolerance = 18,
): Promise<{ count: number; centroid: { x: number; y: number } | null; inside: { x: number; y: number } | null }> {
  const box = (await page.getByTestId('map').boundingBox())!;
  const png = await page.screenshot({ clip: box });
  return page.evaluate(
    async ({ b64, colour, tolerance, box }) => {
      const img = new Image();
      img.src = `data:image/png;base64,${b64}`;
      await img.decode();
      const canvas = document.createElement('canvas');
      canvas.width = img.width;
      canvas.height = img.height;
      const ctx = canvas.getContext('2d')!;
      ctx.drawImage(img, 0, 0);
      const { data, width, height } = ctx.getImageData(0, 0, img.width, img.height);
      const near = (x: number, y: number) => {
        if (x < 0 || y < 0 || x >= width || y >= height) return false;
        const i = (y * width + x) * 4;
        return (
          Math.abs(data[i]! - colour.r) <= tolerance &&
          Math.abs(data[i + 1]! - colour.g) <= tolerance &&
          Math.abs(data[i + 2]! - colour.b) <= tolerance
        );
      };
      let count = 0;
      let sx = 0;
      let sy = 0;
      let inside: { x: number; y: number } | null = null;
      const sx2 = box.width / width;
      const sy2 = box.height / height;
      for (let y = 0; y < height; y++)
        for (let x = 0; x < width; x++) {
          if (!near(x, y)) continue;
          count++;
          sx += x;
          sy += y;
          if (!inside && near(x - 1, y) && near(x + 1, y) && near(x, y - 1) && near(x, y + 1))
            inside = { x: box.x + x * sx2, y: box.y + y * sy2 };
        }
      const centroid = count ? { x: box.x + (sx / count) * sx2, y: box.y + (sy / count) * sy2 } : null;
      return { count, centroid, inside };
    },
    { b64: png.toString('base64'), colour, tolerance, box },
  );
}

/** Calls an action of a Pinia store of the running app (its setup stores are what the UI uses). */
export async function storeCall(page: Page, store: string, action: string, ...args: unknown[]): Promise<unknown> {
  return page.evaluate(
    ({ store, action, args }) => {
      const app = (document.getElementById('app') as unknown as { __vue_app__: { config: { globalProperties: { $pinia: { _s: Map<string, Record<string, unknown>> } } } } }).__vue_app__;
      const s = app.config.globalProperties.$pinia._s.get(store)!;
      const value = (s[action] as (...a: unknown[]) => unknown)(...args);
      return JSON.parse(JSON.stringify(value ?? null)) as unknown;
    },
    { store, action, args },
  );
}

/** Reads a state value of a Pinia store, as JSON. */
export async function storeState<T>(page: Page, store: string, key: string): Promise<T> {
  return page.evaluate(
    ({ store, key }) => {
      const app = (document.getElementById('app') as unknown as { __vue_app__: { config: { globalProperties: { $pinia: { _s: Map<string, Record<string, unknown>> } } } } }).__vue_app__;
      return JSON.parse(JSON.stringify(app.config.globalProperties.$pinia._s.get(store)![key] ?? null)) as T;
    },
    { store, key },
  );
}

/**
 * Shows `n` synthetic point results on the Ask layer (built in the page: 100k features do not
 * travel well through the test protocol). Points fill the box [lon0, lat0, lon1, lat1].
 */
export async function showPoints(page: Page, n: number, box: [number, number, number, number], extra: Record<string, unknown> = {}): Promise<void> {
  await page.evaluate(
    ({ n, box, extra }) => {
      const app = (document.getElementById('app') as unknown as { __vue_app__: { config: { globalProperties: { $pinia: { _s: Map<string, Record<string, unknown>> } } } } }).__vue_app__;
      const map = app.config.globalProperties.$pinia._s.get('map')!;
      const side = Math.ceil(Math.sqrt(n));
      const features = Array.from({ length: n }, (_, i) => ({
        type: 'Feature',
        id: `p${i}`,
        geometry: {
          type: 'Point',
          coordinates: [box[0] + ((box[2] - box[0]) * (i % side)) / side, box[1] + ((box[3] - box[1]) * Math.floor(i / side)) / side],
        },
        properties: { name: `Point ${i}`, ...extra },
      }));
      (map['show'] as (l: string, c: unknown) => void)('ask', { type: 'FeatureCollection', features });
    },
    { n, box, extra },
  );
}

/** The pointer's position as the map's coordinate readout shows it: [lat, lon]. */
export async function readoutAt(page: Page, x: number, y: number): Promise<[number, number]> {
  await page.mouse.move(x, y);
  const text = await page.getByTestId('map-coordinates').textContent();
  const [lat, lon] = (text ?? '').split(',').map((s) => Number(s.trim()));
  return [lat!, lon!];
}

// Web Mercator written out here: a position in world units (0..1 across the world).
const merc = ([lon, lat]: Position) => {
  const r = (lat! * Math.PI) / 180;
  return [(lon! + 180) / 360, (1 - Math.log(Math.tan(r) + 1 / Math.cos(r)) / Math.PI) / 2] as const;
};

/**
 * Where positions are on the page, from the pointer readout at two points of the map (its
 * centre and near its right edge): the scale and the centre of the view as the screen shows it.
 */
export async function pageMapping(page: Page): Promise<(p: Position) => { x: number; y: number }> {
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
