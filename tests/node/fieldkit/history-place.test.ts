import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Cache } from '../../../electron/cache';
import type { ComputeResponse } from '../../../shared/service/compute';
import { bootTestApp, value } from '../../support/app';
import { rng } from '../cache/fixtures';

/** Even-odd ray casting, written here so the expectation does not come from the code under test. */
function inside([x, y]: [number, number], ring: [number, number][]): boolean {
  let odd = false;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    const [xi, yi] = ring[i]!;
    const [xj, yj] = ring[j]!;
    if (yi > y !== yj > y && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) odd = !odd;
  }
  return odd;
}

interface Entry {
  id: number;
  text: string;
  startedAt: number;
  points: [number, number][];
}

let dir: string;
let entries: Entry[];
const DAY = 86_400_000;
const T0 = Date.UTC(2026, 0, 1);

function response(query: string, points: [number, number][]): ComputeResponse {
  return {
    id: randomUUID(),
    query,
    answer: { status: 'complete', content: null, error: null },
    results: {
      type: 'FeatureCollection',
      numberMatched: points.length,
      numberReturned: points.length,
      features: points.map((p, i) => ({
        type: 'Feature',
        id: `n/${query}-${i}`,
        geometry: { type: 'Point', coordinates: p },
        properties: { name: `${query} ${i}`, address: null, source: { name: 'test', url: null }, attributes: {} },
      })),
    },
    warnings: [],
    usage: { meters: 0 },
  } as unknown as ComputeResponse;
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'fl-history-place-'));
  const cache = Cache.open(join(dir, 'cache.db'));
  const r = rng(11);
  entries = [];
  // 60 entries over 60 days around the Alps, words alternating between two subjects.
  for (let i = 0; i < 60; i++) {
    const text = i % 2 ? `huts near camp ${i}` : `bridges near camp ${i}`;
    const cx = 5 + r() * 10;
    const cy = 44 + r() * 4;
    const points = Array.from({ length: 3 + Math.floor(r() * 20) }, () => [+(cx + r() - 0.5).toFixed(5), +(cy + r() - 0.5).toFixed(5)] as [number, number]);
    const startedAt = T0 + i * DAY;
    const id = cache.storeCompute({ profileId: 'local', request: { query: text }, startedAt, finishedAt: startedAt + 100 }, response(text, points), JSON.stringify(response(text, points)));
    entries.push({ id, text, startedAt, points });
  }
  cache.close();
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

// A concave area (an L): its box holds many features that the area itself does not.
const L_AREA: [number, number][] = [[6, 44.5], [12, 44.5], [12, 45.5], [8, 45.5], [8, 47.5], [6, 47.5]];

describe('history by place and time, through the RPC router', () => {
  it('filters by a drawn area (concave), by extent, by dates and by words, each alone and together', async () => {
    const { services, rpc } = await bootTestApp(dir, { startLocalService: false });
    try {
      const list = async (input: Record<string, unknown>) =>
        value(await rpc.call('history.list', { limit: 500, ...input })).items.map((q) => q.id).sort((a, b) => a - b);
      const ids = (pred: (e: Entry) => boolean) => entries.filter(pred).map((e) => e.id).sort((a, b) => a - b);

      const inArea = (e: Entry) => e.points.some((p) => inside(p, L_AREA));
      const ringBox = (e: Entry) => e.points.some(([x, y]) => x >= 6 && x <= 12 && y >= 44.5 && y <= 47.5);
      const wantArea = ids(inArea);
      expect(wantArea.length).toBeGreaterThan(3);
      expect(ids(ringBox).length).toBeGreaterThan(wantArea.length); // the area is not its box
      expect(await list({ polygon: L_AREA })).toEqual(wantArea);

      const extent: [number, number, number, number] = [7, 44, 10, 46];
      const inExtent = (e: Entry) => e.points.some(([x, y]) => x >= 7 && x <= 10 && y >= 44 && y <= 46);
      expect(await list({ bbox: extent })).toEqual(ids(inExtent));

      const from = T0 + 10 * DAY;
      const to = T0 + 40 * DAY;
      const inDates = (e: Entry) => e.startedAt >= from && e.startedAt <= to;
      expect(await list({ from, to })).toEqual(ids(inDates));

      // Everything at once: words, extent, area and dates.
      const all = await list({ text: 'huts', bbox: extent, polygon: L_AREA, from, to });
      const want = ids((e) => e.text.startsWith('huts') && inDates(e) && e.points.some((p) => inside(p, L_AREA) && p[0] >= 7 && p[0] <= 10 && p[1] >= 44 && p[1] <= 46));
      expect(all).toEqual(want);
      expect(want.length).toBeGreaterThan(0);

      // An area outside every extent finds nothing, and a ring that is not closed is closed.
      expect(await list({ bbox: [20, 10, 21, 11], polygon: L_AREA })).toEqual([]);
      expect(await list({ polygon: [...L_AREA, L_AREA[0]!] })).toEqual(wantArea);
      const bad = await rpc.call('history.list', { polygon: [[0, 0], [1, 1]] });
      expect(bad.ok || bad.error.code).toBe('VALIDATION');
    } finally {
      await services.close();
    }
  });
});
