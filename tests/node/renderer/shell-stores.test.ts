import { describe, expect, it } from 'vitest';
import { useAskStore } from '../../../renderer/src/stores/ask';
import { useAttachmentsStore } from '../../../renderer/src/stores/attachments';
import { useCacheInfoStore } from '../../../renderer/src/stores/cacheInfo';
import { useComposerStore } from '../../../renderer/src/stores/composer';
import { useHistoryStore } from '../../../renderer/src/stores/history';
import { useLayoutStore } from '../../../renderer/src/stores/layout';
import { useMapStore } from '../../../renderer/src/stores/map';
import { useViewerStore } from '../../../renderer/src/stores/viewer';
import { type Call, scriptedClient, withStores } from './support/stores';

const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
/** A compute answer of `returned` features out of `matched`. */
const computeValue = (id: string, returned: number, matched: number) => ({
  queryId: returned,
  response: {
    id,
    query: 'q',
    answer: { status: 'skipped', content: null, error: null },
    results: {
      type: 'FeatureCollection',
      numberMatched: matched,
      numberReturned: returned,
      features: Array.from({ length: returned }, (_, i) => ({
        type: 'Feature',
        id: `f${i}`,
        geometry: { type: 'Point', coordinates: [4.8, 45.7] },
        properties: { source_id: `s${i}`, name: `N${i}`, address: '', score: 1, distance_meters: 0, source: { name: 'x', url: '' }, attributes: {} },
      })),
    },
    warnings: [],
    usage: { meters: 1.5 },
  },
});
const requestOf = (c: Call) => (c.input as { request: Record<string, unknown> }).request;

describe('Compute composer', () => {
  it('sends the More fields, named coordinates and H3 cells with the question', async () => {
    const { client, calls } = scriptedClient(async () => ({ ok: true, value: computeValue(uuid(1), 1, 1) }));
    const { ask, composer } = withStores(client, () => ({ ask: useAskStore(), composer: useComposerStore() }));
    composer.userId = 'analyst-7';
    composer.includeStats = 'auto';
    const depot = composer.addCoordinate(4.8467123456, 45.7485)!;
    composer.addCoordinate(2.35, 48.85);
    composer.renameCoordinate(depot, 'Depot');
    composer.moveCoordinate(depot, 4.85, 45.75);
    const bad = composer.addH3(['871fb4662ffffff', 'not-a-cell', '871FB4662FFFFFF']);
    expect(bad).toEqual(['not-a-cell']);
    ask.query = 'airports within 20 km of Depot';
    ask.writtenAnswer = false;
    await ask.run();
    expect(requestOf(calls[0]!)).toEqual({
      query: 'airports within 20 km of Depot',
      limit: 100,
      answer: false,
      user_id: 'analyst-7',
      include_stats: 'auto',
      coordinates: [
        { name: 'Depot', latitude: 45.75, longitude: 4.85 },
        { name: 'Point 2', latitude: 48.85, longitude: 2.35 },
      ],
      h3_ids: ['871fb4662ffffff'],
    });
    composer.removeCoordinate(depot);
    composer.toggleH3('871fb4662ffffff');
    expect(composer.coordinates.map((p) => p.name)).toEqual(['Point 2']);
    expect(composer.h3Ids).toEqual([]);
  });

  it('asks again for every match (at most 2,000) and keeps one thread step for it', async () => {
    let n = 0;
    const { client, calls } = scriptedClient(async (_m, input) => {
      n++;
      const limit = (input as { request: { limit: number } }).request.limit;
      return { ok: true, value: computeValue(uuid(n), Math.min(limit, 2345), 2345) };
    });
    const ask = withStores(client, () => useAskStore());
    ask.query = 'cities in France';
    await ask.run();
    expect(ask.canRaiseLimit).toBe(true);
    ask.query = 'only big ones';
    await ask.run(true);
    expect(ask.thread).toHaveLength(2);
    await ask.raiseLimit();
    // The follow-up asked again, with its search_id, for the interface's maximum.
    expect(requestOf(calls[2]!)).toMatchObject({ query: 'only big ones', limit: 2000, search_id: uuid(1) });
    expect(ask.thread.map((s) => [s.query, s.numberReturned])).toEqual([
      ['cities in France', 100],
      ['only big ones', 2000],
    ]);
    expect(ask.limit).toBe(2000);
    expect(ask.canRaiseLimit).toBe(false);
  });

  it('"Ask a follow-up" makes the next run continue the shown result, once', async () => {
    let n = 0;
    const { client, calls } = scriptedClient(async () => ({ ok: true, value: computeValue(uuid(++n), 1, 1) }));
    const ask = withStores(client, () => useAskStore());
    ask.followUp();
    expect(ask.followingUp).toBe(false); // nothing shown yet to follow
    ask.query = 'airports in Peru';
    await ask.run();
    ask.followUp();
    ask.query = 'near Lima';
    await ask.run();
    expect(requestOf(calls[1]!).search_id).toBe(uuid(1));
    expect(ask.followingUp).toBe(false);
    ask.query = 'rivers';
    await ask.run();
    expect(requestOf(calls[2]!)).not.toHaveProperty('search_id');
  });
});

