import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { createInterface } from 'node:readline';
import type { Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { rpcCall } from './rpc';

async function openApp(page: Page, launchUrl: string): Promise<void> {
  await page.goto(launchUrl);
  await expect(page.getByTestId('map')).toHaveAttribute('data-basemap', 'drawn', { timeout: 30_000 });
}

/** A port that was free a moment ago: a connection there is refused. */
const closedPort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = (s.address() as AddressInfo);
      s.close(() => resolve(port));
    });
  });

/**
 * A service in its own process that answers GET /health and holds every question without an
 * answer, printing "question" when one arrives: a question still being worked on.
 */
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

async function useProfile(page: Page, label: string, url: string): Promise<string> {
  const p = await rpcCall<{ id: string }>(page, 'profiles.save', { label, baseUrl: url, searchBaseUrl: url });
  await rpcCall(page, 'profiles.select', { id: p.id });
  await expect(page.getByTestId('connection')).toContainText(label);
  return p.id;
}

async function backToLocal(page: Page, id: string): Promise<void> {
  await rpcCall(page, 'profiles.select', { id: 'local' });
  await rpcCall(page, 'profiles.delete', { id }).catch(() => undefined);
}

test('a service stopped mid-question: Esc cancels, the error shows in the panel, the top bar says offline', async ({ page, host }) => {
  await openApp(page, host.launchUrl);
  await expect(page.getByTestId('connectivity')).toHaveAttribute('data-state', 'online', { timeout: 10_000 });
  const svc = await holdingService();
  const id = await useProfile(page, 'Field server', svc.url);
  try {
    const askPanel = page.getByTestId('ask-panel');
    await page.getByTestId('ask-query').fill('airports within 10 km of Paris');
    await page.getByTestId('ask-run').click();
    await svc.questions.next();
    await expect(page.getByTestId('ask-busy')).toBeVisible();
    // Esc cancels the pending question, wherever the focus is.
    await page.keyboard.press('Escape');
    await expect(page.getByTestId('ask-busy')).toHaveCount(0);
    await expect(askPanel.getByTestId('error-note')).toHaveAttribute('data-code', 'CANCELLED');

    await page.getByTestId('ask-run').click();
    await svc.questions.next();
    svc.child.kill('SIGKILL');
    const stoppedAt = Date.now();
    const note = askPanel.getByTestId('error-note');
    await expect(note).toHaveAttribute('data-code', 'OFFLINE', { timeout: 10_000 });
    const stoppedMs = Date.now() - stoppedAt;
    await expect(page.getByTestId('ask-busy')).toHaveCount(0);
    await expect(note.getByTestId('error-sentence')).toHaveText(/^Offline: the service went away during the request/);
    await expect(page.getByTestId('connectivity')).toHaveAttribute('data-state', 'offline');
    await expect(page.getByTestId('connectivity')).toHaveText('Offline');
    await page.screenshot({ path: 'test-results/stopped-service.png' });

    // Asked again with nobody listening: refused, and said at once.
    await useProfile(page, 'Field server, port closed', `http://127.0.0.1:${await closedPort()}`);
    await expect(page.getByTestId('connectivity')).toHaveAttribute('data-state', 'offline', { timeout: 10_000 });
    const t = Date.now();
    await page.getByTestId('ask-run').click();
    await expect(note).toHaveAttribute('data-code', 'OFFLINE');
    await expect(note.getByTestId('error-sentence')).toHaveText(/cannot be reached \(ECONNREFUSED\)|Offline: /);
    const refusedMs = Date.now() - t;
    console.log(JSON.stringify({ stopped_to_error_ms: stoppedMs, refused_question_to_error_ms: refusedMs }));
    expect(refusedMs).toBeLessThan(1500);

    // On demand, the top bar checks again: back on the bundled service, it is online.
    await rpcCall(page, 'profiles.select', { id: 'local' });
    await page.getByTestId('connectivity').click();
    await expect(page.getByTestId('connectivity')).toHaveAttribute('data-state', 'online', { timeout: 10_000 });
  } finally {
    svc.child.kill('SIGKILL');
    await backToLocal(page, id);
  }
});

