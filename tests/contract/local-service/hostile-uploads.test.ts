import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROBLEM_CONTENT_TYPE } from '../../../shared/service/problem';
import { deepPropertiesGeoJson } from '../../support/deep-json';
import { compute, computeForm, fileForm, postForm, postJson, savedCount, scalar, startService, stopService, type Running } from './harness';

let r: Running;
beforeAll(async () => {
  r = await startService();
});
afterAll(async () => {
  await stopService(r);
});

async function refused(name: string, body: string | Blob) {
  const form = new FormData();
  form.append('query', 'my sites');
  form.append('answer', 'false');
  form.append('files', typeof body === 'string' ? new Blob([body]) : body, name);
  const res = await postForm(r, form);
  return { status: res.status, contentType: res.contentType, body: res.body as { detail: string; code?: string } };
}

const counts = async () => ({
  searches: await scalar(r, 'SELECT count(*) FROM searches'),
  uploads: await scalar(r, 'SELECT count(*) FROM uploads'),
  links: await scalar(r, 'SELECT count(*) FROM search_uploads'),
});

/**
 * Polls /health every 20 ms while `work` runs: the longest wait for an answer, and how far the
 * RSS of this process (which runs the service) rose over where it started.
 */
async function whileProbing(work: () => Promise<unknown>): Promise<{ healthWorstMs: number; rssRiseMb: number }> {
  let worst = 0;
  const rss0 = process.memoryUsage.rss();
  let rssPeak = rss0;
  let running = true;
  const probe = (async () => {
    while (running) {
      const t = performance.now();
      const res = await fetch(`${r.baseUrl}/health`);
      await res.arrayBuffer();
      worst = Math.max(worst, performance.now() - t);
      rssPeak = Math.max(rssPeak, process.memoryUsage.rss());
      await new Promise((ok) => setTimeout(ok, 20));
    }
  })();
  try {
    await work();
  } finally {
    running = false;
    await probe;
  }
  return { healthWorstMs: Math.round(worst), rssRiseMb: Math.round((rssPeak - rss0) / 1048576) };
}

describe('a GeoJSON whose properties nest an array 5,000 levels deep, posted to /v1/compute', () => {
  it('is a 400 naming the file and the depth, and leaves no saved search or stored upload behind', async () => {
    // One saved search first, written through, so the counts below are settled.
    await compute(r, { query: 'airports in France', limit: 1, answer: false });
    expect(await savedCount(r, 1)).toBe(1);
    const before = await counts();

    const res = await refused('deep.geojson', deepPropertiesGeoJson(5000));
    expect(res.status).toBe(400);
    expect(res.contentType).toContain(PROBLEM_CONTENT_TYPE);
    expect(res.body.code).toBe('too_deep');
    expect(res.body.detail).toBe('deep.geojson: JSON nested too deeply: arrays and objects more than 100 levels deep');

    // A later request is saved: anything the failed one had queued would be written by now.
    await compute(r, { query: 'airports in Spain', limit: 1, answer: false });
    expect(await savedCount(r, before.searches + 1)).toBe(before.searches + 1);
    const after = await counts();
    expect(after).toEqual({ searches: before.searches + 1, uploads: before.uploads, links: before.links });
  });

  it('as a JSON body (an unknown field, or coordinates) is a 4xx problem, never a 500', async () => {
    const deep = `${'['.repeat(5000)}${']'.repeat(5000)}`;
    for (const body of [`{"query":"airports in France","answer":false,"extra":${deep}}`, `{"query":"airports in France","answer":false,"coordinates":${deep}}`]) {
      const res = await postJson(r, body);
      expect(res.status, body.slice(0, 60)).toBeGreaterThanOrEqual(200);
      expect(res.status, body.slice(0, 60)).toBeLessThan(500);
    }
  });

  it('is read when the same properties nest 50 levels', async () => {
    const res = await computeForm(r, fileForm({ query: 'my sites', answer: 'false' }, [{ name: 'ok.geojson', text: deepPropertiesGeoJson(50) }]));
    expect(res.results.numberMatched).toBe(1);
  });
});

/** A LineString or Polygon ring of `n` vertices written as short integers, so two million fit under the upload limit. */
function bigGeometry(type: 'LineString' | 'Polygon', n: number): string {
  const parts: string[] = new Array<string>(n);
  for (let i = 0; i < n; i++) parts[i] = `[${i % 7},${i % 5}]`;
  if (type === 'Polygon') parts[n - 1] = parts[0]!;
  const coords = parts.join(',');
  return `{"type":"FeatureCollection","features":[\n{"type":"Feature","properties":{"name":"big"},"geometry":{"type":"${type}","coordinates":${type === 'Polygon' ? `[[${coords}]]` : `[${coords}]`}}}\n]}`;
}

describe('lines and polygons with hundreds of thousands of vertices', () => {
  it('reads a 200,000-vertex line (a spread over it overflowed the stack)', { timeout: 60_000 }, async () => {
    const res = await computeForm(r, fileForm({ query: 'my sites', answer: 'false' }, [{ name: 'long-line.geojson', text: bigGeometry('LineString', 200_000) }]));
    expect(res.results.numberMatched).toBe(1);
    const f = res.results.features[0]!;
    expect(f.geometry.type).toBe('LineString');
    expect(f.properties.name).toBe('big');
    expect((f.geometry as { coordinates: unknown[] }).coordinates).toHaveLength(200_000);
  });

  // POLYGON_VERTICES can lower this in a slow run; past the limit it is refused the same way.
  const n = Number(process.env['POLYGON_VERTICES'] ?? 2_000_000);
  it(`refuses a ${n.toLocaleString('en')}-vertex polygon by name, with the limit, while /health answers`, { timeout: 120_000 }, async () => {
    const text = bigGeometry('Polygon', n);
    expect(Buffer.byteLength(text)).toBeLessThan(20 * 1024 * 1024);
    let res: Awaited<ReturnType<typeof refused>> | undefined;
    const { healthWorstMs, rssRiseMb } = await whileProbing(async () => (res = await refused('huge-polygon.geojson', text)));
    console.log(`${n.toLocaleString('en')}-vertex polygon: ${res!.status} ${res!.body.code}; /health worst ${healthWorstMs} ms; RSS +${rssRiseMb} MB`);
    expect(res!.status).toBe(400);
    expect(res!.body.code).toBe('too_many_vertices');
    expect(res!.body.detail).toBe('huge-polygon.geojson line 2: feature 1: its geometry has more than 1,000,000 vertices (the limit per feature); simplify it first');
    // Refused from a sliced scan of the text, before it is parsed: parsing alone took seconds and hundreds of MB.
    expect(healthWorstMs).toBeLessThan(2000);
    expect(rssRiseMb).toBeLessThan(300);
  });
});
