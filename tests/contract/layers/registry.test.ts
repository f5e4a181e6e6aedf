import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../../../electron/ground/logger';
import type { LayerChange } from '../../../electron/local-service/layers/registry';
import { LayerNotFoundError, type LayerStore } from '../../../electron/local-service/layers/store/layer-store';
import { asAsyncLayerStore } from '../../../electron/local-service/layers/store/async-layer-store';
import { openSqliteLayerStore } from '../../../electron/local-service/layers/store/sqlite-layer-store';
import { createLocalService, type LocalService } from '../../../electron/local-service/server';
import { ComputeResponseExact, type ComputeResponse } from '../../../shared/service/compute';
import { BACKEND, catalog, databaseFor, KEYS } from '../local-service/harness';

/** service.layers: what the RPC and Settings build on, and how its changes reach questions. */
let dir: string;
let districts: string;
const quarter = (x: number, name: string) => ({
  type: 'Feature',
  geometry: { type: 'Polygon', coordinates: [[[x, 47], [x + 0.01, 47], [x + 0.01, 47.01], [x, 47.01], [x, 47]]] },
  properties: { name },
});

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'fieldlens-layer-registry-'));
  districts = join(dir, 'districts.geojson');
  writeFileSync(districts, JSON.stringify({ type: 'FeatureCollection', features: [quarter(8, 'Alt'), quarter(8.02, 'Neu')] }));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const start = async (dataDir: string, layerStore?: LayerStore, database?: string) => {
  const service = createLocalService({ dataDir, keys: KEYS, logger: createMemoryLogger(), clock: () => new Date(), catalog: catalog(), layerStore, database: database ?? (await databaseFor(dataDir)) });
  const { baseUrl } = await service.start();
  const post = (query: string) =>
    fetch(`${baseUrl}/v1/compute`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEYS.bearer}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query }),
    });
  const ask = async (query: string): Promise<ComputeResponse> => {
    const res = await post(query);
    expect(res.status).toBe(200);
    return ComputeResponseExact.parse(await res.json());
  };
  /** A question that must be refused (422 problem+json naming what was not read). */
  const refused = async (query: string): Promise<Refusal> => {
    const res = await post(query);
    expect(res.status).toBe(422);
    const body = (await res.json()) as Refusal;
    expect(body.code).toBe('unread_question');
    return body;
  };
  /** Either answer: a 200 response, or a refusal. */
  const reply = async (query: string): Promise<ComputeResponse | Refusal> => {
    const res = await post(query);
    return res.status === 422 ? ((await res.json()) as Refusal) : ComputeResponseExact.parse(await res.json());
  };
  return { service, ask, post, refused, reply };
};
interface Refusal {
  code: string;
  detail: string;
  unread: { words: string; why: string }[];
  layers?: string[];
}
const isRefusal = (r: ComputeResponse | Refusal): r is Refusal => 'code' in r && r.code === 'unread_question';

describe('service.layers', () => {
  let service: LocalService;
  let ask: (q: string) => Promise<ComputeResponse>;
  const dataDir = () => join(dir, 'data');
  let refused: (q: string) => Promise<Refusal>;
  beforeAll(async () => ({ service, ask, refused } = await start(dataDir())));
  afterAll(async () => service?.close());

  it('without layers, "pharmacies in Lyon" answers nothing and says the word and that no layer holds it', async () => {
    const r = await refused('pharmacies in Lyon');
    expect(r.unread.map((u) => u.words)).toEqual(['pharmacies']);
    expect(r.detail).toContain('amenity=pharmacy');
    expect(r.detail).toContain('Layers: none');
    expect(r.layers).toEqual([]);
  });

  it('an import is announced, listed and its words answer at once; a removal takes them away', async () => {
    const changes: LayerChange[] = [];
    const stop = service.layers.onChange((c) => changes.push(c));
    const job = service.layers.startImport(districts);
    const info = await job.done;
    expect(changes).toEqual([{ type: 'added', layer: info }]);
    expect(await service.layers.list()).toEqual([info]);
    expect(await service.layers.get(info.id)).toEqual(info);
    expect((await ask('districts')).results.features.map((f) => f.properties.name).sort()).toEqual(['Alt', 'Neu']);
    const unknown = await refused('zorblaxes in Alt');
    expect(unknown.layers).toEqual(['districts']);

    expect(await service.layers.remove(info.id)).toBe(true);
    expect(await service.layers.remove(info.id)).toBe(false);
    expect(changes.map((c) => c.type)).toEqual(['added', 'removed']);
    expect((await refused('districts')).unread.map((u) => u.words)).toEqual(['districts']);
    stop();
    await (await service.layers.startImport(districts, { name: 'quarters' }).done);
    expect(changes).toHaveLength(2);
  });

  it('layers are kept across a restart and answer without a new import', async () => {
    await service.close();
    ({ service, ask } = await start(dataDir()));
    expect((await service.layers.list()).map((l) => l.name)).toEqual(['quarters']);
    expect((await ask('quarters')).results.numberMatched).toBe(2);
  });
});

