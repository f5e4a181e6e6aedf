import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Page } from '@playwright/test';
import { expect } from './fixtures';
import { rpcCall } from './rpc';

/** Opens the app on the offline basemap and collects CSP violations for the test to check. */
export async function openApp(page: Page, launchUrl: string): Promise<string[]> {
  const csp: string[] = [];
  page.on('console', (m) => {
    if (/Content Security Policy/i.test(m.text())) csp.push(m.text());
  });
  await page.goto(launchUrl);
  await expect(page.getByTestId('map')).toHaveAttribute('data-basemap', 'drawn', { timeout: 30_000 });
  return csp;
}

/** Runs a question from the Compute tab and waits for its results. */
export async function ask(page: Page, question: string): Promise<void> {
  await page.getByTestId('tab-ask').click();
  await page.getByTestId('ask-query').fill(question);
  await page.getByTestId('ask-run').click();
  await expect(page.getByTestId('ask-count')).toBeVisible({ timeout: 30_000 });
}

/** A screenshot once the map has drawn again, under test-results/. */
export async function shot(page: Page, name: string): Promise<void> {
  await expect(page.getByTestId('map')).toHaveAttribute('data-settled', 'yes', { timeout: 10_000 }).catch(() => undefined);
  await page.screenshot({ path: `test-results/${name}.png` });
}

/** Drops files onto the window as a file manager would (dragenter, dragover, drop). */
export async function dropFiles(page: Page, files: Array<{ name: string; type: string; text: string }>, pictureAs?: string): Promise<void> {
  const handle = await page.evaluateHandle((fs) => {
    const dt = new DataTransfer();
    for (const f of fs) dt.items.add(new File([f.text], f.name, { type: f.type }));
    return dt;
  }, files);
  await page.dispatchEvent('body', 'dragenter', { dataTransfer: handle });
  await page.dispatchEvent('body', 'dragover', { dataTransfer: handle });
  await expect(page.getByTestId('drop-hint')).toBeVisible();
  if (pictureAs) await page.screenshot({ path: `test-results/${pictureAs}.png` });
  await page.dispatchEvent('body', 'drop', { dataTransfer: handle });
  await expect(page.getByTestId('drop-hint')).toHaveCount(0);
}

export interface OwnService {
  baseUrl: string;
  searchBaseUrl: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/**
 * The bundled service in a process of its own (out/main/service.js), with keys of this test:
 * `--answer-fault` makes every written answer fail while results stay intact.
 */
export async function startOwnService(flags: string[], keys: { bearer: string; search: string }): Promise<OwnService> {
  const dataDir = mkdtempSync(join(tmpdir(), 'fl-e2e-svc-'));
  const child = spawn(process.execPath, ['out/main/service.js', '--json', '--data-dir', dataDir, ...flags], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, FIELDLENS_SERVICE_KEY: keys.bearer, FIELDLENS_SERVICE_SEARCH_KEY: keys.search },
  });
  const first = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`service exited early (${code}); run "npm run build" first`)));
  });
  const urls = JSON.parse(first) as { baseUrl: string; searchBaseUrl: string };
  return {
    ...urls,
    child,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
      }),
  };
}

/** A remote profile for `svc` with its keys in the keychain, made active. */
export async function useService(page: Page, label: string, svc: OwnService, keys: { bearer: string; search: string }): Promise<string> {
  const p = await rpcCall<{ id: string }>(page, 'profiles.save', { label, baseUrl: svc.baseUrl, searchBaseUrl: svc.searchBaseUrl });
  await rpcCall(page, 'keys.set', { profileId: p.id, kind: 'bearer', key: keys.bearer });
  await rpcCall(page, 'keys.set', { profileId: p.id, kind: 'search', key: keys.search });
  await rpcCall(page, 'profiles.select', { id: p.id });
  await expect(page.getByTestId('connection')).toContainText(label);
  return p.id;
}

export async function backToLocal(page: Page, id: string): Promise<void> {
  await rpcCall(page, 'profiles.select', { id: 'local' });
  await rpcCall(page, 'profiles.delete', { id }).catch(() => undefined);
}
