import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Page } from '@playwright/test';
import { addPackTiles } from '../support/pack-tiles';
import { expect, test } from './fixtures';
import { readoutAt, screenPixels } from './map-helpers';

/** The colour of every packed basemap tile: found nowhere else on the map. */
const TILE = { r: 235, g: 95, b: 25 };
/** The pack's area (a box here) and the tile zooms packed for it. */
const AREA = { west: 4.3, south: 45.2, east: 5.5, north: 46.2 };
const TILE_ZOOMS = [0, 1, 2, 3, 4];

async function mapSettled(page: Page): Promise<void> {
  // Tile loads start a frame after the change that caused them.
  await page.waitForTimeout(400);
  await expect(page.getByTestId('map')).toHaveAttribute('data-settled', 'yes', { timeout: 15_000 });
}

/** A second install: the built browser host on an empty data folder. */
async function freshHost(): Promise<{ launchUrl: string; dataDir: string; stop(): Promise<void> }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'fl-e2e-fresh-'));
  const child = spawn(process.execPath, ['out/main/host.js', '--json', '--no-detect', '--data-dir', dataDir], { stdio: ['ignore', 'pipe', 'inherit'] });
  const first = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`host exited early (${code})`)));
  });
  const info = JSON.parse(first) as { launchUrl: string };
  return {
    launchUrl: info.launchUrl,
    dataDir,
    async stop() {
      // The host writes its log until it exits: remove its folder only then.
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

test('area pack: estimate and pack an area around Lyon, then a fresh install opens it into History', async ({ page, host, browser }) => {
  test.setTimeout(120_000);
  await page.goto(host.launchUrl);
  await expect(page.getByTestId('map')).toHaveAttribute('data-basemap', 'drawn', { timeout: 30_000 });
  await page.getByTestId('tab-ask').click();
  await page.getByTestId('ask-query').fill('airports within 40 km of Lyon');
  await page.getByTestId('ask-run').click();
  await expect(page.getByTestId('ask-count')).toBeVisible({ timeout: 30_000 });

  await page.getByTestId('open-field-kit').click();
  const section = page.getByTestId('area-pack');
  await section.scrollIntoViewIfNeeded();
  await page.getByTestId('pack-drawn').check();
  await page.getByTestId('pack-area').fill('45.2, 4.3\n45.2, 5.5\n46.2, 5.5\n46.2, 4.3');
  const path = join(host.dataDir, 'carry', 'lyon.gpkg');
  await page.getByTestId('pack-path').fill(path);
  await page.getByTestId('pack-estimate').click();
  await expect(page.getByTestId('pack-est-queries')).toContainText(/^[1-9]\d* \(/);
  await page.getByTestId('pack-create').click();
  await expect(page.getByTestId('pack-done')).toContainText('lyon.gpkg', { timeout: 30_000 });
  expect(existsSync(path)).toBe(true);
  const tiles = addPackTiles(path, AREA, TILE_ZOOMS, [TILE.r, TILE.g, TILE.b]);
  await section.scrollIntoViewIfNeeded();
  await page.screenshot({ path: 'test-results/fieldkit-pack.png' });

  // An area that is not a polygon is refused in words before anything runs.
  await page.getByTestId('pack-area').fill('45.2, 4.3\nnowhere');
  await page.getByTestId('pack-estimate').click();
  await expect(page.getByTestId('pack-area-error')).toContainText('Line 2');

  const fresh = await freshHost();
  try {
    const other = await browser.newPage();
    await other.goto(fresh.launchUrl);
    await expect(other.getByTestId('map')).toHaveAttribute('data-basemap', 'drawn', { timeout: 30_000 });
    await other.getByTestId('tab-history').click();
    await expect(other.getByTestId('history-empty')).toBeVisible({ timeout: 30_000 });
    await other.getByTestId('open-field-kit').click();
    await other.getByTestId('area-pack').scrollIntoViewIfNeeded();
    // An area drawn on the map (left of the Field kit) lands in the area field, a corner per line.
    await other.getByTestId('pack-drawn').check();
    await other.getByTestId('pack-draw').click();
    const box = (await other.getByTestId('map').boundingBox())!;
    await other.mouse.click(box.x + 100, box.y + 200);
    await other.mouse.click(box.x + 300, box.y + 200);
    await other.mouse.dblclick(box.x + 300, box.y + 400);
    await expect(other.getByTestId('pack-area')).toHaveValue(/^-?\d+\.\d{6}, -?\d+\.\d{6}(\n-?\d+\.\d{6}, -?\d+\.\d{6}){2}$/);
    await expect(other.getByTestId('pack-draw')).toHaveText('Draw on the map');
    await other.getByTestId('pack-estimate').click();
    await expect(other.getByTestId('pack-est-queries')).toContainText(/^0 \(/);
    // Before opening, the fresh install has no packed tiles to list or draw.
    await other.getByTestId('map-layers').click();
    await expect(other.getByTestId('layer-switcher')).toBeVisible();
    await expect(other.getByTestId('packed-tiles')).toHaveCount(0);
    await other.getByTestId('map-layers').click();
    await other.getByTestId('pack-open-path').fill(path);
    await other.getByTestId('pack-open').click();
    await expect(other.getByTestId('pack-opened')).toContainText(/Added [1-9]\d* questions?,/);
    await expect(other.getByTestId('pack-opened')).toContainText(`${tiles.length} basemap tiles`);
    await expect(other.getByTestId('history-list')).toContainText('airports within 40 km of Lyon');
    await other.getByTestId('area-pack').scrollIntoViewIfNeeded();
    await other.screenshot({ path: 'test-results/fieldkit-pack-opened.png' });

    // Offline, the map draws the pack's tiles from the cache: at the start view (zoom 2) the one
    // zoom-2 tile over the area, 256 px square, lon 0..90 and lat 0..66.5 (its slippy-map bounds).
    await other.context().setOffline(true);
    await other.getByTestId('field-kit-close').click();
    await other.getByTestId('map-layers').click();
    await expect(other.getByTestId('layer-switcher')).toContainText(`Packed tiles (${tiles.length})`);
    await expect(other.getByTestId('packed-tiles')).toBeChecked();
    await other.getByTestId('map-layers').click();
    await mapSettled(other);
    const drawn = await screenPixels(other, TILE, 8);
    await other.screenshot({ path: 'test-results/fieldkit-pack-tiles-offline.png' });
    expect(drawn.count).toBeGreaterThan(256 * 256 * 0.8);
    expect(drawn.count).toBeLessThanOrEqual(256 * 256);
    const [lat, lon] = await readoutAt(other, drawn.inside!.x, drawn.inside!.y);
    expect(lon).toBeGreaterThan(0);
    expect(lon).toBeLessThan(90);
    expect(lat).toBeGreaterThan(0);
    expect(lat).toBeLessThan(66.52);
    // Turned off in the layer switcher, the tiles go.
    await other.getByTestId('map-layers').click();
    await other.getByTestId('packed-tiles').uncheck();
    await other.getByTestId('map-layers').click();
    await mapSettled(other);
    expect((await screenPixels(other, TILE, 8)).count).toBe(0);
    await other.getByTestId('map-layers').click();
    await other.getByTestId('packed-tiles').check();
    await other.getByTestId('map-layers').click();
    await other.context().setOffline(false);
    await other.getByTestId('open-field-kit').click();
    await other.getByTestId('area-pack').scrollIntoViewIfNeeded();
    // Opened again: nothing is added twice (the reopened Field kit starts with an empty path).
    const entries = await other.getByTestId('history-entry').count();
    await other.getByTestId('pack-open-path').fill(path);
    await other.getByTestId('pack-open').click();
    await expect(other.getByTestId('pack-opened')).toContainText('Added 0 questions');
    await expect(other.getByTestId('pack-opened')).toContainText('0 basemap tiles');
    await expect(other.getByTestId('history-entry')).toHaveCount(entries);
    await other.close();
  } finally {
    await fresh.stop();
  }
});