test('Ctrl+Enter in the question box runs it', async ({ page, host }) => {
  await openApp(page, host.launchUrl);
  const box = page.getByTestId('ask-query');
  await box.fill('airports within 25 km of Lyon');
  await box.press('Control+Enter');
  await expect(page.getByTestId('ask-count')).toBeVisible({ timeout: 30_000 });
  await expect(page.getByTestId('result-row').first()).toBeVisible();
  await page.screenshot({ path: 'test-results/ctrl-enter.png' });
  await box.fill('airports within 35 km of Lyon');
  await box.press('Meta+Enter');
  await expect(page.getByTestId('history-entry')).toHaveCount(0);
  await page.getByTestId('tab-history').click();
  await expect(page.getByTestId('history-entry').filter({ hasText: 'airports within 35 km of Lyon' })).toHaveCount(1, { timeout: 30_000 });
});

test('History View opens the entry: its results on the map, the list and the answer', async ({ page, host }) => {
  await openApp(page, host.launchUrl);
  const question = 'airports within 45 km of Lyon';
  await page.getByTestId('ask-query').fill(question);
  await page.getByTestId('ask-run').click();
  await expect(page.getByTestId('ask-count')).toBeVisible({ timeout: 30_000 });
  const names = await page.getByTestId('result-name').allTextContents();
  const answer = await page.getByTestId('ask-answer-text').textContent();

  await page.getByTestId('tab-history').click();
  await page.getByTestId('history-entry').filter({ hasText: question }).first().getByTestId('history-view').click();
  await expect(page.getByTestId('history-title')).toHaveText(question);
  await expect(page.getByTestId('result-name')).toHaveText(names);
  await expect(page.getByTestId('history-panel').getByText(answer!)).toBeVisible();
  await expect(page.getByTestId('map')).toHaveAttribute('data-layer', 'history');
  await expect(page.getByTestId('map')).toHaveAttribute('data-features', String(names.length));
  await page.screenshot({ path: 'test-results/history-view.png' });
});

