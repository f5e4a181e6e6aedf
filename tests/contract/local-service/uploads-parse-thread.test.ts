import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probe as probeHealth, type Probes } from '../../support/health-probes';
import { KEYS, startService, stopService, type Running } from './harness';

let r: Running;
beforeAll(async () => {
  r = await startService();
});
afterAll(async () => {
  await stopService(r);
});

/**
 * One file posted by a separate Node process (a client in this one would share the service's
 * thread, and its own copying of 20 MB would count as the service's): the status and body.
 */
async function postFromChild(name: string, text: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const dir = mkdtempSync(join(tmpdir(), 'fieldlens-parse-'));
  const file = join(dir, name);
  writeFileSync(file, text);
  const script = `
    const { readFileSync } = require('node:fs');
    const [url, key, file] = process.argv.slice(1);
    const form = new FormData();
    form.append('query', 'my sites');
    form.append('limit', '5');
    form.append('answer', 'false');
    form.append('files', new Blob([readFileSync(file)]), require('node:path').basename(file));
    fetch(url, { method: 'POST', headers: { authorization: 'Bearer ' + key }, body: form })
      .then(async (res) => process.stdout.write(JSON.stringify({ status: res.status, body: await res.json() })));
  `;
  try {
    const out = await new Promise<string>((ok, fail) =>
      execFile(process.execPath, ['-e', script, `${r.baseUrl}/v1/compute`, KEYS.bearer, file], { maxBuffer: 64 << 20 }, (err, stdout) => (err ? fail(err) : ok(stdout))),
    );
    return JSON.parse(out) as { status: number; body: Record<string, unknown> };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `n` point features, one a line, of about 100 bytes each (200,000 fit under the 20 MiB limit). */
function pointsGeoJson(n: number): string {
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const lon = (((i * 104729) % 3400000) / 10000 - 170).toFixed(2);
    const lat = (((i * 7919) % 1400000) / 10000 - 60).toFixed(2);
    out.push(`{"type":"Feature","properties":{"n":${i}},"geometry":{"type":"Point","coordinates":[${lon},${lat}]}}`);
  }
  return `{"type":"FeatureCollection","features":[\n${out.join('\n,')}\n]}`;
}

/** A polygon ring of `n` vertices written as short integers, so two million fit under the limit. */
function bigPolygon(n: number): string {
  const parts: string[] = new Array<string>(n);
  for (let i = 0; i < n; i++) parts[i] = `[${i % 7},${i % 5}]`;
  parts[n - 1] = parts[0]!;
  return `{"type":"FeatureCollection","features":[\n{"type":"Feature","properties":{"name":"big"},"geometry":{"type":"Polygon","coordinates":[[${parts.join(',')}]]}}\n]}`;
}

const top = (l: number[]) => l.at(-1)!;

/**
 * /health probed every 20 ms while `post` runs, then up to as many probes with nothing else to do (the
 * control: on a shared machine the scheduler alone stalls a probe now and then). Times less this
 * thread's waits for a core.
 */
async function probed<T>(post: () => Promise<T>): Promise<{ value: T; loaded: Probes; control: Probes }> {
  // The probes' connection is opened first: it is not the service's work.
  await (await fetch(`${r.baseUrl}/health`)).arrayBuffer();
  let done = false;
  const sent = post().finally(() => (done = true));
  const during = probeHealth(`${r.baseUrl}/health`, () => done);
  const value = await sent;
  const loaded = await during;
  // Enough probes to see the machine's own stalls, few enough to keep the test short on a loaded machine.
  let budget = Math.min(loaded.held.length, 150);
  const control = await probeHealth(`${r.baseUrl}/health`, () => budget-- <= 0);
  return { value, loaded, control };
}

/**
 * Worst /health answer allowed while a file is read: 200 ms, or the control's worst when the
 * machine alone stalls longer. Judged less this thread's waits for a core and less collections of
 * its heap: this process also runs the test, and on a loaded machine (load average 25 on 2 cores)
 * one collection of a heap that just took 200,000 features stretched to 1.2 s while its helper
 * threads waited for cores; parsing on this thread held it 1.4 s on top of those.
 */
const allowed = (control: Probes) => Math.max(200, top(control.held) + 50);

describe('large uploads are parsed off the service thread', () => {
  it('keeps /health within 200 ms while a 200,000-feature GeoJSON is read and answered', { timeout: 600_000 }, async () => {
    const n = Number(process.env['PARSE_FEATURES'] ?? 200_000);
    const text = pointsGeoJson(n);
    expect(Buffer.byteLength(text)).toBeLessThan(20 * 1024 * 1024);
    const { value: res, loaded, control } = await probed(() => postFromChild('points.geojson', text));
    process.stdout.write(
      `${n.toLocaleString('en')}-feature GeoJSON: ${res.status}; /health: ${loaded.held.length} probes, worst ${top(loaded.held).toFixed(1)} ms (as measured ${top(loaded.raw).toFixed(1)} ms, less collections ${top(loaded.heldLessGc).toFixed(1)} ms); control worst ${top(control.held).toFixed(1)} ms\n`,
    );
    expect(res.status).toBe(200);
    expect((res.body['results'] as { numberMatched: number }).numberMatched).toBe(n);
    expect(loaded.held.length).toBeGreaterThan(5);
    expect(top(loaded.heldLessGc)).toBeLessThanOrEqual(allowed(control));
  });

  it('keeps /health within 200 ms while a 2,000,000-vertex polygon is refused', { timeout: 600_000 }, async () => {
    const text = bigPolygon(2_000_000);
    expect(Buffer.byteLength(text)).toBeLessThan(20 * 1024 * 1024);
    const { value: res, loaded, control } = await probed(() => postFromChild('huge-polygon.geojson', text));
    process.stdout.write(
      `2,000,000-vertex polygon: ${res.status} ${String(res.body['code'])}; /health: ${loaded.held.length} probes, worst ${top(loaded.held).toFixed(1)} ms (as measured ${top(loaded.raw).toFixed(1)} ms, less collections ${top(loaded.heldLessGc).toFixed(1)} ms); control worst ${top(control.held).toFixed(1)} ms\n`,
    );
    expect(res.status).toBe(400);
    expect(res.body['code']).toBe('too_many_vertices');
    expect(res.body['detail']).toBe('huge-polygon.geojson line 2: feature 1: its geometry has more than 1,000,000 vertices (the limit per feature); simplify it first');
    expect(top(loaded.heldLessGc)).toBeLessThanOrEqual(allowed(control));
  });
});
