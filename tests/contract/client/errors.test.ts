import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ComputeResponseExact, QUERY_MAX_CHARS } from '../../../shared/service/compute';
import { ImageryResponseSuccess } from '../../../shared/service/imagery';
import { Problem } from '../../../shared/service/problem';
import { FaultProxy, type ProxiedRequest } from './fault-proxy';
import { KEYS, failure, makeClient, startLocal, type Local } from './harness';

let local: Local;
beforeAll(async () => {
  local = await startLocal();
});
afterAll(() => local.stop());

/** The error body as the service sent it, checked against the shared problem schema. */
const problemOf = (body: string | undefined) => Problem.parse(JSON.parse(body ?? 'null'));

/** A request-rewriting proxy: the client's own checks pass, the service gets the edited JSON. */
async function rewriting(target: string, edit: (json: Record<string, unknown>) => Record<string, unknown>) {
  const proxy = await new FaultProxy(target).start();
  proxy.plan = () => ({
    request: (r: ProxiedRequest) => ({ body: Buffer.from(JSON.stringify(edit(JSON.parse(r.body.toString()) as Record<string, unknown>))) }),
  });
  return proxy;
}

describe('401: a wrong or missing key, per host', () => {
  it('a wrong Bearer key fails compute and stream with AUTH; the search host still answers', async () => {
    const { client } = makeClient(local, { keys: { bearer: 'wrong-bearer-key' } });
    for (const call of [() => client.compute({ query: 'airports in Malta' }), () => client.stream({ query: 'sample' })]) {
      const e = await failure(call());
      expect([e.code, e.status, e.info.serverMessage]).toEqual(['AUTH', 401, 'The API key is not valid.']);
      expect(e.message).toContain('The API key is not valid.');
      expect(problemOf(e.info.body)).toMatchObject({ status: 401, title: 'Unauthorized' });
      expect(e.info.sent).toBe(true);
    }
    ImageryResponseSuccess.parse((await client.imagerySearch({ query: 'Paris' })).body);
    expect(client.online).toBe(true);
  });

  it('a wrong search key fails only the imagery search', async () => {
    const { client } = makeClient(local, { keys: { search: 'wrong-search-key' } });
    const e = await failure(client.imagerySearch({ query: 'Paris' }));
    expect([e.code, e.status, e.info.serverMessage]).toEqual(['AUTH', 401, 'The API key is not valid.']);
    ComputeResponseExact.parse(JSON.parse((await client.compute({ query: 'airports in Malta' })).raw));
  });

  it('each host wants its own key in its own header; no stored key sends none', async () => {
    const swapped = makeClient(local, { keys: { bearer: KEYS.search, search: KEYS.bearer } }).client;
    expect((await failure(swapped.compute({ query: 'airports in Malta' }))).status).toBe(401);
    expect((await failure(swapped.imagerySearch({ query: 'Paris' }))).status).toBe(401);

    const none = makeClient(local, { keys: { bearer: null, search: null } }).client;
    const c = await failure(none.compute({ query: 'airports in Malta' }));
    expect([c.code, c.status, c.info.serverMessage]).toEqual(['AUTH', 401, 'Send Authorization: Bearer <key>.']);
    const s = await failure(none.imagerySearch({ query: 'Paris' }));
    expect([s.code, s.status, s.info.serverMessage]).toEqual(['AUTH', 401, 'Send x-api-key: <key>.']);
  });
});

