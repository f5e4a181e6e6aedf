import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ComputeResponseExact } from '../../../shared/service/compute';
import { Problem } from '../../../shared/service/problem';
import { fileForm, postForm, postJson, startService, stopService, type Running } from './harness';

let r: Running;
beforeAll(async () => {
  r = await startService();
});
afterAll(async () => {
  await stopService(r);
});

// A small seeded generator so every run sends the same requests.
function rng(seed: number) {
  return () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
}

const WORDS = [
  'airports', 'cities', 'countries', 'capital', 'large', 'medium', 'in', 'near', 'within', 'of', 'top', 'largest',
  'smallest', 'nearest', 'how', 'many', 'per', 'country', 'capita', 'area', 'density', 'between', 'and', 'over',
  'under', 'million', 'k', 'km', 'mi', 'm', '5', '0', '1.5', '100000', '-3', 'Paris', 'France', 'Texas', 'TX', ',',
  'Springfield', 'Europe', 'my', 'sites', 'these', 'those', 'sort', 'by', 'distance', 'to', 'the', 'HQ', '…', '日本',
  'ñandú', '"', "'", '>', '<', '1e309', 'NaN', 'uk', 'US', 'Georgia', 'new', 'york', 'city',
];

describe('robustness', () => {
  // Some generated questions match every city (135,000 features to rank and save): allow time.
  it('answers 150 generated questions with a valid response, a refusal naming what was not read, or a problem; never a 5xx', { timeout: 180_000 }, async () => {
    const next = rng(42);
    const pick = <T>(xs: T[]) => xs[Math.floor(next() * xs.length)]!;
    let ok = 0;
    let refusals = 0;
    for (let n = 0; n < 150; n++) {
      const query = Array.from({ length: 1 + Math.floor(next() * 9) }, () => pick(WORDS)).join(' ');
      const body: Record<string, unknown> = { query, limit: 1 + Math.floor(next() * 50) };
      if (next() < 0.2) body['coordinates'] = [{ name: 'HQ', latitude: next() * 180 - 90, longitude: next() * 360 - 180 }];
      if (next() < 0.1) body['measurement'] = pick(['count', 'per_capita', 'per_area']);
      if (next() < 0.1) body['answer'] = false;
      const res = await postJson(r, body);
      expect(res.status, `${query} -> ${JSON.stringify(res.body)}`).toBeLessThan(500);
      if (res.status === 200) {
        expect(ComputeResponseExact.safeParse(res.body).success, query).toBe(true);
        ok++;
      } else if (res.status === 422) {
        // Word salads are mostly not read in full: refused, each naming the words it could not use.
        const p = res.body as { code?: string; unread?: { words: string }[] };
        expect(p.code, query).toBe('unread_question');
        expect(p.unread?.length, query).toBeGreaterThan(0);
        refusals++;
      } else expect(Problem.parse(res.body).status, query).toBe(400);
    }
    expect(ok).toBeGreaterThan(0);
    expect(ok + refusals).toBeGreaterThan(120);
  });

  it('survives odd uploads: empty, binary, deep JSON, odd geometries', async () => {
    const deep = '['.repeat(5000) + ']'.repeat(5000);
    const odd = [
      { name: 'empty.csv', text: '' },
      { name: 'bin.csv', text: '\u0000\u0001\u0002\u00ff\ufffd' },
      { name: 'deep.geojson', text: deep },
      { name: 'num.geojson', text: '42' },
      { name: 'fc.geojson', text: JSON.stringify({ type: 'FeatureCollection', features: [1, null, 'x', { type: 'Feature' }] }) },
      { name: 'gc.geojson', text: JSON.stringify({ type: 'GeometryCollection', geometries: [] }) },
      { name: 'only-header.csv', text: 'lat,lon\n' },
      { name: 'weird.txt', text: 'x;y\n1;2\n' },
    ];
    for (const f of odd) {
      const res = await postForm(r, fileForm({ query: 'my sites near an airport' }, [f]));
      expect(res.status, f.name).toBeLessThan(500);
      if (res.status === 200) expect(ComputeResponseExact.safeParse(res.body).success, f.name).toBe(true);
      else expect(Problem.parse(res.body).status).toBe(400);
    }
  });
});