describe('a given layer store', () => {
  it('is used for every layer question, read for its words once per change, and left open on close', async () => {
    const inner = openSqliteLayerStore({ dataDir: join(dir, 'own') });
    const calls: string[] = [];
    const counted = new Proxy(asAsyncLayerStore(inner), {
      get(target, prop, recv) {
        const v = Reflect.get(target, prop, recv);
        return typeof v === 'function' ? (...args: unknown[]) => (calls.push(String(prop)), v.apply(target, args)) : v;
      },
    });
    const { service, ask } = await start(join(dir, 'data-own'), counted);
    try {
      await service.layers.startImport(districts).done;
      calls.length = 0;
      await ask('districts');
      await ask('Alt');
      expect(calls.filter((c) => c === 'summary')).toHaveLength(1);
      expect(calls).toContain('scan');
      await ask('districts');
      expect(calls.filter((c) => c === 'summary')).toHaveLength(1);
    } finally {
      await service.close();
    }
    expect(inner.list().map((l) => l.name)).toEqual(['districts']);
    inner.close();
  });
});

describe('a layer removed while a question reads it', () => {
  // As when another process removes it and its notice has not arrived: the service still lists it.
  const behindTheBack = (dataDir: string) => {
    const inner = openSqliteLayerStore({ dataDir });
    const outer = asAsyncLayerStore(inner);
    const trap = { remove: false, fail: false, removeAtSummary: false };
    const store = new Proxy(outer, {
      get(target, prop, recv) {
        const v = Reflect.get(target, prop, recv);
        if (prop === 'summary' && typeof v === 'function')
          return (id: string) => {
            if (trap.removeAtSummary) {
              trap.removeAtSummary = false;
              inner.remove(id);
            }
            return v.apply(target, [id]);
          };
        if (prop !== 'scan' || typeof v !== 'function') return v;
        return (id: string, ...rest: unknown[]) => {
          if (trap.remove) {
            trap.remove = false;
            inner.remove(id);
          }
          if (trap.fail) throw new LayerNotFoundError(id);
          return v.apply(target, [id, ...rest]);
        };
      },
    });
    return { inner, store, trap };
  };

  it('is read again over the layers as they are now: no layer answers its word', async () => {
    const { inner, store, trap } = behindTheBack(join(dir, 'behind'));
    const { service, ask, refused } = await start(join(dir, 'data-behind'), store);
    try {
      await service.layers.startImport(districts).done;
      expect((await ask('districts')).results.numberMatched).toBe(2);
      trap.remove = true;
      const r = await refused('districts');
      expect(trap.remove).toBe(false);
      expect(r.layers).toEqual([]);
      expect(inner.list()).toEqual([]);
    } finally {
      await service.close();
      inner.close();
    }
  });

  it('removed between the list and its words: the question is read again without it', async () => {
    const { inner, store, trap } = behindTheBack(join(dir, 'behind-words'));
    const { service, refused } = await start(join(dir, 'data-behind-words'), store);
    try {
      trap.removeAtSummary = true;
      // The import's change makes the next question build the vocabulary, listing the new layer.
      await service.layers.startImport(districts).done;
      const r = await refused('districts');
      expect(trap.removeAtSummary).toBe(false);
      expect(r.layers).toEqual([]);
    } finally {
      await service.close();
      inner.close();
    }
  });

  it('a layer still listed but gone again on the second reading: 409, ask again', async () => {
    const { inner, store, trap } = behindTheBack(join(dir, 'behind-twice'));
    const { service, ask, post } = await start(join(dir, 'data-behind-twice'), store);
    try {
      await service.layers.startImport(districts).done;
      trap.fail = true;
      const res = await post('districts');
      expect(res.status).toBe(409);
      expect(((await res.json()) as { detail: string }).detail).toContain('removed while the question was answered');
      trap.fail = false;
      expect((await ask('districts')).results.numberMatched).toBe(2);
    } finally {
      await service.close();
      inner.close();
    }
  });
});

describe.runIf(BACKEND === 'postgis')('two processes on one database', () => {
  it('a layer one of them imports or removes changes what the other answers, without a restart', async () => {
    const first = await start(join(dir, 'team-a'));
    const second = await start(join(dir, 'team-b'), undefined, await databaseFor(join(dir, 'team-a')));
    try {
      // The second has built its vocabulary (no layer knows "districts") before the import.
      expect((await second.refused('districts')).unread.map((u) => u.words)).toEqual(['districts']);
      const info = await first.service.layers.startImport(districts).done;
      const answered = async (want: boolean) => {
        // NOTIFY reaches the other process after the import's commit: within a moment.
        for (let t = 0; t < 50; t++) {
          const r = await second.reply('districts');
          if ((!isRefusal(r) && r.results.numberMatched === 2) === want) return r;
          await new Promise((ok) => setTimeout(ok, 100));
        }
        throw new Error(`the second process never ${want ? 'answered' : 'stopped answering'} "districts"`);
      };
      const got = await answered(true);
      expect(isRefusal(got) ? [] : got.results.features.map((f) => f.properties.name).sort()).toEqual(['Alt', 'Neu']);
      expect(await first.service.layers.remove(info.id)).toBe(true);
      expect(isRefusal(await answered(false))).toBe(true);
    } finally {
      await second.service.close();
      await first.service.close();
    }
  });
});
