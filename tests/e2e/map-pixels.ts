import type { Page } from '@playwright/test';

export interface Rgb {
  r: number;
  g: number;
  b: number;
}

export const hex = (h: string): Rgb => ({
  r: parseInt(h.slice(1, 3), 16),
  g: parseInt(h.slice(3, 5), 16),
  b: parseInt(h.slice(5, 7), 16),
});

/**
 * Pixels of the map's canvases close to a colour: their count, and one interior pixel (one whose
 * neighbours two pixels away share the colour) as page coordinates to click on.
 */
export async function colourPixels(page: Page, colour: Rgb, tolerance = 18): Promise<{ count: number; inside: { x: number; y: number } | null }> {
  return page.evaluate(
    ({ colour, tolerance }) => {
      let count = 0;
      let inside: { x: number; y: number } | null = null;
      for (const canvas of Array.from(document.querySelectorAll<HTMLCanvasElement>('[data-testid="map"] canvas'))) {
        const ctx = canvas.getContext('2d');
        if (!ctx || canvas.width === 0) continue;
        const { width, height } = canvas;
        const { data } = ctx.getImageData(0, 0, width, height);
        const near = (x: number, y: number) => {
          if (x < 0 || y < 0 || x >= width || y >= height) return false;
          const i = (y * width + x) * 4;
          return (
            data[i + 3]! > 200 &&
            Math.abs(data[i]! - colour.r) <= tolerance &&
            Math.abs(data[i + 1]! - colour.g) <= tolerance &&
            Math.abs(data[i + 2]! - colour.b) <= tolerance
          );
        };
        const rect = canvas.getBoundingClientRect();
        for (let y = 0; y < height; y++)
          for (let x = 0; x < width; x++) {
            if (!near(x, y)) continue;
            count++;
            if (!inside && near(x - 2, y) && near(x + 2, y) && near(x, y - 2) && near(x, y + 2))
              inside = { x: rect.left + (x * rect.width) / width, y: rect.top + (y * rect.height) / height };
          }
      }
      return { count, inside };
    },
    { colour, tolerance },
  );
}

/** Pixels of a colour inside a page rectangle, as the screen shows it (canvases and everything over them). */
export async function screenCountIn(page: Page, rect: { x: number; y: number; width: number; height: number }, colour: Rgb, tolerance = 10): Promise<number> {
  const png = await page.screenshot({ clip: rect });
  return page.evaluate(
    async ({ b64, colour, tolerance }) => {
      const img = new Image();
      img.src = `data:image/png;base64,${b64}`;
      await img.decode();
      const canvas = document.createElement('canvas');
      canvas.width = img.width;
      canvas.height = img.height;
      const ctx = canvas.getContext('2d')!;
      ctx.drawImage(img, 0, 0);
      const { data } = ctx.getImageData(0, 0, img.width, img.height);
      let n = 0;
      for (let i = 0; i < data.length; i += 4)
        if (Math.abs(data[i]! - colour.r) <= tolerance && Math.abs(data[i + 1]! - colour.g) <= tolerance && Math.abs(data[i + 2]! - colour.b) <= tolerance) n++;
      return n;
    },
    { b64: png.toString('base64'), colour, tolerance },
  );
}
