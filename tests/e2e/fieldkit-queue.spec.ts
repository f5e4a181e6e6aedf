import { createServer } from 'node:net';
import { expect, test } from './fixtures';
import { rpcCall } from './rpc';

/** A port that was free a moment ago: a connection there is refused. */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return port;
}

test('a question asked offline is queued, edited, and answered with a notice when the connection returns', async ({ page, host }) => {
  await page.goto(host.launchUrl);
  await expect(page.getByTestId('map')).toHaveAttribute('data-basemap', 'drawn', { timeout: 30_000 });
  await expect(page.getByTestId('connectivity')).toHaveAttribute('data-state', 'online', { timeout: 10_000 });
  const url = `http://127.0.0.1:${await closedPort()}`;
  const p = await rpcCall<{ id: string }>(page, 'profiles.save', { label: 'Field server (down)', baseUrl: url, searchBaseUrl: url });
  await rpcCall(page, 'profiles.select', { id: p.id });
  await page.getByTestId('connectivity').click();
  await expect(page.getByTestId('connectivity')).toHaveAttribute('data-state', 'offline', { timeout: 10_000 });

  await page.getByTestId('tab-ask').click();
  await page.getByTestId('ask-query').fill('airprots within 30 km of Lyon');
  await page.getByTestId('ask-run').click();
  await expect(page.getByTestId('queue-waiting')).toHaveText(/^1 question queued/);

  await page.getByTestId('open-field-kit').click();
  const item = page.getByTestId('queued-question');
  await expect(item.getByTestId('queued-status')).toHaveText('queued');
  await item.getByTestId('queued-edit').click();
  await page.getByTestId('queued-edit-input').fill('airports within 30 km of Lyon');
  await page.getByTestId('queued-save').click();
  await expect(item).toContainText('airports within 30 km of Lyon');
  await page.screenshot({ path: 'test-results/fieldkit-queue-waiting.png' });

  // The connection returns (back on the bundled service): the question runs and its answer is announced.
  await rpcCall(page, 'profiles.select', { id: 'local' });
  await page.getByTestId('connectivity').click();
  // Asked on the server that was down, answered by the bundled service: the notice names both.
  await expect(page.getByTestId('queue-notice')).toContainText('“airports within 30 km of Lyon” was asked on Field server (down) and answered by Local (bundled)', { timeout: 20_000 });
  await expect(item.getByTestId('queued-status')).toHaveText('answered');
  await page.screenshot({ path: 'test-results/fieldkit-queue-answered.png' });
  await rpcCall(page, 'profiles.delete', { id: p.id });
});