test('the details panel lists the uploaded attributes; a 10 kB name is cut in the list, whole in details', async ({ page, host }) => {
  await openApp(page, host.launchUrl);
  const longName = `Warehouse ${'x'.repeat(10_000)}`;
  const csv = `name,lat,lon,site_code,capacity_t,opened\nLyon depot,45.7485,4.8467,LY-07,1250,2019-04-01\n${longName},45.75,4.85,LY-99,3,2020-01-01\n`;
  await page.getByTestId('ask-files').setInputFiles({ name: 'depots.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
  await page.getByTestId('ask-query').fill('which of my sites are within 50 km of an airport');
  await page.getByTestId('ask-run').click();
  await expect(page.getByTestId('result-row')).toHaveCount(2, { timeout: 30_000 });

  // The answer block still reads; the long name is capped wherever it is listed.
  const answer = page.getByTestId('ask-answer-text');
  await expect(answer).toBeVisible();
  expect((await answer.textContent())!.length).toBeLessThan(4100);
  expect(await answer.evaluate((el) => el.getBoundingClientRect().height)).toBeGreaterThan(10);
  for (const n of await page.getByTestId('result-name').allTextContents()) expect(n.length).toBeLessThanOrEqual(200);

  const depot = page.getByTestId('result-row').filter({ hasText: 'Lyon depot' });
  await depot.locator('button.pick').click();
  const details = page.getByTestId('feature-details');
  await expect(details.getByTestId('feature-details-title')).toHaveText('Lyon depot');
  const rows = details.getByTestId('feature-attributes').locator('tr');
  // Every column of the file, in its order (the name column too: it is one of the file's columns).
  await expect(rows).toHaveText([/^name\s*Lyon depot$/, /^site_code\s*LY-07$/, /^capacity_t\s*1250$/, /^opened\s*2019-04-01$/]);
  await expect(details.getByTestId('feature-properties')).toContainText('source');
  await page.screenshot({ path: 'test-results/details-attributes.png' });

  await page.getByTestId('result-row').filter({ hasText: 'Warehouse' }).locator('button.pick').click();
  await expect(details.getByTestId('feature-details-title')).toHaveText(longName);
  await expect(details.getByTestId('feature-attributes')).toContainText('LY-99');
  await page.screenshot({ path: 'test-results/details-long-name.png' });
  await details.getByTestId('feature-details-close').click();
  await expect(details).toHaveCount(0);
});

test('a 200-entry history and a selected result keep the app in one fixed viewport', async ({ page, host }) => {
  await openApp(page, host.launchUrl);
  // Seed the cache with 200 entries over one socket.
  await page.evaluate(
    () =>
      new Promise<void>((resolve, reject) => {
        const ws = new WebSocket(`ws://${location.host}/rpc`);
        let left = 200;
        ws.addEventListener('open', () => {
          for (let i = 0; i < 200; i++)
            ws.send(JSON.stringify({ id: i + 1, method: 'compute.run', input: { request: { query: `airports within ${10 + i} km of Lyon`, limit: 3, answer: false } } }));
        });
        ws.addEventListener('message', (ev) => {
          const msg = JSON.parse(String(ev.data)) as { id?: number; result?: { ok: boolean } };
          if (msg.id === undefined) return;
          if (!msg.result?.ok) reject(new Error(`seed ${msg.id} failed`));
          if (--left === 0) {
            ws.close();
            resolve();
          }
        });
      }),
  );
  await page.getByTestId('ask-query').fill('airports within 150 km of Lyon');
  await page.getByTestId('ask-run').click();
  await page.getByTestId('result-row').first().locator('button.pick').click();
  await expect(page.getByTestId('feature-details')).toBeVisible();

  await page.getByTestId('tab-history').click();
  // Every entry listed (other tests of this worker add theirs to the same cache).
  await expect(page.getByTestId('history-entry')).toHaveCount(50);
  for (let i = 0; i < 10 && (await page.getByRole('button', { name: 'Show more' }).isVisible()); i++) {
    const before = await page.getByTestId('history-entry').count();
    await page.getByRole('button', { name: 'Show more' }).click();
    await expect.poll(() => page.getByTestId('history-entry').count()).toBeGreaterThan(before);
  }
  expect(await page.getByTestId('history-entry').count()).toBeGreaterThanOrEqual(201);
  const panel = page.locator('[role="tabpanel"]');
  const box = (await panel.boundingBox())!;
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  for (let i = 0; i < 30; i++) await page.mouse.wheel(0, 600);
  await page.mouse.move(900, 400);
  for (let i = 0; i < 10; i++) await page.mouse.wheel(0, 600);

  const m = await page.evaluate(() => ({
    scrollTop: document.scrollingElement!.scrollTop,
    scrollHeight: document.scrollingElement!.scrollHeight,
    innerHeight: window.innerHeight,
    panelScroll: document.querySelector('[role="tabpanel"]')!.scrollTop,
    statusBottom: document.querySelector('.status-bar')!.getBoundingClientRect().bottom,
  }));
  expect(m.scrollTop).toBe(0);
  expect(m.scrollHeight).toBe(m.innerHeight);
  // The panel scrolled inside itself, and the status bar sits at the bottom of the window.
  expect(m.panelScroll).toBeGreaterThan(1000);
  expect(Math.round(m.statusBottom)).toBe(m.innerHeight);
  // The wheel also zoomed the map (OpenLayers gathers wheel steps for 80 ms, then animates for
  // 250 ms): picture it once the zoom has begun and everything has drawn again.
  await page.waitForTimeout(500);
  await expect(page.getByTestId('map')).toHaveAttribute('data-settled', 'yes', { timeout: 10_000 });
  await page.screenshot({ path: 'test-results/history-200-scrolled.png' });
});
