import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { expect, test } from '@playwright/test';
import { rpcCall } from './rpc';

/**
 * A key given in the environment the host starts in is shown as such in Settings, with no way to
 * set or delete it there. This spec starts its own host (the shared one has no such variable).
 */
const KEY = `sk_env_${Date.now().toString(36)}_0123456789abcdef`;
let child: ChildProcess;
let dataDir: string;
let launchUrl: string;

test.beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'fl-e2e-key-env-'));
  child = spawn(process.execPath, ['out/main/host.js', '--json', '--no-detect', '--data-dir', dataDir], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, FIELDLENS_KEY_FIELD_OFFICE: KEY },
  });
  const first = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`host exited early (${code})`)));
  });
  ({ launchUrl } = JSON.parse(first) as { launchUrl: string });
});
test.afterAll(async () => {
  // The host writes its log until it has exited: its folder goes after it.
  if (child && child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
  rmSync(dataDir, { recursive: true, force: true });
});

test('a key from the environment is shown as such in Settings, read only', async ({ page }) => {
  await page.goto(launchUrl);
  await expect(page.getByTestId('map')).toHaveAttribute('data-basemap', 'drawn', { timeout: 30_000 });
  const remote = await rpcCall<{ id: string }>(page, 'profiles.save', { label: 'Field office', baseUrl: 'http://127.0.0.1:9/', searchBaseUrl: 'http://127.0.0.1:9/search' });
  await page.getByTestId('open-settings').click();
  const card = page.getByTestId(`profile-${remote.id}`);
  const bearer = card.getByTestId('key-bearer');
  await expect(bearer.getByTestId('key-state')).toHaveText('From the environment (FIELDLENS_KEY_FIELD_OFFICE)', { timeout: 15_000 });
  await expect(bearer.getByTestId('key-input')).toHaveCount(0);
  await expect(bearer.getByTestId('key-delete')).toHaveCount(0);
  // The other key is not in the environment: set as before.
  await expect(card.getByTestId('key-search').getByTestId('key-input')).toBeVisible();
  await expect(page.locator('body')).not.toContainText(KEY);
  await bearer.scrollIntoViewIfNeeded();
  await page.screenshot({ path: 'test-results/key-env.png' });
});