describe('Attachments', () => {
  it('previews data files through uploads.preview, sends images as images, and replaces a file of the same name', async () => {
    const { client, calls } = scriptedClient(async (method, input) => {
      if (method === 'uploads.preview') {
        const name = (input as { name: string }).name;
        return { ok: true, value: { name, format: 'csv', featureCount: name.length, columns: null, sample: [], positions: [], badRows: [], badRowCount: 0, warnings: [], error: null } };
      }
      return { ok: true, value: computeValue(uuid(1), 1, 1) };
    });
    const { ask, files } = withStores(client, () => ({ ask: useAskStore(), files: useAttachmentsStore() }));
    await files.attach([
      { name: 'sites.csv', size: 3, contentType: 'text/csv', dataBase64: 'YSwx' },
      { name: 'ref.jpg', size: 3, contentType: 'image/jpeg', dataBase64: '/9j/' },
    ]);
    expect(calls.filter((c) => c.method === 'uploads.preview').map((c) => c.input)).toEqual([{ name: 'sites.csv', dataBase64: 'YSwx' }]);
    expect(files.files[0]!.preview?.featureCount).toBe('sites.csv'.length);
    expect(files.images.map((i) => i.name)).toEqual(['ref.jpg']);
    await files.attach([{ name: 'sites.csv', size: 4, contentType: 'text/csv', dataBase64: 'Yiwy' }]);
    expect(files.files.map((f) => f.dataBase64)).toEqual(['Yiwy']);

    ask.query = 'my sites';
    await ask.run();
    const sent = calls.find((c) => c.method === 'compute.run')!.input as { attachments: Array<{ field: string; name: string }> };
    expect(sent.attachments.map((a) => [a.field, a.name]).sort()).toEqual([
      ['files', 'sites.csv'],
      ['images', 'ref.jpg'],
    ]);
  });
});

describe('History by map view, and the viewer', () => {
  it('filters by the extent the map reports only while asked to', async () => {
    const { client, calls } = scriptedClient(async () => ({ ok: true, value: { items: [], hasMore: false } }));
    const { history, map } = withStores(client, () => ({ history: useHistoryStore(), map: useMapStore() }));
    map.provideExtent(() => [4, 45, 5.5, 46.2]);
    await history.load();
    expect(calls[0]!.input).not.toHaveProperty('bbox');
    history.inExtent = true;
    history.text = 'airports';
    await history.load();
    expect(calls[1]!.input).toMatchObject({ text: 'airports', bbox: [4, 45, 5.5, 46.2] });
  });

  it('opening an image selects its feature on the map; Ctrl+K brings History forward', () => {
    const { client } = scriptedClient(async () => ({ ok: true, value: {} }));
    const { viewer, map, layout } = withStores(client, () => ({ viewer: useViewerStore(), map: useMapStore(), layout: useLayoutStore() }));
    viewer.open({ layer: 'imagery', id: 'img-1', url: null, title: 'Paris', meta: '', facing: 45 });
    expect(map.selection).toEqual({ layer: 'imagery', id: 'img-1', origin: 'list' });
    viewer.close();
    expect(viewer.item).toBeNull();
    const before = layout.searchFocus;
    layout.focusHistorySearch();
    expect(layout.tab).toBe('history');
    expect(layout.searchFocus).toBe(before + 1);
  });
});

describe('Offline cache in Settings', () => {
  it('reports database and log together, and what compacting freed', async () => {
    let db = 9_000_000;
    const stats = () => ({ schemaVersion: 1, queries: { compute: 3, stream: 1, imagery: 2 }, features: 40, uploads: { count: 1, bytes: 10 }, media: { count: 2, bytes: 20 }, dbBytes: db, walBytes: 1_000 });
    const { client, calls } = scriptedClient(async (method) => {
      if (method === 'cache.vacuum') {
        const before = db;
        db = 6_500_000;
        return { ok: true, value: { bytesBefore: before, bytesAfter: db } };
      }
      return { ok: true, value: stats() };
    });
    const cache = withStores(client, () => useCacheInfoStore());
    await cache.load();
    expect(cache.totalBytes).toBe(9_001_000);
    await cache.compact();
    expect(cache.freed).toBe(2_500_000);
    expect(cache.totalBytes).toBe(6_501_000);
    expect(calls.map((c) => c.method)).toEqual(['cache.stats', 'cache.vacuum', 'cache.stats']);
  });
});
