import { createPinia } from 'pinia';
import { describe, expect, it } from 'vitest';
import { createApp } from 'vue';
import type { RpcClient } from '../../../shared/rpc/client';
import type { UploadPreview } from '../../../shared/rpc/methods/uploads';
import { provideRpc } from '../../../renderer/src/api/rpc';
import { useAskStore } from '../../../renderer/src/stores/ask';
import { useAttachmentsStore } from '../../../renderer/src/stores/attachments';
import { useMapStore } from '../../../renderer/src/stores/map';

// Positions a preview answers for each file, by name; a file named bad.csv is refused.
const POSITIONS: Record<string, UploadPreview['positions']> = {
  'depots.csv': [
    { name: 'Lyon depot', longitude: 4.8467, latitude: 45.7485 },
    { name: 'Annecy store', longitude: 6.1294, latitude: 45.8992 },
  ],
  'buoys.geojson': [{ name: 'Buoy', longitude: -40, latitude: 40 }],
};

function setup() {
  const client = {
    call: async (method: string, input: unknown) => {
      if (method === 'uploads.preview') {
        const name = (input as { name: string }).name;
        const positions = POSITIONS[name] ?? [];
        return { ok: true, value: { name, format: 'csv', featureCount: positions.length, columns: null, sample: [], positions, badRows: [], badRowCount: 0, warnings: [], error: null } };
      }
      if (method === 'compute.run')
        return {
          ok: true,
          value: {
            queryId: 1,
            response: { id: '00000000-0000-4000-8000-000000000001', query: 'q', answer: { status: 'skipped', content: null, error: null }, results: { type: 'FeatureCollection', numberMatched: 0, numberReturned: 0, features: [] }, warnings: [], usage: {} },
          },
        };
      return { ok: false, error: { code: 'NOT_FOUND', message: method } };
    },
    on: () => () => undefined,
  } as unknown as RpcClient;
  const app = createApp({});
  provideRpc(app, client);
  app.use(createPinia());
  return app.runWithContext(() => ({ files: useAttachmentsStore(), map: useMapStore(), ask: useAskStore() }));
}

const file = (name: string) => ({ name, size: 1, contentType: name.endsWith('.csv') ? 'text/csv' : 'application/geo+json', dataBase64: 'eA==' });
const drawn = (map: ReturnType<typeof useMapStore>, name: string) =>
  map.uploads[name]?.features.map((f) => [(f.properties as { name: string }).name, ...(f.geometry as { coordinates: number[] }).coordinates]);

describe('uploaded files on the map', () => {
  it('draws each previewed file as its own collection, keeps it after the question runs, and drops it when removed', async () => {
    const { files, map, ask } = setup();
    await files.attach([file('depots.csv'), file('buoys.geojson'), { name: 'ref.jpg', size: 1, contentType: 'image/jpeg', dataBase64: '/9j/' }]);
    expect(Object.keys(map.uploads).sort()).toEqual(['buoys.geojson', 'depots.csv']);
    expect(drawn(map, 'depots.csv')).toEqual(POSITIONS['depots.csv']!.map((p) => [p.name, p.longitude, p.latitude]));
    expect(drawn(map, 'buoys.geojson')).toEqual([['Buoy', -40, 40]]);
    // Ids stay apart across files, so a pick on one row is never read as another file's.
    const ids = Object.values(map.uploads).flatMap((c) => c.features.map((f) => f.id));
    expect(new Set(ids).size).toBe(3);

    ask.query = 'my sites';
    await ask.run();
    expect(Object.keys(map.uploads).sort()).toEqual(['buoys.geojson', 'depots.csv']);

    files.detach('files', 'depots.csv');
    expect(Object.keys(map.uploads)).toEqual(['buoys.geojson']);
    files.clear();
    expect(map.uploads).toEqual({});
  });

  it('a file with no readable position adds nothing to the map; zoom requests only name drawn files', async () => {
    const { files, map } = setup();
    await files.attach([file('empty.csv')]);
    expect(map.uploads).toEqual({});
    map.zoomToUploads('empty.csv');
    expect(map.uploadsFitRequest).toBeNull();
    await files.attach([file('depots.csv')]);
    map.zoomToUploads('depots.csv');
    expect(map.uploadsFitRequest).toEqual({ name: 'depots.csv', seq: 1 });
  });
});
