import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { expect, test } from '@playwright/test';

// A fresh host of its own: the bundled service must still be starting when the page opens.
test('the page is served and usable while the bundled service is still starting', async ({ page }) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'fl-e2e-start-'));
  const started = Date.now();
  const child = spawn(process.execPath, ['out/main/host.js', '--json', '--no-detect', '--data-dir', dataDir], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const first = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout! }).once('line', resolve);
      child.once('exit', (code) => reject(new Error(`host exited early (${code}); run "npm run build" first`)));
    });
    const urlAt = Date.now();
    const { launchUrl } = JSON.parse(first) as { launchUrl: string };

    await page.goto(launchUrl);
    // Usable: the basemap is drawn and a question can be typed.
    await expect(page.getByTestId('map')).toHaveAttribute('data-basemap', 'drawn', { timeout: 30_000 });
    await page.getByTestId('tab-ask').click();
    await page.getByTestId('ask-query').fill('airports within 50 km of Lyon');
    const usableAt = Date.now();
    // The version is read from the app itself, so it shows without waiting for the service.
    // A service still starting is not reported offline.
    await expect(page.getByTestId('connectivity')).not.toHaveAttribute('data-state', 'offline');
    await expect(page.getByTestId('app-version')).toHaveText(/Fieldlens \d+\.\d+\.\d+/, { timeout: 5_000 });
    await page.screenshot({ path: 'test-results/startup-usable.png' });

    // The status bar names the bundled connection once it listens, and a question is answered.
    await expect(page.getByTestId('connection')).toHaveText(/Local/, { timeout: 30_000 });
    await page.getByTestId('ask-run').click();
    await expect(page.getByTestId('ask-count')).toBeVisible({ timeout: 30_000 });
    await page.screenshot({ path: 'test-results/startup-answered.png' });

    test.info().annotations.push({
      type: 'startup',
      description: `URL ${urlAt - started} ms after launch; page usable ${usableAt - urlAt} ms after the URL`,
    });
  } finally {
    // Let the host finish closing before its data folder goes.
    const exited = new Promise((resolve) => (child.exitCode !== null ? resolve(null) : child.once('exit', resolve)));
    child.kill('SIGTERM');
    await exited;
    rmSync(dataDir, { recursive: true, force: true });
  }
});
