import { readFileSync } from 'node:fs';
import { expect, test } from './fixtures';

const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };

test('opens on the offline basemap and shows the version read over RPC', async ({ page, host }) => {
  const cspViolations: string[] = [];
  page.on('console', (m) => {
    if (/Content Security Policy/i.test(m.text())) cspViolations.push(m.text());
  });
  // Nothing may leave the machine: the basemap is bundled.
  const external: string[] = [];
  page.on('request', (r) => {
    if (!r.url().startsWith(host.url) && !r.url().startsWith('ws://127.0.0.1') && !r.url().startsWith('data:'))
      external.push(r.url());
  });

  await page.goto(host.launchUrl);
  await expect(page).toHaveURL(host.url); // token moved from the address bar into a cookie
  await expect(page.getByTestId('map')).toHaveAttribute('data-basemap', 'drawn', { timeout: 30_000 });

  // Count drawn pixels by colour: land fill and border strokes must both be on the canvas.
  const pixels = await page.evaluate(() => {
    let land = 0;
    let border = 0;
    let total = 0;
    for (const canvas of Array.from(document.querySelectorAll<HTMLCanvasElement>('[data-testid="map"] canvas'))) {
      const ctx = canvas.getContext('2d');
      if (!ctx || canvas.width === 0) continue;
      const { data } = ctx.getImageData(0, 0, canvas.width, canvas.height);
      for (let i = 0; i < data.length; i += 4) {
        total++;
        const [r, g, b, a] = [data[i]!, data[i + 1]!, data[i + 2]!, data[i + 3]!];
        if (a > 200 && Math.abs(r - 0xee) < 6 && Math.abs(g - 0xf0) < 6 && Math.abs(b - 0xe6) < 6) land++;
        else if (a > 60 && Math.abs(r - g) < 24 && b > r && b - r < 40 && r < 0xb0) border++;
      }
    }
    return { land, border, total };
  });
  expect(pixels.total).toBeGreaterThan(500_000);
  expect(pixels.land / pixels.total).toBeGreaterThan(0.1);
  expect(pixels.border).toBeGreaterThan(500);

  await expect(page.getByTestId('app-version')).toHaveText(`Fieldlens ${pkg.version}`);
  await expect(page.getByTestId('connection')).toContainText('Local');
  await page.screenshot({ path: 'test-results/app-basemap.png' });

  expect(cspViolations).toEqual([]);
  expect(external).toEqual([]);
});

test('without the token the page is refused', async ({ page, host }) => {
  const response = await page.goto(host.url);
  expect(response?.status()).toBe(401);
});
