import { describe, expect, it } from 'vitest';
import type { Result } from '../../../shared/rpc/errors';
import { featureDetails } from '../../../renderer/src/lib/details';
import { clipProse, clipText, errorSentence } from '../../../renderer/src/lib/format';
import { computeRows, imageryRows, observationRows } from '../../../renderer/src/lib/results';
import { useAppStore } from '../../../renderer/src/stores/app';
import { useHistoryStore } from '../../../renderer/src/stores/history';
import { useImageryStore } from '../../../renderer/src/stores/imagery';
import { useStreetStore } from '../../../renderer/src/stores/street';
import { scriptedClient, storesApp } from './support/stores';

function scripted(answer: (method: string, input: unknown) => Promise<Result<unknown>>) {
  const { client, calls } = scriptedClient(answer);
  return { calls, run: storesApp(client) };
}

describe('errors read as the sentence that matters', () => {
  it('prefers the service detail, then field errors by their last name, then the message', () => {
    const http = { code: 'VALIDATION', message: 'The service answered HTTP 400: limit must be at most 2000', details: { status: 400, serverMessage: 'limit must be at most 2000' } };
    expect(errorSentence(http)).toBe('limit must be at most 2000');
    const contract = { code: 'VALIDATION', message: 'Invalid input for compute.run: ✖ Too big', details: { issues: [{ path: 'request.limit', message: 'Too big: expected number to be <=2000' }] } };
    expect(errorSentence(contract)).toBe('limit: Too big: expected number to be <=2000');
    expect(errorSentence({ code: 'OFFLINE', message: 'Offline: x cannot be reached' })).toBe('Offline: x cannot be reached');
  });

  it('caps long text and long words', () => {
    const long = 'y'.repeat(10_000);
    expect(clipText(long)).toHaveLength(200);
    expect(clipText('short')).toBe('short');
    const prose = clipProse(`Found ${long} near Lyon`);
    expect(prose).toBe(`Found ${'y'.repeat(79)}… near Lyon`);
  });
});

describe('distances on the cards', () => {
  it('shows a street-level or imagery distance when given, and a compute one only when non-zero', () => {
    const obs = (d?: number | null) => ({ id: 'o', type: 'Feature', geometry: null, properties: { feature_name: 'bridge', image_url: null, date: null, distance_meters: d } });
    expect(observationRows([obs(350), obs(0), obs(null), obs()] as never).map((r) => r.distanceMeters)).toEqual([350, 0, null, null]);
    const rec = (d?: number) => ({ id: 'i', address: 'a', date: 'd', compass: 'c', interactive: false, image: '', geometry: { type: 'Point', coordinates: [0, 0] }, distance_meters: d });
    expect(imageryRows([rec(12_400), rec()] as never).map((r) => r.distanceMeters)).toEqual([12_400, null]);
    const feat = (d: number) => ({ id: 'f', properties: { name: 'n', address: '', distance_meters: d } });
    expect(computeRows([feat(0), feat(7931.9)] as never).map((r) => r.distanceMeters)).toEqual([null, 7931.9]);
  });
});

describe('details of a feature', () => {
  it('lists the uploaded attributes apart from the other properties, all values in full', () => {
    const name = 'N'.repeat(10_000);
    const d = featureDetails({ name, kind: 'upload', iata: null, source: { name: 'depots.csv', url: '' }, attributes: { site_code: 'LY-07', capacity_t: 1250, tags: ['a'] } });
    expect(d.title).toBe(name);
    expect(d.properties).toEqual([
      { key: 'kind', value: 'upload' },
      { key: 'source', value: 'depots.csv' },
    ]);
    expect(d.attributes).toEqual([
      { key: 'site_code', value: 'LY-07' },
      { key: 'capacity_t', value: '1250' },
      { key: 'tags', value: '["a"]' },
    ]);
  });
  it('says which data layer or file the attributes come from', () => {
    const from = (source: unknown) => featureDetails({ name: 'x', source, attributes: { a: 1 } }).attributesFrom;
    expect(from({ name: 'Lyon OSM', url: 'layer:3' })).toBe('the data layer “Lyon OSM”');
    expect(from({ name: 'depots.csv', url: 'upload:depots.csv' })).toBe('the uploaded file “depots.csv”');
    expect(from({ name: 'OurAirports', url: 'https://ourairports.com' })).toBe('the source “OurAirports”');
    expect(from(undefined)).toBe('the source');
  });
});

describe('runs of the Imagery and Street-level tabs', () => {
  it('cancel through their own methods, and report failures in their panel', async () => {
    const releases: Array<(r: Result<unknown>) => void> = [];
    const { calls, run } = scripted((method) =>
      method.endsWith('.cancel') ? Promise.resolve({ ok: true, value: { cancelled: true } }) : new Promise((r) => releases.push(r)),
    );
    const { imagery, street, app } = run(() => ({ imagery: useImageryStore(), street: useStreetStore(), app: useAppStore() }));
    imagery.query = 'Paris';
    street.query = 'bridge';
    const a = imagery.search();
    const b = street.run();
    expect([imagery.busy, street.busy]).toEqual([true, true]);
    await imagery.cancel();
    await street.cancel();
    const runIds = calls.filter((c) => !c.method.endsWith('.cancel')).map((c) => (c.input as { runId: string }).runId);
    expect(calls.filter((c) => c.method.endsWith('.cancel'))).toEqual([
      { method: 'imagery.cancel', input: { runId: runIds[0] } },
      { method: 'stream.cancel', input: { runId: runIds[1] } },
    ]);
    releases[0]!({ ok: false, error: { code: 'CANCELLED', message: 'The request was cancelled' } });
    releases[1]!({ ok: false, error: { code: 'OFFLINE', message: 'Offline: gone' } });
    await Promise.all([a, b]);
    expect([imagery.busy, street.busy]).toEqual([false, false]);
    expect(street.error?.code).toBe('OFFLINE');
    expect(app.lastError?.action).toBe('Street-level');
    expect(app.connectionState).toBe('offline');
  });
});

describe('connection state', () => {
  it('reads reconnecting while asked on demand, then what the probe found', async () => {
    let answer: (r: Result<unknown>) => void = () => {};
    const { calls, run } = scripted(() => new Promise((r) => (answer = r)));
    const app = run(() => useAppStore());
    expect(app.connectionState).toBe('reconnecting');
    const checking = app.checkHealth(true);
    expect(app.connectionState).toBe('reconnecting');
    expect(app.checking).toBe(true);
    // A second ask while one is on its way is not doubled.
    void app.checkHealth(true);
    expect(calls.filter((c) => c.method === 'service.health')).toHaveLength(1);
    answer({ ok: true, value: { online: false, base: false, search: true, message: 'gone' } });
    await checking;
    expect(app.connectionState).toBe('offline');
  });
});

describe('History rerun', () => {
  it('keeps the rerun error for the open entry panel', async () => {
    const { run } = scripted(async (method) => {
      if (method === 'history.get') return { ok: true, value: { id: 3, kind: 'stream', raw: null, warnings: [], answerContent: null, error: null } };
      if (method === 'history.thread') return { ok: true, value: { nodes: [] } };
      return { ok: false, error: { code: 'OFFLINE', message: 'Offline: http://127.0.0.1:1 cannot be reached (ECONNREFUSED)' } };
    });
    const history = run(() => useHistoryStore());
    await history.open(3);
    await history.rerun();
    expect(history.opened?.id).toBe(3);
    expect(history.error?.code).toBe('OFFLINE');
    history.close();
    expect(history.error).toBeNull();
  });
});
