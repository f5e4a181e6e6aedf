import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAppServices, type AppServices } from '../../../electron/core/app-services';
import { createMemoryLogger } from '../../../electron/core/logger';
import { createMemorySecretStore } from '../../../electron/keys/memory-store';
import { drawJpeg, tagJpeg } from '../../../electron/local-service/imagery/photo-writer';
import { createMemoryTransport } from '../../../electron/rpc/memory-transport';
import { createRpcClient, type RpcClient } from '../../../shared/rpc/client';
import type { Result } from '../../../shared/rpc/errors';

const value = <T>(r: Result<T>): T => {
  if (!r.ok) throw new Error(`${r.error.code}: ${r.error.message}`);
  return r.value;
};

describe('photo folders setting', () => {
  const root = mkdtempSync(join(tmpdir(), 'fieldlens-photos-'));
  const dataDir = join(root, 'data');
  const photos = join(root, 'field-trip');
  const store = createMemorySecretStore();
  let app: AppServices;
  let rpc: RpcClient;

  const boot = async () => {
    app = await createAppServices({
      dataDir,
      logger: createMemoryLogger(),
      shell: 'test',
      version: '0.0.0',
      clock: () => new Date(),
      secretStore: store,
      watchPhotos: false,
    });
    rpc = createRpcClient(createMemoryTransport(app.router, app.bus));
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

  it('keeps the folders across a restart', async () => {
    await app.close();
    await boot();
    expect(value(await rpc.call('photos.status', {})).folders).toEqual([photos]);
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

  it('drops the photos of a folder that is removed', async () => {
    const cleared = value(await rpc.call('photos.setFolders', { folders: [] }));
    expect(cleared.folders).toEqual([]);
    const found = value(await rpc.call('imagery.search', { request: { query: 'zebbug' } }));
    expect(found.response.isSuccess && found.response.data).toEqual([]);
  });
});
