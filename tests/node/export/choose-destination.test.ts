import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AppDeps, AppServices } from '../../../electron/root/app-services';
import { bootTestApp } from '../../support/app';

let app: AppServices | undefined;
let dir: string | undefined;
afterEach(async () => {
  await app?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function boot(extra: Partial<AppDeps>): Promise<AppServices> {
  dir = mkdtempSync(join(tmpdir(), 'fieldlens-dialog-'));
  ({ services: app } = await bootTestApp(dir, {
    shell: extra.chooseSavePath ? 'electron' : 'browser-host',
    startLocalService: false,
    ...extra,
  }));
  return app;
}

describe('export.chooseDestination', () => {
  it('asks the desktop save dialog with a safe default name and the format extension', async () => {
    const asked: { defaultName: string; extension: string }[] = [];
    const services = await boot({
      chooseSavePath: async (o) => {
        asked.push(o);
        return `/home/analyst/${o.defaultName}`;
      },
    });
    const r = await services.router.dispatch('export.chooseDestination', { format: 'gpkg', suggestedName: 'airports / Lyon' });
    expect(r).toEqual({ ok: true, value: { path: '/home/analyst/airports _ Lyon.gpkg' } });
    expect(asked).toEqual([{ defaultName: 'airports _ Lyon.gpkg', extension: 'gpkg' }]);
    const ndjson = await services.router.dispatch('export.chooseDestination', { format: 'ndjson', suggestedName: 'x' });
    expect(ndjson).toMatchObject({ ok: true, value: { path: '/home/analyst/x.geojsonl' } });
  });

  it('passes a cancelled dialog back as a null path', async () => {
    const services = await boot({ chooseSavePath: async () => null });
    expect(await services.router.dispatch('export.chooseDestination', { format: 'csv', suggestedName: 'x' })).toEqual({
      ok: true,
      value: { path: null },
    });
  });

  it('says plainly that the browser host has no dialog', async () => {
    const services = await boot({});
    const r = await services.router.dispatch('export.chooseDestination', { format: 'csv', suggestedName: 'x' });
    expect(r).toMatchObject({ ok: false, error: { code: 'NOT_FOUND', message: expect.stringMatching(/download/) } });
  });
});
