import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { expect, test } from '@playwright/test';
import { rpcCall } from './rpc';
import { shot } from './workspace-helpers';

/** A port free a moment ago, so the host can be started on it twice. */
const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => resolve(port));
    });
  });

/** The built browser host in a process this test owns (and kills). */
async function startHost(port: number, dataDir: string): Promise<{ child: ChildProcess; url: string; launchUrl: string }> {
  const child = spawn(process.execPath, ['out/main/host.js', '--json', '--no-detect', '--port', String(port), '--data-dir', dataDir], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const first = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`host exited early (${code}); run "npm run build" first`)));
  });
  return { child, ...(JSON.parse(first) as { url: string; launchUrl: string }) };
}

/** A service that answers /health and holds every question: a run still on its way. */
async function holdingService(): Promise<{ url: string; child: ChildProcess; questions: AsyncIterator<string> }> {
  const script = `
    const http = require('node:http');
    const s = http.createServer((req, res) => {
      if (req.url === '/health') return res.end('{"status":"ok"}');
      process.stdout.write('question\\n');
    });
    s.listen(0, '127.0.0.1', () => process.stdout.write(s.address().port + '\\n'));`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const port = (await lines.next()).value as string;
  return { url: `http://127.0.0.1:${port}`, child, questions: lines };
}

const killed = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });

test('host killed: offline and the pending run failed within 5 s; restarted with a new key: told how to reopen, then reconnected', async ({ page, context }) => {
  test.setTimeout(120_000);
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'fl-e2e-link-'));
  let host = await startHost(port, dataDir);
  const svc = await holdingService();
  try {
    await page.goto(host.launchUrl);
    await expect(page.getByTestId('map')).toHaveAttribute('data-basemap', 'drawn', { timeout: 30_000 });
    await expect(page.getByTestId('connectivity')).toHaveAttribute('data-state', 'online', { timeout: 15_000 });

    // A question held by its service: "Running…" while the host is alive.
    const p = await rpcCall<{ id: string }>(page, 'profiles.save', { label: 'Holding server', baseUrl: svc.url, searchBaseUrl: svc.url });
    await rpcCall(page, 'profiles.select', { id: p.id });
    await expect(page.getByTestId('connection')).toContainText('Holding server');
    await page.getByTestId('tab-ask').click();
    await page.getByTestId('ask-query').fill('airports within 10 km of Paris');
    await page.getByTestId('ask-run').click();
    await svc.questions.next();
    await expect(page.getByTestId('ask-busy')).toBeVisible();

    await killed(host.child);
    const killedAt = Date.now();
    await expect(page.getByTestId('connectivity')).toHaveAttribute('data-state', 'offline', { timeout: 5_000 });
    const offlineMs = Date.now() - killedAt;
    await expect(page.getByTestId('ask-busy')).toHaveCount(0, { timeout: 5_000 });
    const note = page.getByTestId('ask-panel').getByTestId('error-note');
    await expect(note).toHaveAttribute('data-code', 'NETWORK');
    const runFailedMs = Date.now() - killedAt;
    await expect(note.getByTestId('error-sentence')).toHaveText(/app host is not reachable/);
    await expect(page.getByTestId('host-notice')).toHaveAttribute('data-cause', 'host');
    await expect(page.getByTestId('host-notice')).toContainText('The app host is not running');

    // A question asked now fails at once instead of waiting.
    const askedAt = Date.now();
    await page.getByTestId('ask-run').click();
    await expect(page.getByTestId('ask-busy')).toHaveCount(0);
    await expect(note).toHaveAttribute('data-code', 'NETWORK');
    const refusedMs = Date.now() - askedAt;
    await shot(page, 'link-host-killed');

    // Restarted on the same port: a new key, which this page does not have.
    host = await startHost(port, dataDir);
    const restartedAt = Date.now();
    await expect(page.getByTestId('host-notice')).toHaveAttribute('data-cause', 'token', { timeout: 10_000 });
    const toldMs = Date.now() - restartedAt;
    await expect(page.getByTestId('host-notice')).toContainText('restarted with a new address');
    await expect(page.getByTestId('connectivity')).toHaveAttribute('data-state', 'offline');
    await shot(page, 'link-new-token');

    // Reloading with the old key reads as a page for a person, not JSON.
    const other = await context.newPage();
    const res = await other.goto(host.url);
    expect(res?.status()).toBe(401);
    expect(res?.headers()['content-type']).toMatch(/^text\/html/);
    await expect(other.getByRole('heading', { level: 1 })).toHaveText('This address needs the key of the running app host');
    await expect(other.locator('body')).not.toContainText('{"error"');
    await other.screenshot({ path: 'test-results/link-reopen-page.png' });

    // Opening the printed address (in another tab) gives the browser the new key: the first page
    // reconnects by itself and works again.
    await other.goto(host.launchUrl);
    await expect(other.getByTestId('map')).toHaveAttribute('data-basemap', 'drawn', { timeout: 30_000 });
    const reopenedAt = Date.now();
    await expect(page.getByTestId('host-notice')).toHaveCount(0, { timeout: 10_000 });
    const reconnectMs = Date.now() - reopenedAt;
    await other.close();
    await rpcCall(page, 'profiles.select', { id: 'local' });
    await expect(page.getByTestId('connectivity')).toHaveAttribute('data-state', 'online', { timeout: 15_000 });
    // The error that only said the host was gone does not outlive it.
    await expect(note).toHaveCount(0);
    await page.getByTestId('ask-run').click();
    await expect(page.getByTestId('ask-count')).toBeVisible({ timeout: 30_000 });
    await shot(page, 'link-reconnected');
    console.log(JSON.stringify({ offline_after_kill_ms: offlineMs, run_failed_after_kill_ms: runFailedMs, refused_run_ms: refusedMs, told_new_key_ms: toldMs, reconnect_ms: reconnectMs }));
    expect(refusedMs).toBeLessThan(5_000);
  } finally {
    await killed(svc.child);
    await killed(host.child);
  }
});
