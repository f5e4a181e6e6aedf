import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { meters } from '../../../electron/local-service/http/compute';
import { ComputeResponseExact } from '../../../shared/service/compute';
import { ImageryRecordExact, ImageryResponseSuccess } from '../../../shared/service/imagery';
import { StreamResponseSuccess, streamYear } from '../../../shared/service/stream';
import { FaultProxy } from './fault-proxy';
import { KEYS, SAMPLE_DIR, failure, makeClient, startLocal, type Local } from './harness';

let local: Local;
const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

beforeAll(async () => {
  local = await startLocal();
});
afterAll(() => local.stop());

/** Requests the service's hosts see while fn runs. */
async function observe(fn: () => Promise<unknown>) {
  const from = local.seen.length;
  await fn();
  return local.seen.slice(from);
}

describe('compute', () => {
  it('sends JSON with a Bearer key and gets a spec response, answer written or skipped', async () => {
    const { client } = makeClient(local);
    let ex!: Awaited<ReturnType<typeof client.compute>>;
    const seen = await observe(async () => {
      ex = await client.compute({ query: 'large airports within 30 km of Paris', limit: 1 });
    });
    expect(seen).toEqual([
      { host: 'base', method: 'POST', path: '/v1/compute', authorization: `Bearer ${KEYS.bearer}`, contentType: 'application/json' },
    ]);
    const body = ComputeResponseExact.parse(JSON.parse(ex.raw));
    expect(ex.body).toEqual(body);
    expect(ex.status).toBe(200);
    expect(body.query).toBe('large airports within 30 km of Paris');
    expect(body.answer.status).toBe('complete');
    expect(body.answer.content).toMatch(/\S/);
    expect(body.results.numberReturned).toBe(1);
    expect(body.results.numberMatched).toBeGreaterThanOrEqual(2); // CDG and Orly at least
    expect(body.results.features[0]!.properties.distance_meters).toBeLessThanOrEqual(30_000);
    expect(ex.request).toEqual({ query: 'large airports within 30 km of Paris', limit: 1, answer: true, model: 'compute' });

    const skipped = ComputeResponseExact.parse(JSON.parse((await client.compute({ query: 'airports in Malta', answer: false })).raw));
    expect(skipped.answer).toEqual({ status: 'skipped', content: null, error: null });
  });

  it('sends multipart with repeated files (CSV and GeoJSON) and an image; the service reads all three', async () => {
    // A pass-through proxy keeps the bytes on the wire for inspection.
    const proxy = await new FaultProxy(local.baseUrl).start();
    try {
      const { client } = makeClient({ baseUrl: proxy.url, searchBaseUrl: local.searchBaseUrl });
      const enc = new TextEncoder();
      const photo = readFileSync(join(SAMPLE_DIR, 'berlin-mitte.jpg'));
      const csv = 'name,lat,lon,owner\nA,48.85,2.35,ann\nB,0.5,-30.0,bob\n';
      const geojson = JSON.stringify({
        type: 'FeatureCollection',
        features: [{ type: 'Feature', properties: { name: 'C', tag: 7 }, geometry: { type: 'Point', coordinates: [-3.7, 40.4] } }],
      });
      const seen = await observe(async () => {
        const ex = await client.compute(
          {
            query: 'which of my sites are within 50 km of an airport',
            limit: 5,
            user_id: 'u1',
            coordinates: [{ name: 'HQ', latitude: 48.85, longitude: 2.35 }],
          },
          {
            attachments: [
              { field: 'files', name: 'a.csv', contentType: 'text/csv', content: enc.encode(csv) },
              { field: 'files', name: 'b.geojson', contentType: 'application/geo+json', content: enc.encode(geojson) },
              { field: 'images', name: 'ref.jpg', contentType: 'image/jpeg', content: photo },
            ],
          },
        );
        const body = ComputeResponseExact.parse(JSON.parse(ex.raw));
        const byName = new Map(body.results.features.map((f) => [f.properties.name, f]));
        expect([...byName.keys()].sort()).toEqual(['A', 'C']);
        expect(byName.get('A')!.properties.attributes).toMatchObject({ owner: 'ann' });
        expect(byName.get('C')!.properties.attributes).toMatchObject({ tag: 7 });
        expect(body.warnings).toContainEqual(expect.objectContaining({ code: 'images_unused', message: expect.stringMatching(/^1 reference image/) }));
        // Three uploads are metered: both files and the image arrived.
        expect(body.usage.meters).toBe(meters(body.results.numberMatched, 3, true));
        expect(ex.request).toMatchObject({ files: ['a.csv', 'b.geojson'], images: ['ref.jpg'], limit: 5 });
      });
      expect(seen).toHaveLength(1);
      expect(seen[0]!.contentType).toMatch(/^multipart\/form-data; boundary=/);
      expect(seen[0]!.authorization).toBe(`Bearer ${KEYS.bearer}`);

      const sent = proxy.requests[0]!;
      const form = await new Response(sent.body, { headers: { 'content-type': String(sent.headers['content-type']) } }).formData();
      const files = form.getAll('files') as File[];
      expect(files.map((f) => [f.name, f.type])).toEqual([
        ['a.csv', 'text/csv'],
        ['b.geojson', 'application/geo+json'],
      ]);
      expect(await files[0]!.text()).toBe(csv);
      const images = form.getAll('images') as File[];
      expect(images.map((f) => f.name)).toEqual(['ref.jpg']);
      expect(sha(new Uint8Array(await images[0]!.arrayBuffer()))).toBe(sha(photo));
      expect([form.get('query'), form.get('limit'), form.get('coordinates')]).toEqual([
        'which of my sites are within 50 km of an airport',
        '5',
        JSON.stringify([{ name: 'HQ', latitude: 48.85, longitude: 2.35 }]),
      ]);
    } finally {
      await proxy.stop();
    }
  });

  it('continues an earlier query by its id (search_id), twice over', async () => {
    const { client } = makeClient(local);
    const a = (await client.compute({ query: 'airports in Spain', limit: 1 })).body;
    const bx = await client.compute({ query: 'only those within 50 km of Madrid', search_id: a.id, limit: 50 });
    const b = ComputeResponseExact.parse(JSON.parse(bx.raw));
    expect(bx.request['search_id']).toBe(a.id);
    expect(b.id).not.toBe(a.id);
    expect(b.results.numberMatched).toBeGreaterThan(0);
    expect(b.results.numberMatched).toBeLessThan(a.results.numberMatched);
    for (const f of b.results.features) expect(f.properties.distance_meters).toBeLessThanOrEqual(50_000);
    const c = ComputeResponseExact.parse(JSON.parse((await client.compute({ query: 'how many per country', search_id: b.id })).raw));
    expect(c.results.features.map((f) => f.properties.name)).toEqual(['Spain']);
    expect(c.results.features[0]!.properties.attributes).toMatchObject({ count: b.results.numberMatched });
  });
});

