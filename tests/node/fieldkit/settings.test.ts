import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bootTestApp, value } from '../../support/app';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'fl-settings-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('field settings over RPC', () => {
  it('starts at decimal degrees, keeps a chosen format across a restart, and refuses an unknown one', async () => {
    let app = await bootTestApp(dir, { startLocalService: false });
    expect(value(await app.rpc.call('settings.get', {}))).toEqual({ coordinateFormat: 'dd' });
    expect(value(await app.rpc.call('settings.save', { coordinateFormat: 'mgrs' }))).toEqual({ coordinateFormat: 'mgrs' });
    const bad = await app.rpc.call('settings.save', { coordinateFormat: 'gars' as never });
    expect(bad.ok || bad.error.code).toBe('VALIDATION');
    await app.services.close();

    expect(JSON.parse(readFileSync(join(dir, 'field-settings.json'), 'utf8'))).toEqual({ coordinateFormat: 'mgrs' });
    app = await bootTestApp(dir, { startLocalService: false });
    expect(value(await app.rpc.call('settings.get', {}))).toEqual({ coordinateFormat: 'mgrs' });
    await app.services.close();
  });

  it('reads a damaged settings file as the defaults', async () => {
    writeFileSync(join(dir, 'field-settings.json'), '{"coordinateFormat": 7');
    const app = await bootTestApp(dir, { startLocalService: false });
    expect(value(await app.rpc.call('settings.get', {}))).toEqual({ coordinateFormat: 'dd' });
    await app.services.close();
  });
});
