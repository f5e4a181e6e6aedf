import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { expect, test } from './fixtures';

/** A second install: the built browser host on an empty data folder. */
async function freshHost(): Promise<{ launchUrl: string; dataDir: string; stop(): Promise<void> }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'fl-e2e-fresh-'));
  const child = spawn(process.execPath, ['out/main/host.js', '--json', '--data-dir', dataDir], { stdio: ['ignore', 'pipe', 'inherit'] });
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
    await other.getByTestId('pack-open-path').fill(path);
    await other.getByTestId('pack-open').click();
    await expect(other.getByTestId('pack-opened')).toContainText(/Added [1-9]\d* questions?,/);
    await expect(other.getByTestId('history-list')).toContainText('airports within 40 km of Lyon');
    await other.getByTestId('area-pack').scrollIntoViewIfNeeded();
    await other.screenshot({ path: 'test-results/fieldkit-pack-opened.png' });
    // Opened again: nothing is added twice.
    const entries = await other.getByTestId('history-entry').count();
    await other.getByTestId('pack-open').click();
    await expect(other.getByTestId('pack-opened')).toContainText('Added 0 questions');
    await expect(other.getByTestId('history-entry')).toHaveCount(entries);
    await other.close();
  } finally {
    await fresh.stop();
  }
});