describe('stream', () => {
  it('filters by year and orders by distance to several position points', async () => {
    const { client } = makeClient(local);
    const berlin = { latitude: 52.5163, longitude: 13.3777 };
    const nairobi = { latitude: -1.2864, longitude: 36.8172 };
    let body!: StreamResponseSuccess;
    const seen = await observe(async () => {
      const ex = await client.stream({ query: 'sample', position: { points: [berlin, nairobi] }, year: 2023 });
      body = StreamResponseSuccess.parse(JSON.parse(ex.raw));
      expect(ex.request).toEqual({ query: 'sample', position: { points: [berlin, nairobi] }, year: 2023, limit: 50 });
    });
    expect(seen.map((s) => [s.host, s.path, s.authorization, s.apiKey])).toEqual([['base', '/v1/stream', `Bearer ${KEYS.bearer}`, undefined]]);
    expect(streamYear(body)).toBe('2023');
    const feats = body.data.geojson.features;
    // Positions bound the search to the stated radius: the 2023 samples of Paris and Cape Town
    // are thousands of km from both points and are not listed.
    expect(feats.map((f) => f.properties.address)).toEqual([
      expect.stringMatching(/^(Berlin|Nairobi)/),
      expect.stringMatching(/^(Berlin|Nairobi)/),
    ]);
    expect(body.data['radius_meters']).toBe(50_000);
    expect(feats.every((f) => f.properties.year === '2023')).toBe(true);
    const d = feats.map((f) => f.properties['distance_meters'] as number);
    expect(d.every((x) => typeof x === 'number')).toBe(true);
    expect([...d].sort((x, y) => x - y)).toEqual(d);
    expect(d[0]).toBeLessThan(1000);
    expect(body.data.query).toBe('sample');
    expect(body.result_id).toMatch(/\S/);
  });

  it('keeps to a region_id and year', async () => {
    const { client } = makeClient(local);
    const body = StreamResponseSuccess.parse(JSON.parse((await client.stream({ query: 'sample', region_id: '250', year: 2024 })).raw));
    expect(body.data.geojson.features.map((f) => [f.properties.address, f.properties.year])).toEqual([['Paris, France', '2024']]);
    expect(body.regions).toEqual([expect.objectContaining({ region_id: '250', name: 'France' })]);
    expect(streamYear(body)).toBe('2024');
  });
});

