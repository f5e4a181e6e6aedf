import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppServices } from '../../../electron/root/app-services';
import { createMemorySecretStore } from '../../../electron/keys/memory-store';
import { drawJpeg, tagJpeg } from '../../../electron/local-service/imagery/photo-writer';
import type { RpcClient } from '../../../shared/rpc/client';
import { bootTestApp, value } from '../../support/app';

describe('photo folders setting', () => {
  const root = mkdtempSync(join(tmpdir(), 'fieldlens-photos-'));
  const dataDir = join(root, 'data');
  const photos = join(root, 'field-trip');
  // One keychain across the restart below, as on a real machine.
  const store = createMemorySecretStore();
  let app: AppServices;
  let rpc: RpcClient;

  const boot = async () => {
    ({ services: app, rpc } = await bootTestApp(dataDir, { secretStore: store }));
  };

  beforeAll(async () => {
    mkdirSync(photos);
    const spec = { width: 64, height: 48, direction: 90, takenAt: '2021:06:15 10:00:00', make: 'TestCam' };
    writeFileSync(
      join(photos, 'valletta.jpg'),
      tagJpeg(drawJpeg(64, 48, 7), { ...spec, latitude: 35.8989, longitude: 14.5146, description: 'harbour walk zebbug' }),
    );
    writeFileSync(join(photos, 'no-gps.jpg'), tagJpeg(drawJpeg(64, 48, 8), { ...spec, description: 'lost' }));
    await boot();
  });
  afterAll(async () => {
    await app.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('indexes a chosen folder, lists photos without a position as skipped, and finds the new photo', async () => {
    const before = value(await rpc.call('photos.status', {}));
    expect(before.folders).toEqual([]);
    const after = value(await rpc.call('photos.setFolders', { folders: [photos] }));
    expect(after.folders).toEqual([photos]);
    expect(after.photos).toBe(before.photos + 1);
    expect(after.skipped.map((s) => s.path)).toContain(join(photos, 'no-gps.jpg'));
    const found = value(await rpc.call('imagery.search', { request: { query: 'zebbug' } }));
    expect(found.response.isSuccess && found.response.data.map((d) => d.address)).toEqual([
      expect.stringMatching(/Malta/),
    ]);
  });

  it('reports the detectors (off in tests) and answers stop and go on with the status', async () => {
    expect(value(await rpc.call('photos.status', {})).perception).toBeNull();
    expect(value(await rpc.call('photos.perception', { action: 'cancel' })).folders).toEqual([photos]);
    expect((await rpc.call('photos.perception', { action: 'pause' } as never)).ok).toBe(false);
  });

  it('switches the detectors off and on for one folder, refusing a folder that is not one of them', async () => {
    expect(value(await rpc.call('photos.status', {})).detectionOff).toEqual([]);
    expect(value(await rpc.call('photos.setDetection', { folder: photos, on: false })).detectionOff).toEqual([photos]);
    const other = await rpc.call('photos.setDetection', { folder: join(root, 'elsewhere'), on: false });
    expect(other.ok ? null : other.error.code).toBe('NOT_FOUND');
    expect(value(await rpc.call('photos.setDetection', { folder: photos, on: true })).detectionOff).toEqual([]);
    value(await rpc.call('photos.setDetection', { folder: photos, on: false }));
  });

  it('keeps the folders and their switches across a restart', async () => {
    await app.close();
    await boot();
    const status = value(await rpc.call('photos.status', {}));
    expect([status.folders, status.detectionOff]).toEqual([[photos], [photos]]);
  });

  it('refuses a relative path or a missing folder with the reason, and changes nothing', async () => {
    const bad = await rpc.call('photos.setFolders', { folders: ['Pictures', join(root, 'missing')] });
    expect(bad.ok).toBe(false);
    if (!bad.ok) {
      expect(bad.error.code).toBe('VALIDATION');
      expect(bad.error.message).toMatch(/full path/);
      expect(bad.error.message).toMatch(/No such folder/);
    }
    expect(value(await rpc.call('photos.status', {})).folders).toEqual([photos]);
  });

  it('drops the photos of a folder that is removed, and its switch', async () => {
    const cleared = value(await rpc.call('photos.setFolders', { folders: [] }));
    expect([cleared.folders, cleared.detectionOff]).toEqual([[], []]);
    const found = value(await rpc.call('imagery.search', { request: { query: 'zebbug' } }));
    expect(found.response.isSuccess && found.response.data).toEqual([]);
  });
});
