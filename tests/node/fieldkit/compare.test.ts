import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Cache } from '../../../electron/cache';
import type { ComputeResponse } from '../../../shared/service/compute';
import { bootTestApp, value } from '../../support/app';

/** Haversine metres, written here independently of the code under test. */
function metres([x0, y0]: number[], [x1, y1]: number[]): number {
  const r = Math.PI / 180;
  const h = Math.sin(((y1! - y0!) * r) / 2) ** 2 + Math.cos(y0! * r) * Math.cos(y1! * r) * Math.sin(((x1! - x0!) * r) / 2) ** 2;
  return 2 * 6_371_008.8 * Math.asin(Math.sqrt(h));
}

type Pt = { id: string; at: [number, number]; name: string };
function body(query: string, pts: Pt[]): ComputeResponse {
  return {
    id: randomUUID(),
    query,
    answer: { status: 'complete', content: null, error: null },
    results: {
      type: 'FeatureCollection', numberMatched: pts.length, numberReturned: pts.length,
      features: pts.map((p) => ({ type: 'Feature', id: p.id, geometry: { type: 'Point', coordinates: p.at }, properties: { name: p.name, source: { name: 't', url: null }, attributes: {} } })),
    },
    warnings: [],
    usage: { meters: 0 },
  } as unknown as ComputeResponse;
}

let dir: string;
let ids: { first: number; second: number; other: number };
// Two synthetic runs of one question: kept still, moved 800 m north, nudged 3 m, renamed, removed, added.
const first: Pt[] = [
  { id: 'still', at: [4.85, 45.75], name: 'Still' },
  { id: 'far', at: [4.9, 45.7], name: 'Far' },
  { id: 'nudge', at: [4.8, 45.8], name: 'Nudge' },
  { id: 'renamed', at: [4.7, 45.6], name: 'Old name' },
  { id: 'gone', at: [5.0, 45.9], name: 'Gone' },
];
const second: Pt[] = [
  { id: 'still', at: [4.85, 45.75], name: 'Still' },
  { id: 'far', at: [4.9, 45.7 + 800 / 111_195], name: 'Far' },
  { id: 'nudge', at: [4.8 + 0.00003, 45.8], name: 'Nudge' },
  { id: 'renamed', at: [4.7, 45.6], name: 'New name' },
  { id: 'new', at: [5.1, 45.5], name: 'New' },
];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'fl-compare-'));
  const cache = Cache.open(join(dir, 'cache.db'));
  const store = (q: string, pts: Pt[], t: number) => {
    const b = body(q, pts);
    return cache.storeCompute({ profileId: 'local', request: { query: q }, startedAt: t, finishedAt: t + 1 }, b, JSON.stringify(b));
  };
  ids = { first: store('towers near Lyon', first, 1000), second: store('towers near Lyon', second, 2000), other: store('bridges near Lyon', second, 3000) };
  cache.close();
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('comparing two runs of one question', () => {
  it('finds added, removed, moved beyond the tolerance and changed, and exports them as a layer with a change field', async () => {
    const { services, rpc } = await bootTestApp(dir, { startLocalService: false });
    try {
      const farMoved = metres(first[1]!.at, second[1]!.at);
      const nudgeMoved = metres(first[2]!.at, second[2]!.at);
      expect(farMoved).toBeGreaterThan(700);
      expect(nudgeMoved).toBeLessThan(25);

      const d = value(await rpc.call('history.compare', { oldId: ids.first, newId: ids.second, toleranceMetres: 25 }));
      const byId = Object.fromEntries(d.rows.map((r) => [r.id, r]));
      expect(Object.keys(byId).sort()).toEqual(['far', 'gone', 'new', 'renamed']);
      expect(byId['far']!.change).toBe('moved');
      expect(byId['far']!.movedMetres!).toBeCloseTo(farMoved, 0);
      // The map draws a move from where it was: the first run's position.
      expect(byId['far']!.from).toEqual(first[1]!.at);
      expect(byId['new']!.from).toBeNull();
      expect(byId['renamed']!.from).toBeNull();
      expect(byId['renamed']).toMatchObject({ change: 'changed', name: 'New name' });
      expect(byId['gone']!.change).toBe('removed');
      expect(byId['new']!.change).toBe('added');
      expect(d.unchanged).toBe(2); // still, and nudge within 25 m

      // A tighter tolerance counts the 3 m nudge as moved.
      const tight = value(await rpc.call('history.compare', { oldId: ids.first, newId: ids.second, toleranceMetres: 1 }));
      expect(tight.rows.find((r) => r.id === 'nudge')?.change).toBe('moved');

      const notSame = await rpc.call('history.compare', { oldId: ids.first, newId: ids.other });
      expect(notSame.ok || notSame.error.code).toBe('CONFLICT');

      // Exported through the export service as GeoJSON: one feature per change, with `change`.
      const done = new Promise<{ state: string }>((resolve) =>
        rpc.on('export.progress', (e) => {
          if (e.state !== 'running') resolve(e);
        }),
      );
      const dest = join(dir, 'changes.geojson');
      value(await rpc.call('export.start', { selection: { queryIds: [String(ids.first), String(ids.second)], compare: { toleranceMetres: 25 } }, format: 'geojson', destination: dest }));
      expect((await done).state).toBe('done');
      const fc = JSON.parse(readFileSync(dest, 'utf8')) as { features: { id: string; properties: { change: string; moved_m: number | null } }[] };
      expect(Object.fromEntries(fc.features.map((f) => [f.id, f.properties.change]))).toEqual({ far: 'moved', renamed: 'changed', new: 'added', gone: 'removed' });
      expect(fc.features.find((f) => f.id === 'far')!.properties.moved_m).toBeCloseTo(farMoved, 0);
    } finally {
      await services.close();
    }
  });
});