describe('400 with field errors', () => {
  it('values the client accepts but the service does not come back as VALIDATION with each field', async () => {
    const { client } = makeClient(local);
    const e = await failure(client.compute({ query: 'cities', h3_ids: ['8a2a1072b59ffff', 'nonsense'], measurement: 'average' }));
    expect([e.code, e.status, e.info.serverMessage]).toEqual(['VALIDATION', 400, 'The request has invalid fields.']);
    expect(e.info.fieldErrors).toEqual([
      { field: 'h3_ids.1', message: '"nonsense" is not a valid H3 cell' },
      { field: 'measurement', message: expect.stringMatching(/^measurement must be one of /) },
    ]);
    expect(e.details()).toMatchObject({ status: 400, fieldErrors: e.info.fieldErrors });
    expect(problemOf(e.info.body).errors).toEqual(e.info.fieldErrors);

    // The same in multipart form: h3_ids goes as a repeated field and arrives as a list.
    const csv = new TextEncoder().encode('name,lat,lon\nA,1,2\n');
    const form = await failure(
      client.compute({ query: 'my sites', h3_ids: ['8a2a1072b59ffff', 'nonsense'] }, { attachments: [{ field: 'files', name: 's.csv', content: csv }] }),
    );
    expect([form.code, form.status, form.info.fieldErrors]).toEqual(['VALIDATION', 400, [{ field: 'h3_ids.1', message: '"nonsense" is not a valid H3 cell' }]]);
  });

  it('the service checks each operation itself (requests edited past the client by a proxy)', async () => {
    const base = await rewriting(local.baseUrl, (j) =>
      j['year'] !== undefined ? { ...j, year: '2024', limit: 500 } : { ...j, limit: 5000, coordinates: [{ name: 'x', latitude: 200, longitude: 0 }] },
    );
    const search = await rewriting(local.searchBaseUrl, (j) => ({ ...j, limit: 500, page: 0 }));
    try {
      const { client } = makeClient({ baseUrl: base.url, searchBaseUrl: search.url });
      const c = await failure(client.compute({ query: 'cities', limit: 10 }));
      expect([c.code, c.status]).toEqual(['VALIDATION', 400]);
      expect(c.info.fieldErrors!.map((f) => f.field).sort()).toEqual(['coordinates.0.latitude', 'limit']);
      const s = await failure(client.stream({ query: 'sample', year: 2024 }));
      expect([s.code, s.status, s.info.serverMessage]).toEqual(['VALIDATION', 400, 'The stream request is not valid.']);
      expect(s.info.fieldErrors!.map((f) => f.field).sort()).toEqual(['limit', 'year']);
      const i = await failure(client.imagerySearch({ query: 'Paris' }));
      expect([i.code, i.status, i.info.serverMessage]).toEqual(['VALIDATION', 400, 'The search request is not valid.']);
      expect(i.info.fieldErrors!.map((f) => f.field).sort()).toEqual(['limit', 'page']);
      for (const e of [c, s, i]) for (const f of e.info.fieldErrors!) expect(f.message).toMatch(/\S/);
    } finally {
      await base.stop();
      await search.stop();
    }
  });

  it('an invalid request is refused by the client before anything is sent', async () => {
    const { client } = makeClient(local);
    const before = local.seen.length;
    const e = await failure(client.compute({ query: '  ', limit: 5000 }));
    expect([e.code, e.status, e.info.sent]).toEqual(['VALIDATION', undefined, false]);
    expect(e.info.fieldErrors!.map((f) => f.field).sort()).toEqual(['limit', 'query']);
    const long = await failure(client.compute({ query: 'a'.repeat(QUERY_MAX_CHARS + 1) }));
    expect([long.code, long.info.sent, long.info.fieldErrors!.map((f) => f.field)]).toEqual(['VALIDATION', false, ['query']]);
    expect(local.seen.length).toBe(before);
  });
});

describe('404, 413, 415', () => {
  it('404 NOT_FOUND for a continuation of an unknown search_id', async () => {
    const { client } = makeClient(local);
    const id = randomUUID();
    const e = await failure(client.compute({ query: 'only those in Spain', search_id: id }));
    expect([e.code, e.status, e.info.serverMessage]).toEqual(['NOT_FOUND', 404, `No saved query with search_id ${id}.`]);
    expect(e.info.fieldErrors).toEqual([{ field: 'search_id', message: 'unknown search_id' }]);
  });

  it('413 for a JSON body over the service limit, an upload over UPLOAD_LIMITS.fileSize, and too many files', async () => {
    const { client } = makeClient(local);
    // A question text that long is refused before sending (QUERY_MAX_CHARS): the body is made large by its cells.
    const json = await failure(client.compute({ query: 'in these cells', h3_ids: Array.from({ length: 70_000 }, () => '8928308280fffff') }));
    expect([json.code, json.status]).toEqual(['HTTP', 413]);
    expect(json.info.serverMessage).toMatch(/\S/);
    expect(problemOf(json.info.body).title).toBe('Payload Too Large');

    const { UPLOAD_LIMITS } = await import('../../../electron/local-service/http/compute-body');
    const big = new Uint8Array(UPLOAD_LIMITS.fileSize + 1024).fill(0x31);
    const upload = await failure(client.compute({ query: 'these' }, { attachments: [{ field: 'files', name: 'big.csv', content: big }] }));
    expect([upload.code, upload.status]).toEqual(['HTTP', 413]);
    expect(problemOf(upload.info.body).title).toBe('Payload Too Large');

    const small = new TextEncoder().encode('name,lat,lon\nA,1,2\n');
    const many = Array.from({ length: UPLOAD_LIMITS.files + 1 }, (_, i) => ({ field: 'files' as const, name: `f${i}.csv`, content: small }));
    const count = await failure(client.compute({ query: 'these' }, { attachments: many }));
    expect([count.code, count.status]).toEqual(['HTTP', 413]);
    // The service is still there for the next request.
    ComputeResponseExact.parse(JSON.parse((await client.compute({ query: 'airports in Malta' })).raw));
  });

  it('415 is out of the client\'s reach (it sends JSON or multipart); with the type rewritten it reads as HTTP 415', async () => {
    const proxy = await new FaultProxy(local.baseUrl).start();
    proxy.plan = () => ({ request: () => ({ headers: { 'content-type': 'text/plain' } }) });
    try {
      const { client } = makeClient({ baseUrl: proxy.url, searchBaseUrl: local.searchBaseUrl });
      const e = await failure(client.compute({ query: 'airports in Malta' }));
      expect([e.code, e.status]).toEqual(['HTTP', 415]);
      expect(problemOf(e.info.body).title).toBe('Unsupported Media Type');
      expect(e.info.serverMessage).toBe(problemOf(e.info.body).detail);
    } finally {
      await proxy.stop();
    }
  });
});
