import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runKeyTest, testRequest } from '../../../electron/keys/key-test';
import { fakeKey } from './keyring';

// Plain HTTP behaviour of the key test; needs no keychain.
const app = Fastify();
let url = '';
const goodKey = fakeKey('good');
beforeAll(async () => {
  app.post('/slow/v1/compute', () => new Promise(() => undefined));
  app.post('/unread/v1/compute', (req, reply) =>
    req.headers.authorization === `Bearer ${goodKey}`
      ? reply.code(422).send({ code: 'unread_question' })
      : reply.code(401).send({ title: 'Unauthorized' }),
  );
  await app.listen({ host: '127.0.0.1', port: 0 });
  const a = app.server.address();
  url = `http://127.0.0.1:${typeof a === 'object' && a ? a.port : 0}`;
});
afterAll(() => app.close());

describe('runKeyTest', () => {
  it('gives up on a host that does not answer and calls it unreachable', async () => {
    const t0 = Date.now();
    const r = await runKeyTest(
      { profileId: 'p', kind: 'bearer', baseUrl: `${url}/slow`, searchBaseUrl: '' },
      fakeKey('slow'),
      fetch,
      { timeoutMs: 300 },
    );
    expect(r).toMatchObject({ outcome: 'unreachable', httpStatus: null, message: expect.stringMatching(/no answer in time/) });
    expect(Date.now() - t0).toBeLessThan(3000);
  });

  it('takes a 422 refusal of the test question as an accepted key, and a 401 as refused', async () => {
    const target = { profileId: 'p', kind: 'bearer' as const, baseUrl: `${url}/unread`, searchBaseUrl: '' };
    expect(await runKeyTest(target, goodKey, fetch)).toMatchObject({ outcome: 'ok', httpStatus: 422 });
    expect(await runKeyTest(target, fakeKey('bad'), fetch)).toMatchObject({ outcome: 'unauthorized', httpStatus: 401 });
  });

  it('builds the spec 5 request per kind, without following redirects', () => {
    const k = fakeKey('req');
    const b = testRequest({ profileId: 'p', kind: 'bearer', baseUrl: 'https://a.example/api/', searchBaseUrl: '' }, k);
    expect(b?.url).toBe('https://a.example/api/v1/compute');
    expect(b?.init.headers).toMatchObject({ authorization: `Bearer ${k}` });
    expect(b?.init.redirect).toBe('manual');
    const s = testRequest({ profileId: 'p', kind: 'search', baseUrl: '', searchBaseUrl: 'https://s.example' }, k);
    expect(s?.url).toBe('https://s.example/search');
    expect(s?.init.headers).toMatchObject({ 'x-api-key': k });
    expect(s?.init.headers).not.toHaveProperty('authorization');
    expect(testRequest({ profileId: 'p', kind: 'search', baseUrl: 'https://a.example', searchBaseUrl: '' }, k)).toBeNull();
  });

  it('never puts the key in its result, whatever happens', async () => {
    const k = fakeKey('msg');
    const failing = (async () => {
      throw Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNRESET' } });
    }) as typeof fetch;
    const r = await runKeyTest({ profileId: 'p', kind: 'search', baseUrl: '', searchBaseUrl: url }, k, failing);
    expect(r).toMatchObject({ outcome: 'unreachable', message: expect.stringContaining('ECONNRESET') });
    expect(JSON.stringify(r)).not.toContain(k);
  });
});
