import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { LocalServicePlugin } from '../../../electron/local-service/plugin';
import { bootTestApp, value } from '../../support/app';

describe('the app opens before the bundled service is up', () => {
  it('answers history at once and holds calls that need the service until it listens', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'fieldlens-start-order-'));
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    // Holds the bundled service's start until the test opens the gate.
    const slow: LocalServicePlugin = { name: 'slow-start', registerBase: () => gate };
    const { services, rpc } = await bootTestApp(dataDir, { localServicePlugins: [slow] });
    try {
      expect(services.localEndpoint()).toBeNull();
      const history = value(await rpc.call('history.list', {}));
      expect(history.items).toEqual([]);

      let settled = false;
      const active = rpc.call('connection.active', {}).finally(() => (settled = true));
      await new Promise((r) => setTimeout(r, 300));
      expect(settled).toBe(false);

      open();
      const conn = value(await active);
      expect(conn.kind).toBe('local');
      expect(conn.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(services.localEndpoint()?.baseUrl).toBe(conn.baseUrl);
    } finally {
      open();
      await services.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('begins the start only once the shell says so (the browser host: after its URL is out)', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'fieldlens-start-order-'));
    let go!: () => void;
    const startLocalServiceAfter = new Promise<void>((resolve) => (go = resolve));
    let registered = 0;
    const probe: LocalServicePlugin = { name: 'probe', registerBase: () => void registered++ };
    const { services, rpc } = await bootTestApp(dataDir, { localServicePlugins: [probe], startLocalServiceAfter });
    try {
      await new Promise((r) => setTimeout(r, 300));
      expect(registered).toBe(0);
      go();
      expect(value(await rpc.call('connection.active', {})).baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(registered).toBe(1);
    } finally {
      go();
      await services.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('closes without starting the bundled service when closed before its start began', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'fieldlens-start-order-'));
    let go!: () => void;
    const startLocalServiceAfter = new Promise<void>((resolve) => (go = resolve));
    let registered = 0;
    const probe: LocalServicePlugin = { name: 'probe', registerBase: () => void registered++ };
    const { services } = await bootTestApp(dataDir, { localServicePlugins: [probe], startLocalServiceAfter });
    try {
      const closed = services.close();
      go();
      await closed;
      expect(registered).toBe(0);
      expect(services.localEndpoint()).toBeNull();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
