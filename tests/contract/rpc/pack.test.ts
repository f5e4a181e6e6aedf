import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppServices } from '../../../electron/root/app-services';
import type { RpcClient } from '../../../shared/rpc/client';
import type { PackProgressEvent } from '../../../shared/rpc/methods/pack';
import { bootTestApp, value } from '../../support/app';
import { AREA, fillSource, openSide } from '../../support/pack-fixture';

let dir: string;
const apps: AppServices[] = [];
let rpc: RpcClient;
const events: PackProgressEvent[] = [];
let expectedTexts: string[];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fl-pack-rpc-'));
  // The first laptop's data folder, filled before the app starts.
  const side = openSide(join(dir, 'one'));
  await fillSource(side);
  expectedTexts = side.cache
    .list({ bbox: AREA, limit: 100 })
    .items.map((q) => q.queryText)
    .sort();
  side.close();
  const one = await bootTestApp(join(dir, 'one'), { startLocalService: false });
  apps.push(one.services);
  rpc = one.rpc;
  rpc.on('pack.progress', (e) => events.push(e));
});

afterAll(async () => {
  for (const a of apps) await a.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('pack.* over the RPC router', () => {
  it('validates the area and the zoom before anything runs', async () => {
    const bad = await rpc.call('pack.estimate', { area: { bbox: [11, 50, 10, 51] } });
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.error.code).toBe('VALIDATION');
    const deep = await rpc.call('pack.estimate', { area: { bbox: AREA }, maxTileZoom: 19 });
    expect(!deep.ok && deep.error.code).toBe('VALIDATION');
    const dates = await rpc.call('pack.estimate', { area: { bbox: AREA }, from: 10, to: 5 });
    expect(!dates.ok && dates.error.message).toMatch(/date range/);
    expect(value(await rpc.call('pack.cancel', { jobId: 'nope' }))).toEqual({ cancelled: false });
    const notPack = await rpc.call('pack.open', { path: join(dir, 'missing.gpkg') });
    expect(!notPack.ok && notPack.error.code).toBe('NOT_FOUND');
  });

  it('estimates, writes with progress events, and a second install opens it into History and the media cache', async () => {
    const est = value(await rpc.call('pack.estimate', { area: { bbox: AREA } }));
    expect(est.queries).toBe(expectedTexts.length);
    const path = join(dir, 'fulda.gpkg');
    const { jobId } = value(await rpc.call('pack.create', { selection: { area: { bbox: AREA } }, path }));
    await expect.poll(() => events.some((e) => e.jobId === jobId && e.state !== 'running'), { timeout: 20_000 }).toBe(true);
    const mine = events.filter((e) => e.jobId === jobId);
    expect(mine[0]!.state).toBe('running');
    const end = mine.at(-1)!;
    expect(end).toMatchObject({ state: 'done', path, error: null });
    expect(end.contents!.queries).toBe(est.queries);
    expect(end.contents!.media).toBe(est.media.count);

    const two = await bootTestApp(join(dir, 'two'), { startLocalService: false });
    apps.push(two.services);
    // No layers in the first laptop's app (its bundled service was not started), so none in the pack.
    const opened = value(await two.rpc.call('pack.open', { path }));
    expect(opened.added.queries).toBe(est.queries);
    const listed = value(await two.rpc.call('history.list', { limit: 100 }));
    expect(listed.items.map((q) => q.queryText).sort()).toEqual(expectedTexts);
    const media = value(await two.rpc.call('media.get', { url: 'https://img.example/fulda-0.jpg' }));
    expect(media.fromCache).toBe(true);
    expect(Buffer.from(media.dataBase64, 'base64').subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));
    const again = value(await two.rpc.call('pack.open', { path }));
    expect(again.added.queries).toBe(0);
    expect(again.updated.queries).toBe(est.queries);
  });
});