describe('imagery search', () => {
  it('pages through every record exactly once with x-api-key on the search host', async () => {
    const { client } = makeClient(local);
    const first = ImageryResponseSuccess.parse(JSON.parse((await client.imagerySearch({ query: '*', limit: 3, page: 1 })).raw));
    const total = readdirSync(SAMPLE_DIR).filter((f) => f.endsWith('.jpg')).length;
    expect(first.pageTotal).toBe(Math.ceil(total / 3));
    const ids: string[] = [];
    const seen = await observe(async () => {
      for (let page = 1; page <= first.pageTotal; page++) {
        const ex = await client.imagerySearch({ query: '*', limit: 3, page });
        const body = ImageryResponseSuccess.parse(JSON.parse(ex.raw));
        expect([body.page, body.pageTotal]).toEqual([page, first.pageTotal]);
        expect(body.data.length).toBe(page < first.pageTotal ? 3 : total - 3 * (first.pageTotal - 1));
        for (const r of body.data) ImageryRecordExact.parse(r);
        ids.push(...body.data.map((r) => r.id));
      }
    });
    expect(ids).toHaveLength(total);
    expect(new Set(ids).size).toBe(total);
    expect(seen).toHaveLength(first.pageTotal);
    for (const s of seen) expect(s).toEqual({ host: 'search', method: 'POST', path: '/search', apiKey: KEYS.search, contentType: 'application/json' });
    const past = ImageryResponseSuccess.parse(JSON.parse((await client.imagerySearch({ query: '*', limit: 3, page: first.pageTotal + 1 })).raw));
    expect(past.data).toEqual([]);
  });
});

describe('media', () => {
  it('fetches image bytes with the key of the host that issued the link, and no key for other origins', async () => {
    const { client } = makeClient(local);
    const im = ImageryResponseSuccess.parse((await client.imagerySearch({ query: 'Reykjavik' })).body);
    const rec = im.data[0]!;
    expect(rec.address).toBe('Reykjavík, Iceland');
    const onDisk = readFileSync(join(SAMPLE_DIR, 'reykjavik-360.jpg'));
    let got!: { contentType: string; bytes: Uint8Array };
    const seen = await observe(async () => {
      got = await client.fetchMedia(rec.image);
    });
    expect(got.contentType).toBe('image/jpeg');
    expect(sha(got.bytes)).toBe(sha(onDisk));
    expect(seen.map((s) => [s.host, s.method, s.apiKey, s.authorization])).toEqual([['search', 'GET', KEYS.search, undefined]]);

    const st = StreamResponseSuccess.parse((await client.stream({ query: 'Reykjavik' })).body);
    const imageUrl = st.data.geojson.features[0]!.properties.image_url!;
    const seenBase = await observe(() => client.fetchMedia(imageUrl));
    expect(seenBase.map((s) => [s.host, s.authorization, s.apiKey])).toEqual([['base', `Bearer ${KEYS.bearer}`, undefined]]);

    // The same file behind another origin: the link still works, and no key goes there.
    const other = await new FaultProxy(local.searchBaseUrl).start();
    try {
      const u = new URL(rec.image);
      const viaOther = await client.fetchMedia(other.url + u.pathname + u.search);
      expect(sha(viaOther.bytes)).toBe(sha(onDisk));
      expect(other.requests[0]!.headers['authorization']).toBeUndefined();
      expect(other.requests[0]!.headers['x-api-key']).toBeUndefined();
    } finally {
      await other.stop();
    }
    expect((await failure(client.fetchMedia('file:///etc/passwd'))).code).toBe('VALIDATION');
  });
});
